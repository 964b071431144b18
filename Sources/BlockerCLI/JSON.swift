/// JSON written by hand (RFC 8259): keys stay in the order the contract lists
/// them, and the binary needs no Foundation.
public indirect enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case integer(Int64)
    case string(String)
    case array([JSONValue])
    /// Ordered key/value pairs.
    case object([(String, JSONValue)])

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool { lhs.rendered == rhs.rendered }

    public static func optional(_ text: String?) -> JSONValue { text.map(JSONValue.string) ?? .null }

    /// Compact, one line: fits `--watch` output, one object per line.
    public var rendered: String {
        var text = ""
        write(to: &text)
        return text
    }

    private func write(to text: inout String) {
        switch self {
        case .null: text += "null"
        case let .bool(value): text += value ? "true" : "false"
        case let .integer(value): text += String(value)
        case let .string(value): JSONValue.writeString(value, to: &text)
        case let .array(values):
            text += "["
            for (index, value) in values.enumerated() {
                if index > 0 { text += "," }
                value.write(to: &text)
            }
            text += "]"
        case let .object(pairs):
            text += "{"
            for (index, (key, value)) in pairs.enumerated() {
                if index > 0 { text += "," }
                JSONValue.writeString(key, to: &text)
                text += ":"
                value.write(to: &text)
            }
            text += "}"
        }
    }

    private static func writeString(_ value: String, to text: inout String) {
        text += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                let hex = String(scalar.value, radix: 16)
                text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default:
                text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }
}
