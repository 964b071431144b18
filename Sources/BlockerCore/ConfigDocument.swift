/// A parsed blocker.toml before validation: the TOML document as plain values.
///
/// `BlockerConfig` builds it from toml++'s nodes (`TOMLDocument`). Dates and
/// times arrive as strings as toml++ writes them (`"22:30:00"`), infinities
/// and NaN as the strings `"Infinity"`, `"-Infinity"` and `"NaN"` (as when
/// they came through JSON: messages name them so). A TOML integer arrives as
/// `.integer`, a float as `.float`; validation accepts both wherever a number
/// is allowed.
public indirect enum ConfigValue: Equatable, Sendable {
    case string(String)
    case integer(Int64)
    case float(Double)
    case bool(Bool)
    case array([ConfigValue])
    case table([String: ConfigValue])

    /// How a value is named in an error message: `integer 5`, `string "x"`, `an array`.
    public var kindDescription: String {
        switch self {
        case .string(let text): tr("string \"{text}\"", ["text": text])
        case .integer(let number): tr("integer {number}", ["number": "\(number)"])
        case .float(let number): tr("number {number}", ["number": "\(number)"])
        case .bool(let flag): tr("boolean {value}", ["value": "\(flag)"])
        case .array: tr("an array")
        case .table: tr("a table")
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
