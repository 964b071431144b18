/// A strict JSON reader (RFC 8259): exactly one value, whitespace around it,
/// valid UTF-8, no trailing commas, no leading zeros, no lone surrogates.
/// Bounded, since what it reads comes from other programs: input larger than
/// `maxBytes` or nested deeper than `maxDepth` is refused, so a hostile answer
/// cannot exhaust memory or the stack.
public enum JSONReader {
    public struct Limits: Sendable, Equatable {
        public var maxBytes: Int
        /// Arrays and objects inside one another; the top one counts.
        public var maxDepth: Int

        public init(maxBytes: Int = 1 << 20, maxDepth: Int = 32) {
            self.maxBytes = maxBytes
            self.maxDepth = maxDepth
        }
    }

    /// Why the bytes are not one JSON value: what was wrong, and where.
    public struct Failure: Error, Equatable, Sendable, CustomStringConvertible {
        /// Bytes from the start of the input.
        public var offset: Int
        public var reason: String
        public var description: String { "\(reason) at byte \(offset)" }
    }

    public static func value(_ bytes: ArraySlice<UInt8>, limits: Limits = Limits()) throws(Failure) -> JSONValue {
        guard bytes.count <= limits.maxBytes else {
            throw Failure(offset: limits.maxBytes, reason: "more than \(limits.maxBytes) bytes")
        }
        var reader = Reader(bytes: bytes, maxDepth: limits.maxDepth)
        let value = try reader.value()
        reader.skipSpace()
        guard reader.atEnd else { throw reader.failure("more after the value") }
        return value
    }

    public static func value(_ bytes: [UInt8], limits: Limits = Limits()) throws(Failure) -> JSONValue {
        try value(bytes[...], limits: limits)
    }

    public static func value(_ text: String, limits: Limits = Limits()) throws(Failure) -> JSONValue {
        try value(Array(text.utf8)[...], limits: limits)
    }

    private struct Reader {
        let bytes: ArraySlice<UInt8>
        let maxDepth: Int
        var i: Int
        var depth = 0

        init(bytes: ArraySlice<UInt8>, maxDepth: Int) {
            self.bytes = bytes
            self.maxDepth = maxDepth
            i = bytes.startIndex
        }

        var atEnd: Bool { i == bytes.endIndex }
        var peek: UInt8? { atEnd ? nil : bytes[i] }

        func failure(_ reason: String) -> Failure {
            Failure(offset: i - bytes.startIndex, reason: atEnd ? reason + " (the input ended)" : reason)
        }

        mutating func skipSpace() {
            while let b = peek, b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 { i += 1 }
        }

        mutating func take(_ c: Character) -> Bool {
            skipSpace()
            guard peek == c.asciiValue else { return false }
            i += 1
            return true
        }

        mutating func expect(_ c: Character) throws(Failure) {
            guard take(c) else { throw failure("expected \"\(c)\"") }
        }

        mutating func value() throws(Failure) -> JSONValue {
            skipSpace()
            switch peek {
            case UInt8(ascii: "{"): return try object()
            case UInt8(ascii: "["): return try array()
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): return try literal("true", .bool(true))
            case UInt8(ascii: "f"): return try literal("false", .bool(false))
            case UInt8(ascii: "n"): return try literal("null", .null)
            default: return try number()
            }
        }

        mutating func enter() throws(Failure) {
            guard depth < maxDepth else { throw failure("nested deeper than \(maxDepth)") }
            depth += 1
        }

        mutating func object() throws(Failure) -> JSONValue {
            try enter()
            defer { depth -= 1 }
            try expect("{")
            var members: [(String, JSONValue)] = []
            if take("}") { return .object(members) }
            repeat {
                skipSpace()
                let key = try string()
                try expect(":")
                members.append((key, try value()))
            } while take(",")
            try expect("}")
            return .object(members)
        }

        mutating func array() throws(Failure) -> JSONValue {
            try enter()
            defer { depth -= 1 }
            try expect("[")
            var values: [JSONValue] = []
            if take("]") { return .array(values) }
            repeat { values.append(try value()) } while take(",")
            try expect("]")
            return .array(values)
        }

