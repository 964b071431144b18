/// A strict, small JSON reader for the command probe's one-line answer, which
/// is parsed every tick: JSONDecoder costs more than the rest of the tick.
/// Values nest (and are checked), but only the top object's scalars are kept.
enum FlatJSON {
    enum Scalar: Equatable {
        case string(String)
        case integer(Int64)
        case number
        case bool(Bool)
        case null
        /// An array or object value (validated, not kept).
        case nested
    }

    /// The members of a JSON object, or nil when `bytes` is not exactly one.
    static func object(_ bytes: ArraySlice<UInt8>) -> [String: Scalar]? {
        var reader = Reader(bytes: bytes)
        guard let members = reader.object(keep: true) else { return nil }
        reader.skipSpace()
        return reader.atEnd ? members : nil
    }

    private struct Reader {
        let bytes: ArraySlice<UInt8>
        var i: Int
        var depth = 0

        init(bytes: ArraySlice<UInt8>) {
            self.bytes = bytes
            i = bytes.startIndex
        }

        var atEnd: Bool { i == bytes.endIndex }
        var peek: UInt8? { atEnd ? nil : bytes[i] }

        mutating func skipSpace() {
            while let b = peek, b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 { i += 1 }
        }

        mutating func expect(_ c: Character) -> Bool {
            skipSpace()
            guard peek == c.asciiValue else { return false }
            i += 1
            return true
        }

        mutating func object(keep: Bool) -> [String: Scalar]? {
            guard expect("{"), depth < 32 else { return nil }
            depth += 1
            defer { depth -= 1 }
            var members: [String: Scalar] = [:]
            if expect("}") { return members }
            repeat {
                skipSpace()
                guard let key = string(), expect(":"), let value = value() else { return nil }
                if keep { members[key] = value }
            } while expect(",")
            return expect("}") ? members : nil
        }

        mutating func value() -> Scalar? {
            skipSpace()
            switch peek {
            case UInt8(ascii: "{"): return object(keep: false).map { _ in .nested }
            case UInt8(ascii: "["): return array() ? .nested : nil
            case UInt8(ascii: "\""): return string().map(Scalar.string)
            case UInt8(ascii: "t"): return literal("true") ? .bool(true) : nil
            case UInt8(ascii: "f"): return literal("false") ? .bool(false) : nil
            case UInt8(ascii: "n"): return literal("null") ? .null : nil
            default: return number()
            }
        }

        mutating func array() -> Bool {
            guard expect("["), depth < 32 else { return false }
            depth += 1
            defer { depth -= 1 }
            if expect("]") { return true }
            repeat { guard value() != nil else { return false } } while expect(",")
            return expect("]")
        }

        mutating func literal(_ word: String) -> Bool {
            for c in word.utf8 {
                guard peek == c else { return false }
                i += 1
            }
            return true
        }

        mutating func number() -> Scalar? {
            let start = i
            if peek == UInt8(ascii: "-") { i += 1 }
            guard let first = peek, isDigit(first) else { return nil }
            i += 1
            if first != UInt8(ascii: "0") { while let b = peek, isDigit(b) { i += 1 } }
            var integral = true
            if peek == UInt8(ascii: ".") {
                integral = false
                i += 1
                guard digits() else { return nil }
            }
            if let e = peek, e == UInt8(ascii: "e") || e == UInt8(ascii: "E") {
                integral = false
                i += 1
                if let sign = peek, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { i += 1 }
                guard digits() else { return nil }
            }
            guard integral else { return .number }
            return Int64(String(decoding: bytes[start..<i], as: UTF8.self)).map(Scalar.integer) ?? .number
        }

        mutating func digits() -> Bool {
            let start = i
            while let b = peek, isDigit(b) { i += 1 }
            return i > start
        }

        func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }

        mutating func string() -> String? {
            guard peek == UInt8(ascii: "\"") else { return nil }
            i += 1
            var scalars = String.UnicodeScalarView()
            var run = i   // start of the current run of plain bytes
            func flush(_ end: Int) -> Bool {
                guard let text = String(validating: bytes[run..<end], as: UTF8.self) else { return false }
                scalars.append(contentsOf: text.unicodeScalars)
                return true
            }
            while let b = peek {
                switch b {
                case UInt8(ascii: "\""):
                    guard flush(i) else { return nil }
                    i += 1
                    return String(scalars)
                case UInt8(ascii: "\\"):
                    guard flush(i) else { return nil }
                    i += 1
                    guard let scalar = escape() else { return nil }
                    scalars.append(scalar)
                    run = i
                case 0..<0x20:
                    return nil   // control characters must be escaped
                default:
                    i += 1
                }
            }
            return nil
        }

        mutating func escape() -> Unicode.Scalar? {
            guard let e = peek else { return nil }
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
                guard let high = hex4() else { return nil }
                if (0xD800..<0xDC00).contains(high) {
                    // A surrogate pair: \uD83D\uDE00.
                    guard literal("\\u"), let low = hex4(), (0xDC00..<0xE000).contains(low) else { return nil }
                    return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
                }
                return Unicode.Scalar(high)
            default: return nil
            }
        }

        mutating func hex4() -> UInt32? {
            guard i + 4 <= bytes.endIndex,
                  let v = UInt32(String(decoding: bytes[i..<i + 4], as: UTF8.self), radix: 16) else { return nil }
            i += 4
            return v
        }
    }
}
