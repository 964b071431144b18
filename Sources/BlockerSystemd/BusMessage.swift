import BlockerSystem
import CSystemd
import Glibc

/// A value inside a variant, as `Status()` uses them (`a{sv}`). Other
/// variant types are skipped on reading, so new keys never break old clients.
public enum BusValue: Equatable, Sendable {
    case string(String)
    case bool(Bool)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case strings([String])
    case dictionary([String: BusValue])
    /// `y`: notification urgency hints are bytes.
    case byte(UInt8)
    /// `d`: what a KWin script's numbers arrive as.
    case double(Double)

    /// The D-Bus signature of the value.
    public var signature: String {
        switch self {
        case .byte: "y"
        case .double: "d"
        case .string: "s"
        case .bool: "b"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .strings: "as"
        case .dictionary: "a{sv}"
        }
    }
}

/// One D-Bus message (`sd_bus_message`): a call, a reply or a signal.
/// Values are appended and read in signature order.
public final class BusMessage {
    /// Internal: the wrappers in this module pass it to sd-bus.
    let raw: OpaquePointer

    /// Takes over a reference the caller owns.
    init(adopting raw: OpaquePointer) {
        self.raw = raw
    }

    /// Adds a reference of its own (for messages sd-bus lends to a callback).
    convenience init(retaining raw: OpaquePointer) {
        sd_bus_message_ref(raw)
        self.init(adopting: raw)
    }

    deinit {
        sd_bus_message_unref(raw)
    }

    public var member: String? { sd_bus_message_get_member(raw).map { String(cString: $0) } }
    public var sender: String? { sd_bus_message_get_sender(raw).map { String(cString: $0) } }

    /// The reply to this method call, to append the results to.
    public func makeReply() throws(SystemdError) -> BusMessage {
        var reply: OpaquePointer?
        try SystemdError.check(sd_bus_message_new_method_return(raw, &reply), "sd_bus_message_new_method_return")
        return BusMessage(adopting: reply!)
    }

    // MARK: appending

    private static func code(_ type: String) -> CChar { CChar(bitPattern: type.utf8.first!) }

    public func append(_ value: String) throws(SystemdError) {
        try SystemdError.check(value.withCString { sd_bus_message_append_basic(raw, Self.code("s"), $0) },
                           "sd_bus_message_append_basic(s)")
    }

    public func append(_ value: Bool) throws(SystemdError) {
        try appendBasic("b", Int32(value ? 1 : 0))   // D-Bus booleans are 32 bits wide
    }

    public func append(_ value: Int32) throws(SystemdError) { try appendBasic("i", value) }
    public func append(_ value: UInt32) throws(SystemdError) { try appendBasic("u", value) }
    public func append(_ value: Int64) throws(SystemdError) { try appendBasic("x", value) }
    public func append(_ value: UInt64) throws(SystemdError) { try appendBasic("t", value) }

    private func appendBasic<T>(_ type: String, _ value: T) throws(SystemdError) {
        var copy = value
        try SystemdError.check(withUnsafePointer(to: &copy) { sd_bus_message_append_basic(raw, Self.code(type), $0) },
                           "sd_bus_message_append_basic(\(type))")
    }

    public func append(_ value: [String]) throws(SystemdError) {
        try appendArray(value, of: "s") { (item: String) throws(SystemdError) in try append(item) }
    }

    public func append(_ value: BusValue) throws(SystemdError) {
        switch value {
        case let .string(v): try append(v)
        case let .bool(v): try append(v)
        case let .int32(v): try append(v)
        case let .uint32(v): try append(v)
        case let .int64(v): try append(v)
        case let .uint64(v): try append(v)
        case let .strings(v): try append(v)
        case let .dictionary(v): try append(v)
        case let .byte(v): try appendBasic("y", v)
        case let .double(v): try appendBasic("d", v)
        }
    }

    /// `a{sv}`, keys sorted so the same dictionary is always the same bytes.
    public func append(_ dictionary: [String: BusValue]) throws(SystemdError) {
        try appendArray(dictionary.sorted { $0.key < $1.key }, of: "{sv}") { (entry: (key: String, value: BusValue)) throws(SystemdError) in
            try container("e", "sv") { () throws(SystemdError) in
                try append(entry.key)
                try container("v", entry.value.signature) { () throws(SystemdError) in try append(entry.value) }
            }
        }
    }

    /// An array of `element`s, each appended by `body`.
    public func appendArray<T>(_ items: [T], of element: String, _ body: (T) throws(SystemdError) -> Void) throws(SystemdError) {
        try container("a", element) { () throws(SystemdError) in
            for item in items { try body(item) }
        }
    }

    /// A struct `(contents)` whose fields `body` appends.
    public func appendStruct(_ contents: String, _ body: () throws(SystemdError) -> Void) throws(SystemdError) {
        try container("r", contents, body)
    }

