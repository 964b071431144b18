import CBusShim
import CSystemd
import Glibc

// The one file that calls sd-bus. Everything above it sees connections,
// messages and subscriptions as Swift types; raw pointers stay here.

/// A libsystemd bus call failed: the negative errno it returned.
public struct BusError: Error, Equatable, Sendable, CustomStringConvertible {
    public let call: String
    public let errno: Int32
    public var description: String { "\(call): \(String(cString: strerror(errno)))" }

    public init(call: String, errno: Int32) {
        self.call = call
        self.errno = errno
    }

    /// libsystemd returns -errno on failure.
    @discardableResult
    static func check(_ result: Int32, _ call: String) throws(BusError) -> Int32 {
        if result < 0 { throw BusError(call: call, errno: -result) }
        return result
    }
}

/// An error reply on the bus: its D-Bus error name and the human message.
struct BusErrorReply: Error, Equatable, Sendable {
    var name: String
    var message: String
    /// The errno sd-bus maps the name to (or the local failure's errno).
    var errno: Int32 = EIO
}

/// A value inside a variant, as `Status()` uses them (`a{sv}`). Other
/// variant types are skipped on reading, so new keys never break old clients.
enum BusValue: Equatable, Sendable {
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

    /// The D-Bus signature of the value.
    var signature: String {
        switch self {
        case .byte: "y"
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

/// A method of an exported interface. Names are comma-separated parameter
/// names for introspection ("exercise,reps").
struct BusMethodSpec {
    var member: String
    var signature: String
    var parameterNames: String
    var result: String
    var resultNames: String
}

/// A signal of an exported interface.
struct BusSignalSpec {
    var member: String
    var signature: String
    var parameterNames: String
}

/// One connection to a message bus (the session bus, for blocker).
final class BusConnection {
    private let bus: OpaquePointer

    /// Connects to `address` as a bus client (Hello is sent by sd-bus).
    init(address: String) throws(BusError) {
        var created: OpaquePointer?
        try BusError.check(sd_bus_new(&created), "sd_bus_new")
        // Set up before `self.bus` is assigned: once it is, a throw would run
        // deinit, and the bus must be released exactly once.
        let bus = created!
        do throws(BusError) {
            try BusError.check(sd_bus_set_address(bus, address), "sd_bus_set_address")
            try BusError.check(sd_bus_set_bus_client(bus, 1), "sd_bus_set_bus_client")
            // Not trusted: sd-bus would otherwise skip its own checks. Blocker's
            // methods are marked unprivileged and check the caller's uid themselves.
            try BusError.check(sd_bus_set_trusted(bus, 0), "sd_bus_set_trusted")
            try BusError.check(sd_bus_start(bus), "sd_bus_start")
        } catch {
            sd_bus_unref(bus)
            throw error
        }
        self.bus = bus
    }

    deinit {
        sd_bus_flush_close_unref(bus)
    }

    /// The session bus address: `DBUS_SESSION_BUS_ADDRESS`, else
    /// `$XDG_RUNTIME_DIR/bus` when that socket exists (what sd_bus_open_user does).
    static func sessionAddress(environment: [String: String]) -> String? {
        if let address = environment["DBUS_SESSION_BUS_ADDRESS"], !address.isEmpty { return address }
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/"),
           access(runtime + "/bus", F_OK) == 0 {
            return "unix:path=" + escapeAddressValue(runtime + "/bus")
        }
        return nil
    }

    /// D-Bus address values escape every byte outside [-0-9A-Za-z_/.\*] as %XX.
    static func escapeAddressValue(_ value: String) -> String {
        var out = ""
        for byte in value.utf8 {
            let c = Character(Unicode.Scalar(byte))
            if c.isASCII && (c.isLetter || c.isNumber || "-_/.\\*".contains(c)) {
                out.append(c)
            } else {
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return out
    }

    /// This connection's unique name (":1.42").
    var uniqueName: String? {
        var name: UnsafePointer<CChar>?
        guard sd_bus_get_unique_name(bus, &name) >= 0, let name else { return nil }
        return String(cString: name)
    }

    // MARK: names

    /// Takes `name` without queueing: EEXIST when someone else owns it.
    func requestName(_ name: String) throws(BusError) {
        try BusError.check(sd_bus_request_name(bus, name, 0), "sd_bus_request_name")
    }

    /// The pid of the process owning `name`, as the bus daemon reports it.
    func ownerPID(of name: String) -> Int32? {
        var creds: OpaquePointer?
        // The corresponding C constant is SD_BUS_CREDS_PID.
        guard sd_bus_get_name_creds(bus, name, 1 << 0, &creds) >= 0, let creds else { return nil }
        defer { sd_bus_creds_unref(creds) }
        var pid: pid_t = 0
        return sd_bus_creds_get_pid(creds, &pid) >= 0 ? pid : nil
    }

    /// Whether anybody owns `name` now.
    func hasOwner(_ name: String) throws(BusCallError) -> Bool {
        let query = try methodCall(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                   interface: "org.freedesktop.DBus", member: "NameHasOwner")
        do throws(BusError) { try query.append(name) } catch { throw .system(error) }
        let reply = try call(query, timeoutMicroseconds: 5_000_000)
        do throws(BusError) { return try reply.readBool() } catch { throw .system(error) }
    }

    /// The effective uid of the connection that sent `message`, asked of the
    /// bus daemon (which took it from SO_PEERCRED when the peer connected).
    func senderUID(of message: BusMessage) throws(BusError) -> uid_t {
        var creds: OpaquePointer?
        // The corresponding C constants are SD_BUS_CREDS_UID | SD_BUS_CREDS_EUID | SD_BUS_CREDS_AUGMENT.
        let mask: UInt64 = (1 << 3) | (1 << 4) | (1 << 63)
        try BusError.check(sd_bus_query_sender_creds(message.raw, mask, &creds), "sd_bus_query_sender_creds")
        defer { sd_bus_creds_unref(creds) }
        var uid: uid_t = 0
        if sd_bus_creds_get_euid(creds, &uid) >= 0 { return uid }
        try BusError.check(sd_bus_creds_get_uid(creds, &uid), "sd_bus_creds_get_uid")
        return uid
    }

    // MARK: exporting

    /// Serves `interface` at `path`. Every method lands in `handler`, which
    /// tells them apart by `BusMessage.member` and returns the reply or an
    /// error. The export lasts as long as the returned object.
    func export(path: String, interface: String, methods: [BusMethodSpec], signals: [BusSignalSpec],
                handler: @escaping (BusMessage) -> Result<BusMessage, BusErrorReply>) throws(BusError) -> BusExport {
        var owned: [UnsafeMutablePointer<CChar>] = []
        defer { owned.forEach { free($0) } }
        func c(_ text: String) -> UnsafePointer<CChar> {
            let copy = strdup(text)!
            owned.append(copy)
            return UnsafePointer(copy)
        }
        let methodEntries = methods.map {
            bus_shim_method(member: c($0.member), signature: c($0.signature), in_names: c($0.parameterNames),
                            result: c($0.result), out_names: c($0.resultNames), flags: bus_shim_flag_unprivileged)
        }
        let signalEntries = signals.map {
            bus_shim_signal(member: c($0.member), signature: c($0.signature), names: c($0.parameterNames), flags: 0)
        }
        let vtable = bus_shim_vtable_new(methodEntries, methodEntries.count, signalEntries, signalEntries.count) {
            message, userdata, error in
            let export = Unmanaged<BusExport>.fromOpaque(userdata!).takeUnretainedValue()
            return export.dispatch(BusMessage(retaining: message!), error: error!)
        }
        guard let vtable else { throw BusError(call: "bus_shim_vtable_new", errno: ENOMEM) }
        let export = BusExport(vtable: vtable, handler: handler)
        var slot: OpaquePointer?
        try BusError.check(sd_bus_add_object_vtable(bus, &slot, path, interface, vtable,
                                                    Unmanaged.passUnretained(export).toOpaque()),
                           "sd_bus_add_object_vtable")
        export.slot = slot
        return export
    }

    // MARK: sending

    func signal(path: String, interface: String, member: String) throws(BusError) -> BusMessage {
        var message: OpaquePointer?
        try BusError.check(sd_bus_message_new_signal(bus, &message, path, interface, member), "sd_bus_message_new_signal")
        return BusMessage(adopting: message!)
    }

    func send(_ message: BusMessage) throws(BusError) {
        try BusError.check(sd_bus_send(bus, message.raw, nil), "sd_bus_send")
    }

    /// A method call that never starts a service by activation.
    /// `autoStart`: let the bus start the service by activation (notification
    /// servers are usually activated); blockerd itself never is.
    func methodCall(destination: String, path: String, interface: String,
                    member: String, autoStart: Bool = false) throws(BusCallError) -> BusMessage {
        var message: OpaquePointer?
        let r = sd_bus_message_new_method_call(bus, &message, destination, path, interface, member)
        guard r >= 0, let message else { throw .system(BusError(call: "sd_bus_message_new_method_call", errno: -r)) }
        sd_bus_message_set_auto_start(message, autoStart ? 1 : 0)
        return BusMessage(adopting: message)
    }

    /// Sends `message` and waits for its reply (dispatching nothing else meanwhile).
    func call(_ message: BusMessage, timeoutMicroseconds: UInt64) throws(BusCallError) -> BusMessage {
        var error = sd_bus_error()
        defer { sd_bus_error_free(&error) }
        var reply: OpaquePointer?
        let r = sd_bus_call(bus, message.raw, timeoutMicroseconds, &error, &reply)
        if r < 0 {
            if sd_bus_error_is_set(&error) != 0, let name = error.name {
                throw .reply(BusErrorReply(name: String(cString: name),
                                           message: error.message.map { String(cString: $0) } ?? "",
                                           errno: -r))
            }
            throw .system(BusError(call: "sd_bus_call", errno: -r))
        }
        return BusMessage(adopting: reply!)
    }

    /// Sends `message` and calls `completion` with its reply later, from the
    /// loop: the daemon's tick never waits on another program's bus service.
    func callAsync(_ message: BusMessage, timeoutMicroseconds: UInt64,
                   completion: @escaping (Result<BusMessage, BusErrorReply>) -> Void) throws(BusError) {
        let pending = PendingCall(completion: completion)
        var slot: OpaquePointer?
        try BusError.check(
            sd_bus_call_async(bus, &slot, message.raw, { reply, userdata, _ in
                let pending = Unmanaged<PendingCall>.fromOpaque(userdata!).takeRetainedValue()
                let reply = BusMessage(retaining: reply!)
                if let error = sd_bus_message_get_error(reply.raw), sd_bus_error_is_set(error) != 0 {
                    pending.completion(.failure(BusErrorReply(
                        name: error.pointee.name.map { String(cString: $0) } ?? "",
                        message: error.pointee.message.map { String(cString: $0) } ?? "")))
                } else {
                    pending.completion(.success(reply))
                }
                return 0
            }, Unmanaged.passRetained(pending).toOpaque(), timeoutMicroseconds),
            "sd_bus_call_async")
        // The slot is floating: sd-bus frees it after the reply (or timeout) is dispatched.
        sd_bus_slot_set_floating(slot, 1)
        sd_bus_slot_unref(slot)
    }

    // MARK: receiving

    /// Calls `handler` for each matching signal until the subscription is released.
    func matchSignal(sender: String?, path: String?, interface: String?, member: String?,
                     handler: @escaping (BusMessage) -> Void) throws(BusError) -> BusSubscription {
        let subscription = BusSubscription(handler: handler)
        var slot: OpaquePointer?
        try BusError.check(
            sd_bus_match_signal(bus, &slot, sender, path, interface, member, { message, userdata, _ in
                Unmanaged<BusSubscription>.fromOpaque(userdata!).takeUnretainedValue()
                    .handler(BusMessage(retaining: message!))
                return 0
            }, Unmanaged.passUnretained(subscription).toOpaque()),
            "sd_bus_match_signal")
        subscription.slot = slot
        return subscription
    }

    /// Calls `handler` on every NameOwnerChanged of `name` (its arg0).
    func watchOwner(of name: String, handler: @escaping (_ newOwner: String) -> Void) throws(BusError) -> BusSubscription {
        let rule = "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"
            + "interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(name)'"
        let subscription = BusSubscription { message in
            guard (try? message.readString()) != nil, (try? message.readString()) != nil,
                  let owner = try? message.readString() else { return }
            handler(owner)
        }
        var slot: OpaquePointer?
        try BusError.check(
            sd_bus_add_match(bus, &slot, rule, { message, userdata, _ in
                Unmanaged<BusSubscription>.fromOpaque(userdata!).takeUnretainedValue()
                    .handler(BusMessage(retaining: message!))
                return 0
            }, Unmanaged.passUnretained(subscription).toOpaque()),
            "sd_bus_add_match")
        subscription.slot = slot
        return subscription
    }

    // MARK: the loop

    /// Lets `event` (an sd_event loop) drive this connection.
    func attach(toEvent event: OpaquePointer) throws(BusError) {
        try BusError.check(sd_bus_attach_event(bus, event, 0), "sd_bus_attach_event")
    }

    /// For a poll(2) loop: the fd to watch.
    var fileDescriptor: Int32 { sd_bus_get_fd(bus) }

    /// For a poll(2) loop: POLLIN/POLLOUT to wait for.
    var pollEvents: Int16 { Int16(truncatingIfNeeded: max(sd_bus_get_events(bus), 0)) }

    /// For a poll(2) loop: CLOCK_MONOTONIC µs by which `process()` must run
    /// even without I/O, or nil for none.
    var deadline: UInt64? {
        var usec: UInt64 = 0
        guard sd_bus_get_timeout(bus, &usec) >= 0, usec != UInt64.max else { return nil }
        return usec
    }

    /// Dispatches everything that is queued or readable now.
    func processPending() throws(BusError) {
        while try BusError.check(sd_bus_process(bus, nil), "sd_bus_process") > 0 {}
    }

    /// Blocks until there is something to process or `microseconds` passed.
    func wait(microseconds: UInt64) throws(BusError) {
        try BusError.check(sd_bus_wait(bus, microseconds), "sd_bus_wait")
    }

    func flush() {
        sd_bus_flush(bus)
    }

    /// A one-shot timer on the sd_event loop this connection is attached to.
    func timer(_ handler: @escaping () -> Void) throws(BusError) -> BusTimer {
        guard let event = sd_bus_get_event(bus) else { throw BusError(call: "sd_bus_get_event", errno: ENXIO) }
        let timer = BusTimer(handler: handler)
        var source: OpaquePointer?
        try BusError.check(
            sd_event_add_time(event, &source, CLOCK_MONOTONIC, UInt64.max, 1000, { _, _, userdata in
                Unmanaged<BusTimer>.fromOpaque(userdata!).takeUnretainedValue().handler()
                return 0
            }, Unmanaged.passUnretained(timer).toOpaque()),
            "sd_event_add_time")
        timer.source = source
        sd_event_source_set_enabled(source, Int32(SD_EVENT_OFF))
        return timer
    }

    /// CLOCK_MONOTONIC now, in µs.
    static var monotonicMicroseconds: UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
    }
}

/// How a method call can fail.
enum BusCallError: Error {
    /// An error reply (from the peer, the bus daemon, or sd-bus itself for a timeout).
    case reply(BusErrorReply)
    /// A local failure before anything was sent or while reading the reply.
    case system(BusError)
}

/// An exported object; unexported when released.
final class BusExport {
    private let vtable: UnsafeMutablePointer<sd_bus_vtable>
    fileprivate var slot: OpaquePointer?
    private let handler: (BusMessage) -> Result<BusMessage, BusErrorReply>

    fileprivate init(vtable: UnsafeMutablePointer<sd_bus_vtable>,
                     handler: @escaping (BusMessage) -> Result<BusMessage, BusErrorReply>) {
        self.vtable = vtable
        self.handler = handler
    }

    deinit {
        // The slot first: sd-bus reads the vtable until it is gone.
        sd_bus_slot_unref(slot)
        bus_shim_vtable_free(vtable)
    }

    /// Returns what sd-bus expects of a method handler: 1 when the reply was
    /// sent, or a negative errno with `error` set, which sd-bus sends as the reply.
    fileprivate func dispatch(_ call: BusMessage, error: UnsafeMutablePointer<sd_bus_error>) -> Int32 {
        switch handler(call) {
        case let .success(reply):
            let r = sd_bus_send(nil, reply.raw, nil)
            return r < 0 ? r : 1
        case let .failure(failure):
            return sd_bus_error_set(error, failure.name, failure.message)
        }
    }
}

/// A signal match; removed when released.
/// A call in flight; retained until its reply arrives.
private final class PendingCall {
    let completion: (Result<BusMessage, BusErrorReply>) -> Void
    init(completion: @escaping (Result<BusMessage, BusErrorReply>) -> Void) { self.completion = completion }
}

final class BusSubscription {
    fileprivate var slot: OpaquePointer?
    fileprivate let handler: (BusMessage) -> Void

    fileprivate init(handler: @escaping (BusMessage) -> Void) {
        self.handler = handler
    }

    deinit {
        sd_bus_slot_unref(slot)
    }
}

/// A one-shot CLOCK_MONOTONIC timer; re-arm it to fire again.
final class BusTimer {
    fileprivate var source: OpaquePointer?
    fileprivate let handler: () -> Void

    fileprivate init(handler: @escaping () -> Void) {
        self.handler = handler
    }

    deinit {
        if let source { sd_event_source_disable_unref(source) }
    }

    /// Fires once at CLOCK_MONOTONIC `usec`.
    func arm(atMicroseconds usec: UInt64) {
        sd_event_source_set_time(source, usec)
        sd_event_source_set_enabled(source, Int32(SD_EVENT_ONESHOT))
    }

    var isArmed: Bool {
        var enabled: Int32 = 0
        sd_event_source_get_enabled(source, &enabled)
        return enabled != Int32(SD_EVENT_OFF)
    }
}

/// One D-Bus message: a call, a reply or a signal. Values are appended and
/// read in signature order.
final class BusMessage {
    fileprivate let raw: OpaquePointer

    /// Takes over a reference the caller owns.
    fileprivate init(adopting raw: OpaquePointer) {
        self.raw = raw
    }

    /// Adds a reference of its own (for messages sd-bus lends to a callback).
    fileprivate convenience init(retaining raw: OpaquePointer) {
        sd_bus_message_ref(raw)
        self.init(adopting: raw)
    }

    deinit {
        sd_bus_message_unref(raw)
    }

    var member: String? { sd_bus_message_get_member(raw).map { String(cString: $0) } }
    var sender: String? { sd_bus_message_get_sender(raw).map { String(cString: $0) } }

    /// The reply to this method call, to append the results to.
    func makeReply() throws(BusError) -> BusMessage {
        var reply: OpaquePointer?
        try BusError.check(sd_bus_message_new_method_return(raw, &reply), "sd_bus_message_new_method_return")
        return BusMessage(adopting: reply!)
    }

    // MARK: appending

    private static func code(_ type: String) -> CChar { CChar(bitPattern: type.utf8.first!) }

    func append(_ value: String) throws(BusError) {
        try BusError.check(value.withCString { sd_bus_message_append_basic(raw, Self.code("s"), $0) },
                           "sd_bus_message_append_basic(s)")
    }

    func append(_ value: Bool) throws(BusError) {
        try appendBasic("b", Int32(value ? 1 : 0))   // D-Bus booleans are 32 bits wide
    }

    func append(_ value: Int32) throws(BusError) { try appendBasic("i", value) }
    func append(_ value: UInt32) throws(BusError) { try appendBasic("u", value) }
    func append(_ value: Int64) throws(BusError) { try appendBasic("x", value) }
    func append(_ value: UInt64) throws(BusError) { try appendBasic("t", value) }

    private func appendBasic<T>(_ type: String, _ value: T) throws(BusError) {
        var copy = value
        try BusError.check(withUnsafePointer(to: &copy) { sd_bus_message_append_basic(raw, Self.code(type), $0) },
                           "sd_bus_message_append_basic(\(type))")
    }

    func append(_ value: [String]) throws(BusError) {
        try appendArray(value, of: "s") { (item: String) throws(BusError) in try append(item) }
    }

    func append(_ value: BusValue) throws(BusError) {
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
        }
    }

    /// `a{sv}`, keys sorted so the same dictionary is always the same bytes.
    func append(_ dictionary: [String: BusValue]) throws(BusError) {
        try appendArray(dictionary.sorted { $0.key < $1.key }, of: "{sv}") { (entry: (key: String, value: BusValue)) throws(BusError) in
            try container("e", "sv") { () throws(BusError) in
                try append(entry.key)
                try container("v", entry.value.signature) { () throws(BusError) in try append(entry.value) }
            }
        }
    }

    /// An array of `element`s, each appended by `body`.
    func appendArray<T>(_ items: [T], of element: String, _ body: (T) throws(BusError) -> Void) throws(BusError) {
        try container("a", element) { () throws(BusError) in
            for item in items { try body(item) }
        }
    }

    /// A struct `(contents)` whose fields `body` appends.
    func appendStruct(_ contents: String, _ body: () throws(BusError) -> Void) throws(BusError) {
        try container("r", contents, body)
    }

    private func container(_ type: String, _ contents: String, _ body: () throws(BusError) -> Void) throws(BusError) {
        try BusError.check(sd_bus_message_open_container(raw, Self.code(type), contents), "sd_bus_message_open_container")
        try body()
        try BusError.check(sd_bus_message_close_container(raw), "sd_bus_message_close_container")
    }

    // MARK: reading

    func readString() throws(BusError) -> String {
        var value: UnsafePointer<CChar>?
        try readBasic("s", &value)
        return String(cString: value!)
    }

    func readBool() throws(BusError) -> Bool {
        var value: Int32 = 0
        try readBasic("b", &value)
        return value != 0
    }

    func readInt32() throws(BusError) -> Int32 { var v: Int32 = 0; try readBasic("i", &v); return v }
    func readUInt32() throws(BusError) -> UInt32 { var v: UInt32 = 0; try readBasic("u", &v); return v }
    func readInt64() throws(BusError) -> Int64 { var v: Int64 = 0; try readBasic("x", &v); return v }
    func readUInt64() throws(BusError) -> UInt64 { var v: UInt64 = 0; try readBasic("t", &v); return v }

    private func readBasic<T>(_ type: String, _ value: inout T) throws(BusError) {
        let r = try BusError.check(withUnsafeMutablePointer(to: &value) { sd_bus_message_read_basic(raw, Self.code(type), $0) },
                                   "sd_bus_message_read_basic(\(type))")
        // 0: the message (or container) has no more values.
        if r == 0 { throw BusError(call: "sd_bus_message_read_basic(\(type))", errno: EBADMSG) }
    }

    func readStrings() throws(BusError) -> [String] {
        try readArray(of: "s") { () throws(BusError) in try readString() }
    }

    /// An array of `element`s, each read by `body`.
    func readArray<T>(of element: String, _ body: () throws(BusError) -> T) throws(BusError) -> [T] {
        try enter("a", element)
        var items: [T] = []
        while sd_bus_message_at_end(raw, 0) == 0 { items.append(try body()) }
        try exit()
        return items
    }

    /// A struct `(contents)` whose fields `body` reads.
    func readStruct<T>(_ contents: String, _ body: () throws(BusError) -> T) throws(BusError) -> T {
        try enter("r", contents)
        let value = try body()
        try exit()
        return value
    }

    /// `a{sv}`; values of types `BusValue` does not know are skipped.
    func readDictionary() throws(BusError) -> [String: BusValue] {
        var result: [String: BusValue] = [:]
        try enter("a", "{sv}")
        while sd_bus_message_at_end(raw, 0) == 0 {
            try enter("e", "sv")
            let key = try readString()
            var type: CChar = 0
            var contents: UnsafePointer<CChar>?
            try BusError.check(sd_bus_message_peek_type(raw, &type, &contents), "sd_bus_message_peek_type")
            let signature = contents.map { String(cString: $0) } ?? ""
            try enter("v", signature)
            if let value = try readValue(signature: signature) { result[key] = value }
            try exit()
            try exit()
        }
        try exit()
        return result
    }

    private func readValue(signature: String) throws(BusError) -> BusValue? {
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
        default:
            try BusError.check(sd_bus_message_skip(raw, signature), "sd_bus_message_skip")
            return nil
        }
    }

    private func enter(_ type: String, _ contents: String) throws(BusError) {
        let r = try BusError.check(sd_bus_message_enter_container(raw, Self.code(type), contents),
                                   "sd_bus_message_enter_container(\(type)\(contents))")
        if r == 0 { throw BusError(call: "sd_bus_message_enter_container(\(type)\(contents))", errno: EBADMSG) }
    }

    private func exit() throws(BusError) {
        try BusError.check(sd_bus_message_exit_container(raw), "sd_bus_message_exit_container")
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
