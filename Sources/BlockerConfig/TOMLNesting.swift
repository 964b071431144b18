/// How deep blocker.toml may nest, checked on its bytes before toml++ sees
/// them: toml++ recurses once per level of a dotted key or table header (a
/// 40,000-part key overflows its stack), and so does reading its tree back
/// (`TOMLDocument`). This cannot be done on toml++'s tree instead: the
/// input that needs it never makes one. toml++'s own limit (256 levels of
/// arrays and inline tables) covers neither dotted keys nor headers. A real
/// blocker.toml nests 2 levels (`[[group.schedule]]`, `apps = ["…"]`); the
/// limit is far above that.
///
/// The scan knows comments, the four kinds of strings, keys, headers and
/// brackets. It is lenient: whatever it does not understand it skips, and
/// toml++ then reports the syntax error with its position. It only errs on
/// the side of counting a level too many.
enum TOMLNesting {
    /// Parts of a table header; also levels of a value (dotted key parts,
    /// arrays and inline tables together, counted from its table).
    static let maximumDepth = 32

    struct TooDeep: Error, Equatable {
        /// 1-based; the column counts Unicode scalars.
        var line: Int
        var column: Int
        var message: String
    }

    static func check(_ bytes: [UInt8]) throws(TooDeep) {
        var scanner = Scanner(bytes: bytes)
        try scanner.run()
    }

    private struct Frame {
        var isArray: Bool
        /// Levels below the table the statement is in.
        var level: Int
    }

    private enum Expecting {
        /// A key, or at the start of a top-level line, a table header.
        case key(base: Int)
        case value(level: Int)
        /// Whatever follows a value or a header: only separators and brackets matter.
        case rest
    }

    private struct Scanner {
        let bytes: [UInt8]
        var i = 0
        var line = 1
        var lineStart = 0
        var open: [Frame] = []
        var expecting = Expecting.key(base: 0)

        init(bytes: [UInt8]) { self.bytes = bytes }

        var peek: UInt8? { i < bytes.count ? bytes[i] : nil }

        func byte(at index: Int) -> UInt8? { index < bytes.count ? bytes[index] : nil }

        func tooDeep(at start: Int, _ message: String) -> TooDeep {
            let scalars = bytes[lineStart..<start].count(where: { $0 & 0xC0 != 0x80 })
            return TooDeep(line: line, column: scalars + 1, message: message)
        }

        mutating func newline() {
            i += 1
            line += 1
            lineStart = i
        }

        mutating func run() throws(TooDeep) {
            while let b = peek {
                switch b {
                case UInt8(ascii: "\n"):
                    newline()
                    if open.isEmpty { expecting = .key(base: 0) }
                case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"):
                    i += 1
                case UInt8(ascii: "#"):
                    while let c = peek, c != UInt8(ascii: "\n") { i += 1 }
                case UInt8(ascii: ","):
                    i += 1
                    if let top = open.last {
                        expecting = top.isArray ? .value(level: top.level + 1) : .key(base: top.level)
                    }
                case UInt8(ascii: "]"), UInt8(ascii: "}"):
                    i += 1
                    // Only a matching close pops: a stray one is toml++'s to report.
                    if let top = open.last, top.isArray == (b == UInt8(ascii: "]")) {
                        open.removeLast()
                        expecting = .rest
                    }
                case UInt8(ascii: "["), UInt8(ascii: "{"):
                    if b == UInt8(ascii: "["), open.isEmpty, case .key(base: 0) = expecting {
                        try header()
                    } else {
                        try openContainer(isArray: b == UInt8(ascii: "["))
                    }
                case UInt8(ascii: "="):
                    i += 1
                    expecting = .value(level: open.last.map { $0.level + 1 } ?? 1)
                default:
                    switch expecting {
                    case .key(let base): try key(base: base)
                    case .value: scalar()
                    case .rest: if b == UInt8(ascii: "\"") || b == UInt8(ascii: "'") { string() } else { i += 1 }
                    }
                }
            }
        }

        /// `[` or `{` where a value may be (or anywhere unexpected: a level too many is safe).
        mutating func openContainer(isArray: Bool) throws(TooDeep) {
            let level: Int = switch expecting {
            case .value(let level): level
            case .key(let base): base + 1
            case .rest: (open.last?.level ?? 0) + 1
            }
            guard level <= TOMLNesting.maximumDepth else { throw nestedTooDeep(at: i) }
            i += 1
            open.append(Frame(isArray: isArray, level: level))
            expecting = isArray ? .value(level: level + 1) : .key(base: level)
        }

