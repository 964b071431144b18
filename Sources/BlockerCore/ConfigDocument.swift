/// A parsed blocker.toml before validation: the TOML document as plain values.
///
/// `BlockerConfig` builds it from the JSON that CTOML prints, so the cases are
/// what JSON can carry. Dates and times arrive as strings (`"22:30:00"`). JSON
/// cannot tell `1.0` from `1`, so a TOML float with a whole value may arrive as
/// `.integer`; validation accepts both wherever a number is allowed.
public indirect enum ConfigValue: Decodable, Equatable, Sendable {
    case string(String)
    case integer(Int64)
    case float(Double)
    case bool(Bool)
    case array([ConfigValue])
    case table([String: ConfigValue])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        // Most specific first: an integer also decodes as a Double.
        if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .float(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([ConfigValue].self) {
            self = .array(value)
        } else {
            self = .table(try container.decode([String: ConfigValue].self))
        }
    }

    /// How a value is named in an error message: `integer 5`, `string "x"`, `an array`.
    public var kindDescription: String {
        switch self {
        case .string(let text): "string \"\(text)\""
        case .integer(let number): "integer \(number)"
        case .float(let number): "number \(number)"
        case .bool(let flag): "boolean \(flag)"
        case .array: "an array"
        case .table: "a table"
        }
    }
}

// Literals let tests and callers write documents as they would write TOML.
extension ConfigValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .float(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: ConfigValue...) { self = .array(elements) }
    /// A repeated key keeps its last value.
    public init(dictionaryLiteral elements: (String, ConfigValue)...) {
        self = .table(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}
