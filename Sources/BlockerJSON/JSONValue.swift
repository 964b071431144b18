// BlockerJSON: the one JSON reader and writer of the probes and blockerctl,
// by hand and with no dependencies. The writer keeps keys in the order a
// contract lists them (JSONEncoder does not); the reader is strict, bounded,
// and cheap enough to run every tick. BlockerConfig reads toml++'s JSON with
// it too, so no Foundation is linked into the binaries for JSON.

/// A JSON value (RFC 8259). Objects keep their members in order, so what
/// blockerctl writes lists keys in the order its contract does.
public indirect enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case integer(Int64)
    /// Any other number (a fraction, an exponent, beyond Int64), as written:
    /// the reader checked its syntax; nobody here needs its value.
    case number(String)
    case string(String)
    case array([JSONValue])
    /// Members in order; a key may repeat (lookups take the last, as a dictionary would).
    case object([(String, JSONValue)])

    public static func optional(_ text: String?) -> JSONValue { text.map(JSONValue.string) ?? .null }

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case let (.bool(a), .bool(b)): a == b
        case let (.integer(a), .integer(b)): a == b
        case let (.number(a), .number(b)): a == b
        case let (.string(a), .string(b)): a == b
        case let (.array(a), .array(b)): a == b
        case let (.object(a), .object(b)): a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: false
        }
    }

    // MARK: reading fields

    /// The member named `key` of an object (the last one, if it repeats); nil
    /// when absent or when this is not an object.
    public subscript(key: String) -> JSONValue? {
        guard case let .object(members) = self else { return nil }
        return members.last { $0.0 == key }?.1
    }

    public var isNull: Bool { self == .null }
    public var string: String? { if case let .string(value) = self { value } else { nil } }
    public var integer: Int64? { if case let .integer(value) = self { value } else { nil } }
    public var bool: Bool? { if case let .bool(value) = self { value } else { nil } }
    public var array: [JSONValue]? { if case let .array(values) = self { values } else { nil } }
    public var members: [(String, JSONValue)]? { if case let .object(members) = self { members } else { nil } }
}