        func nestedTooDeep(at start: Int) -> TooDeep {
            tooDeep(at: start, "arrays, inline tables and dotted keys are nested more than "
                + "\(TOMLNesting.maximumDepth) levels deep; a blocker.toml value nests 1 (like "
                + "apps = [\"discord\"]): look for a [ or { too many")
        }

        /// `[a.b]` or `[[a.b]]` at the start of a top-level line.
        mutating func header() throws(TooDeep) {
            let start = i
            i += 1
            if peek == UInt8(ascii: "[") { i += 1 }
            let parts = keyParts()
            guard parts <= TOMLNesting.maximumDepth else {
                throw tooDeep(at: start, "this table header has \(parts) dotted parts, more than "
                    + "\(TOMLNesting.maximumDepth); blocker.toml's headers have at most 2 (like [[group.schedule]])")
            }
            expecting = .rest
        }

        /// A key before `=`, at `base` levels below its table.
        mutating func key(base: Int) throws(TooDeep) {
            let start = i
            let parts = keyParts()
            if i == start {
                i += 1  // not a key: toml++ will say why
                expecting = .rest
                return
            }
            guard parts <= TOMLNesting.maximumDepth else {
                throw tooDeep(at: start, "this key has \(parts) dotted parts, more than "
                    + "\(TOMLNesting.maximumDepth); blocker.toml's keys are one word (like probe = \"auto\")")
            }
            guard base + parts <= TOMLNesting.maximumDepth else { throw nestedTooDeep(at: start) }
            skipBlanks()
            if peek == UInt8(ascii: "=") {
                i += 1
                expecting = .value(level: base + parts)
            } else {
                expecting = .rest
            }
        }

        /// Counts the parts of a dotted key (bare or quoted, blanks around
        /// the dots) and stops after it.
        mutating func keyParts() -> Int {
            var dots = 0
            while true {
                skipBlanks()
                guard let b = peek else { break }
                if b == UInt8(ascii: ".") {
                    dots += 1
                    i += 1
                } else if b == UInt8(ascii: "\"") || b == UInt8(ascii: "'") {
                    string()
                } else if isBareKeyByte(b) {
                    while let c = peek, isBareKeyByte(c) { i += 1 }
                } else {
                    break
                }
            }
            return dots + 1
        }

        /// Bare keys are ASCII letters, digits, - and _; non-ASCII bytes are
        /// taken too, so a parser that allowed them would not see more levels than this.
        func isBareKeyByte(_ b: UInt8) -> Bool {
            (b >= 0x30 && b <= 0x39) || (b | 0x20 >= 0x61 && b | 0x20 <= 0x7A)
                || b == UInt8(ascii: "-") || b == UInt8(ascii: "_") || b >= 0x80
        }

        mutating func skipBlanks() {
            while let b = peek, b == UInt8(ascii: " ") || b == UInt8(ascii: "\t") { i += 1 }
        }

        /// A number, date, boolean… or a string.
        mutating func scalar() {
            if let b = peek, b == UInt8(ascii: "\"") || b == UInt8(ascii: "'") {
                string()
            } else {
                while let c = peek, !isDelimiter(c) { i += 1 }
            }
            expecting = .rest
        }

        func isDelimiter(_ b: UInt8) -> Bool {
            switch b {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"), UInt8(ascii: "\n"),
                 UInt8(ascii: ","), UInt8(ascii: "]"), UInt8(ascii: "}"), UInt8(ascii: "#"):
                true
            default:
                false
            }
        }

        /// Skips a string of any of the four kinds, starting at its quote. An
        /// unterminated one-line string ends at the end of its line.
        mutating func string() {
            let quote = bytes[i]
            let escapes = quote == UInt8(ascii: "\"")
            if byte(at: i + 1) == quote, byte(at: i + 2) == quote {
                i += 3
                while let b = peek {
                    if b == quote, byte(at: i + 1) == quote, byte(at: i + 2) == quote {
                        i += 3
                        // Up to two more quotes belong to the content: """a""""" is a"".
                        for _ in 0..<2 where peek == quote { i += 1 }
                        return
                    }
                    if escapes, b == UInt8(ascii: "\\") { i += 1 }
                    if peek == UInt8(ascii: "\n") { newline() } else if peek != nil { i += 1 }
                }
                return
            }
            i += 1
            while let b = peek, b != UInt8(ascii: "\n") {
                i += 1
                if b == quote { return }
                if escapes, b == UInt8(ascii: "\\"), let next = peek, next != UInt8(ascii: "\n") { i += 1 }
            }
        }
    }
}