    private func container(_ type: String, _ contents: String, _ body: () throws(SystemdError) -> Void) throws(SystemdError) {
        try SystemdError.check(sd_bus_message_open_container(raw, Self.code(type), contents), "sd_bus_message_open_container")
        try body()
        try SystemdError.check(sd_bus_message_close_container(raw), "sd_bus_message_close_container")
    }

    // MARK: reading

    public func readString() throws(SystemdError) -> String {
        var value: UnsafePointer<CChar>?
        try readBasic("s", &value)
        return String(cString: value!)
    }

    /// An object path (`o`), as GetSession returns.
    public func readObjectPath() throws(SystemdError) -> String {
        var value: UnsafePointer<CChar>?
        try readBasic("o", &value)
        return String(cString: value!)
    }

    public func readBool() throws(SystemdError) -> Bool {
        var value: Int32 = 0
        try readBasic("b", &value)
        return value != 0
    }

    public func readInt32() throws(SystemdError) -> Int32 { var v: Int32 = 0; try readBasic("i", &v); return v }
    public func readUInt32() throws(SystemdError) -> UInt32 { var v: UInt32 = 0; try readBasic("u", &v); return v }
    public func readInt64() throws(SystemdError) -> Int64 { var v: Int64 = 0; try readBasic("x", &v); return v }
    public func readUInt64() throws(SystemdError) -> UInt64 { var v: UInt64 = 0; try readBasic("t", &v); return v }

    private func readBasic<T>(_ type: String, _ value: inout T) throws(SystemdError) {
        let r = try SystemdError.check(withUnsafeMutablePointer(to: &value) { sd_bus_message_read_basic(raw, Self.code(type), $0) },
                                   "sd_bus_message_read_basic(\(type))")
        // 0: the message (or container) has no more values.
        if r == 0 { throw SystemdError(call: "sd_bus_message_read_basic(\(type))", errno: .badMessage) }
    }

    public func readStrings() throws(SystemdError) -> [String] {
        try readArray(of: "s") { () throws(SystemdError) in try readString() }
    }

    /// An array of `element`s, each read by `body`.
    public func readArray<T>(of element: String, _ body: () throws(SystemdError) -> T) throws(SystemdError) -> [T] {
        try enter("a", element)
        var items: [T] = []
        while sd_bus_message_at_end(raw, 0) == 0 { items.append(try body()) }
        try exit()
        return items
    }

    /// A struct `(contents)` whose fields `body` reads.
    public func readStruct<T>(_ contents: String, _ body: () throws(SystemdError) -> T) throws(SystemdError) -> T {
        try enter("r", contents)
        let value = try body()
        try exit()
        return value
    }

    /// `a{sv}`; values of types `BusValue` does not know are skipped.
    public func readDictionary() throws(SystemdError) -> [String: BusValue] {
        var result: [String: BusValue] = [:]
        try enter("a", "{sv}")
        while sd_bus_message_at_end(raw, 0) == 0 {
            try enter("e", "sv")
            let key = try readString()
            var type: CChar = 0
            var contents: UnsafePointer<CChar>?
            try SystemdError.check(sd_bus_message_peek_type(raw, &type, &contents), "sd_bus_message_peek_type")
            let signature = contents.map { String(cString: $0) } ?? ""
            try enter("v", signature)
            if let value = try readValue(signature: signature) { result[key] = value }
            try exit()
            try exit()
        }
        try exit()
        return result
    }

    private func readValue(signature: String) throws(SystemdError) -> BusValue? {
        switch signature {
        case "s": return .string(try readString())
        case "b": return .bool(try readBool())
        case "i": return .int32(try readInt32())
        case "u": return .uint32(try readUInt32())
        case "x": return .int64(try readInt64())
        case "t": return .uint64(try readUInt64())
        case "as": return .strings(try readStrings())
        case "a{sv}": return .dictionary(try readDictionary())
        case "y": var v: UInt8 = 0; try readBasic("y", &v); return .byte(v)
        case "d": var v = 0.0; try readBasic("d", &v); return .double(v)
        default:
            try SystemdError.check(sd_bus_message_skip(raw, signature), "sd_bus_message_skip")
            return nil
        }
    }

    private func enter(_ type: String, _ contents: String) throws(SystemdError) {
        let r = try SystemdError.check(sd_bus_message_enter_container(raw, Self.code(type), contents),
                                   "sd_bus_message_enter_container(\(type)\(contents))")
        if r == 0 { throw SystemdError(call: "sd_bus_message_enter_container(\(type)\(contents))", errno: .badMessage) }
    }

    private func exit() throws(SystemdError) {
        try SystemdError.check(sd_bus_message_exit_container(raw), "sd_bus_message_exit_container")
    }
}
