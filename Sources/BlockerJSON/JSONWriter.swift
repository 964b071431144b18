extension JSONValue {
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
        case let .number(literal): text += literal
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
            // Valid JSON as they are, but not in older JavaScript's string
            // literals (a KWin script embeds JSON: `KWinShell.hideScript`).
            case "\u{2028}": text += "\\u2028"
            case "\u{2029}": text += "\\u2029"
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