        mutating func literal(_ word: StaticString, _ value: JSONValue) throws(Failure) -> JSONValue {
            let start = i
            for c in UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount) {
                guard peek == c else {
                    i = start
                    throw failure("not a JSON value")
                }
                i += 1
            }
            return value
        }

        mutating func number() throws(Failure) -> JSONValue {
            let start = i
            if peek == UInt8(ascii: "-") { i += 1 }
            guard let first = peek, isDigit(first) else {
                i = start
                throw failure("not a JSON value")
            }
            i += 1
            if first != UInt8(ascii: "0") { while let b = peek, isDigit(b) { i += 1 } }
            var integral = true
            if peek == UInt8(ascii: ".") {
                integral = false
                i += 1
                try digits()
            }
            if let e = peek, e == UInt8(ascii: "e") || e == UInt8(ascii: "E") {
                integral = false
                i += 1
                if let sign = peek, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { i += 1 }
                try digits()
            }
            if integral, let integer = Self.int64(bytes[start..<i]) { return .integer(integer) }
            return .number(String(decoding: bytes[start..<i], as: UTF8.self))
        }

        /// An optional minus and digits as Int64, nil past its range; no String made.
        static func int64(_ text: ArraySlice<UInt8>) -> Int64? {
            var rest = text[...]
            let negative = rest.first == UInt8(ascii: "-")
            if negative { rest = rest.dropFirst() }
            var value: Int64 = 0
            for b in rest {
                let digit = Int64(b - 0x30)
                let (shifted, o1) = value.multipliedReportingOverflow(by: 10)
                let (next, o2) = negative ? shifted.subtractingReportingOverflow(digit) : shifted.addingReportingOverflow(digit)
                guard !o1, !o2 else { return nil }
                value = next
            }
            return value
        }

        mutating func digits() throws(Failure) {
            let start = i
            while let b = peek, isDigit(b) { i += 1 }
            guard i > start else { throw failure("expected a digit") }
        }

        func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }

        mutating func string() throws(Failure) -> String {
            guard peek == UInt8(ascii: "\"") else { throw failure("expected a string") }
            i += 1
            // Most strings have no escape: one validated copy, no scalar-by-scalar build.
            let start = i
            while i < bytes.endIndex {
                let b = bytes[i]
                if b == UInt8(ascii: "\"") {
                    guard let text = String(validating: bytes[start..<i], as: UTF8.self) else {
                        throw Failure(offset: start - bytes.startIndex, reason: "invalid UTF-8 in a string")
                    }
                    i += 1
                    return text
                }
                if b == UInt8(ascii: "\\") || b < 0x20 { break }
                i += 1
            }
            i = start
            var scalars = String.UnicodeScalarView()
            var run = i   // start of the current run of plain bytes
            func flush(_ end: Int) throws(Failure) {
                guard let text = String(validating: bytes[run..<end], as: UTF8.self) else {
                    throw Failure(offset: run - bytes.startIndex, reason: "invalid UTF-8 in a string")
                }
                scalars.append(contentsOf: text.unicodeScalars)
            }
            while let b = peek {
                switch b {
                case UInt8(ascii: "\""):
                    try flush(i)
                    i += 1
                    return String(scalars)
                case UInt8(ascii: "\\"):
                    try flush(i)
                    i += 1
                    scalars.append(try escape())
                    run = i
                case 0..<0x20:
                    throw failure("a control character in a string (they must be escaped)")
                default:
                    i += 1
                }
            }
            throw failure("an unterminated string")
        }

        mutating func escape() throws(Failure) -> Unicode.Scalar {
            guard let e = peek else { throw failure("an unterminated escape") }
            i += 1
            switch e {
            case UInt8(ascii: "\""): return "\""
            case UInt8(ascii: "\\"): return "\\"
            case UInt8(ascii: "/"): return "/"
            case UInt8(ascii: "b"): return "\u{08}"
            case UInt8(ascii: "f"): return "\u{0C}"
            case UInt8(ascii: "n"): return "\n"
            case UInt8(ascii: "r"): return "\r"
            case UInt8(ascii: "t"): return "\t"
            case UInt8(ascii: "u"):
                let high = try hex4()
                if (0xD800..<0xDC00).contains(high) {
                    // A surrogate pair: \uD83D\uDE00.
                    guard peek == UInt8(ascii: "\\") else { throw failure("a lone surrogate") }
                    i += 1
                    guard peek == UInt8(ascii: "u") else { throw failure("a lone surrogate") }
                    i += 1
                    let low = try hex4()
                    guard (0xDC00..<0xE000).contains(low) else { throw failure("a lone surrogate") }
                    return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))!
                }
                guard let scalar = Unicode.Scalar(high) else { throw failure("a lone surrogate") }
                return scalar
            default:
                i -= 1
                throw failure("an unknown escape")
            }
        }

        mutating func hex4() throws(Failure) -> UInt32 {
            guard bytes.endIndex - i >= 4,
                  bytes[i..<i + 4].allSatisfy({ isDigit($0) || (0x41...0x46).contains($0 & 0xDF) }),
                  let v = UInt32(String(decoding: bytes[i..<i + 4], as: UTF8.self), radix: 16) else {
                throw failure("expected four hex digits")
            }
            i += 4
            return v
        }
    }
}
