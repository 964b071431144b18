import BlockerCore
import CTOML

/// The only place that touches CTOML: TOML bytes in, the document as a
/// `ConfigValue` (or a positioned syntax error) out, straight from toml++'s
/// nodes.
enum TOMLDocument {
    /// `bytes` must have passed `TOMLNesting.check`: toml++ recurses once per
    /// level, and so do the C++ walk and `Nodes.value()` below.
    static func parse(_ bytes: [UInt8], file: String) throws(ConfigError) -> ConfigValue {
        // A trailing NUL keeps the buffer's address non-nil even for an empty file; it is not counted.
        let terminated = bytes + [0]
        var nodes: UnsafePointer<ctoml_node>?
        var count = 0
        var error = ctoml_error()
        let document = terminated.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { text in
                ctoml_parse(text.baseAddress!, bytes.count, &nodes, &count, &error)
            }
        }
        guard let document else {
            defer { ctoml_free(error.message) }
            throw syntaxError(error, file: file)
        }
        defer { ctoml_document_free(document) }
        // A document has at least its root table.
        var reader = Nodes(nodes: UnsafeBufferPointer(start: nodes, count: count))
        return reader.value()
    }

    private static func syntaxError(_ error: ctoml_error, file: String) -> ConfigError {
        guard let message = error.message.map({ String(cString: $0) }) else {
            return ConfigError(file: file, message: "out of memory while parsing")
        }
        guard error.line > 0 else { return ConfigError(file: file, message: message) }
        return ConfigError(file: file, line: Int(error.line), column: Int(error.column), message: message)
    }

    /// Reads the pre-order nodes back into a tree.
    private struct Nodes {
        let nodes: UnsafeBufferPointer<ctoml_node>
        var next = 0

        mutating func value() -> ConfigValue {
            let node = nodes[next]
            next += 1
            switch node.kind {
            case .CTOML_TABLE:
                var table: [String: ConfigValue] = [:]
                for _ in 0..<node.count {
                    let member = nodes[next]
                    table[Self.text(member.key, member.key_length)] = value()
                }
                return .table(table)
            case .CTOML_ARRAY:
                var array: [ConfigValue] = []
                array.reserveCapacity(node.count)
                for _ in 0..<node.count { array.append(value()) }
                return .array(array)
            case .CTOML_STRING, .CTOML_DATE_TIME:
                return .string(Self.text(node.text, node.text_length))
            case .CTOML_INTEGER:
                return .integer(node.integer)
            case .CTOML_BOOLEAN:
                return .bool(node.boolean)
            case .CTOML_FLOAT:
                // Infinities and NaN stay the strings they were when toml++'s
                // JSON carried them: messages say `found string "Infinity"`,
                // and `name = nan` names a group "NaN".
                let number = node.number
                if number.isNaN { return .string("NaN") }
                if number.isInfinite { return .string(number < 0 ? "-Infinity" : "Infinity") }
                return .float(number)
            }
        }

        private static func text(_ start: UnsafePointer<CChar>?, _ length: Int) -> String {
            guard let start else { return "" }
            return start.withMemoryRebound(to: UInt8.self, capacity: length) { bytes in
                String(decoding: UnsafeBufferPointer(start: bytes, count: length), as: UTF8.self)
            }
        }
    }
}
