import BlockerSystem
import CSystemd
import Glibc

/// One client connection to a message bus (`sd_bus`), closed when released.
///
/// It is processed either by an `EventLoop` it is attached to, or by whoever
/// owns it calling `processPending()` (a poll(2) loop, or a reader that
/// catches up before it answers). One thread: not Sendable.
public final class BusConnection {
    /// Internal: the other wrappers in this module hand it to sd-bus.
    let bus: OpaquePointer

    /// Connects to `address` (see `BusAddress`) as a bus client; sd-bus sends Hello.
    public init(address: String) throws(SystemdError) {
        var created: OpaquePointer?
        try SystemdError.check(sd_bus_new(&created), "sd_bus_new")
        // Set up before `self.bus` is assigned: once it is, a throw would run
        // deinit, and the bus must be released exactly once.
        let bus = created!
        do throws(SystemdError) {
            try SystemdError.check(sd_bus_set_address(bus, address), "sd_bus_set_address")
            try SystemdError.check(sd_bus_set_bus_client(bus, 1), "sd_bus_set_bus_client")
            // Not trusted: sd-bus would otherwise skip its own checks. Blocker's
            // methods are marked unprivileged and check the caller's uid themselves.
            try SystemdError.check(sd_bus_set_trusted(bus, 0), "sd_bus_set_trusted")
            try SystemdError.check(sd_bus_start(bus), "sd_bus_start")
        } catch {
            sd_bus_unref(bus)
            throw error
        }
        self.bus = bus
    }

    deinit {
        sd_bus_flush_close_unref(bus)
    }

    /// This connection's unique name (":1.42").
    public var uniqueName: String? {
        var name: UnsafePointer<CChar>?
        guard sd_bus_get_unique_name(bus, &name) >= 0, let name else { return nil }
        return String(cString: name)
    }

    /// False once the bus daemon went away or the connection failed; it never reopens.
    public var isOpen: Bool { sd_bus_is_open(bus) > 0 }

    // MARK: names and credentials

    /// Takes `name` without queueing: EEXIST when someone else owns it.
    public func requestName(_ name: String) throws(SystemdError) {
        try SystemdError.check(sd_bus_request_name(bus, name, 0), "sd_bus_request_name")
    }

    /// Gives `name` up and waits for the bus daemon's answer: once this
    /// returns, another connection can take it (closing the connection frees
    /// it too, but the bus daemon may read a new owner's request first).
    public func releaseName(_ name: String) throws(SystemdError) {
        try SystemdError.check(sd_bus_release_name(bus, name), "sd_bus_release_name")
    }

    /// The pid of the process owning `name`, as the bus daemon reports it.
    public func ownerPID(of name: String) -> Int32? {
        var creds: OpaquePointer?
        // The corresponding C constant is SD_BUS_CREDS_PID.
        guard sd_bus_get_name_creds(bus, name, 1 << 0, &creds) >= 0, let creds else { return nil }
        defer { sd_bus_creds_unref(creds) }
        var pid: pid_t = 0
        return sd_bus_creds_get_pid(creds, &pid) >= 0 ? pid : nil
    }

    /// Whether anybody owns `name` now.
    public func hasOwner(_ name: String) throws(BusCallError) -> Bool {
        let query = try methodCall(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                   interface: "org.freedesktop.DBus", member: "NameHasOwner")
        do throws(SystemdError) { try query.append(name) } catch { throw .system(error) }
        let reply = try call(query, timeoutMicroseconds: 5_000_000)
        do throws(SystemdError) { return try reply.readBool() } catch { throw .system(error) }
    }

    /// Who owns `name` now (GetNameOwner, then GetConnectionCredentials); nil when nobody does.
    public func owner(of name: String) throws(BusCallError) -> BusPeer? {
        let unique: String
        do throws(BusCallError) {
            let reply = try busDaemonCall("GetNameOwner", name)
            do throws(SystemdError) { unique = try reply.readString() } catch { throw .system(error) }
        } catch let .reply(reply) where reply.name == Self.nameHasNoOwner {
            return nil
        }
        let credentials: [String: BusValue]
        do throws(BusCallError) {
            let reply = try busDaemonCall("GetConnectionCredentials", unique)
            do throws(SystemdError) { credentials = try reply.readDictionary() } catch { throw .system(error) }
        } catch let .reply(reply) where reply.name == Self.nameHasNoOwner {
            return nil      // it left between the two questions
        }
        guard case let .uint32(uid)? = credentials["UnixUserID"] else {
            throw .system(SystemdError(call: "GetConnectionCredentials(\(unique)) without UnixUserID", errno: .protocolError))
        }
        var pid: Int32?
        if case let .uint32(value)? = credentials["ProcessID"] { pid = Int32(bitPattern: value) }
        return BusPeer(uniqueName: unique, uid: uid, pid: pid)
    }

    private static let nameHasNoOwner = "org.freedesktop.DBus.Error.NameHasNoOwner"

    private func busDaemonCall(_ member: String, _ argument: String) throws(BusCallError) -> BusMessage {
        let query = try methodCall(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                   interface: "org.freedesktop.DBus", member: member)
        do throws(SystemdError) { try query.append(argument) } catch { throw .system(error) }
        return try call(query, timeoutMicroseconds: 5_000_000)
    }

    /// The effective uid of the connection that sent `message`, asked of the
    /// bus daemon (which took it from SO_PEERCRED when the peer connected).
    public func senderUID(of message: BusMessage) throws(SystemdError) -> uid_t {
        var creds: OpaquePointer?
        // The corresponding C constants are SD_BUS_CREDS_UID | SD_BUS_CREDS_EUID | SD_BUS_CREDS_AUGMENT.
        let mask: UInt64 = (1 << 3) | (1 << 4) | (1 << 63)
        try SystemdError.check(sd_bus_query_sender_creds(message.raw, mask, &creds), "sd_bus_query_sender_creds")
        defer { sd_bus_creds_unref(creds) }
        var uid: uid_t = 0
        if sd_bus_creds_get_euid(creds, &uid) >= 0 { return uid }
        try SystemdError.check(sd_bus_creds_get_uid(creds, &uid), "sd_bus_creds_get_uid")
        return uid
    }

    // MARK: sending

    /// A signal to fill and `send`.
    public func signal(path: String, interface: String, member: String) throws(SystemdError) -> BusMessage {
        var message: OpaquePointer?
        try SystemdError.check(sd_bus_message_new_signal(bus, &message, path, interface, member),
                               "sd_bus_message_new_signal")
        return BusMessage(adopting: message!)
    }

    /// Queues `message`; it goes out as the connection is processed or flushed.
    public func send(_ message: BusMessage) throws(SystemdError) {
        try SystemdError.check(sd_bus_send(bus, message.raw, nil), "sd_bus_send")
    }

    /// A method call to fill and `call`. `autoStart`: let the bus start the
    /// service by activation (notification servers are usually activated;
    /// blockerd itself never is).
    public func methodCall(destination: String, path: String, interface: String,
                           member: String, autoStart: Bool = false) throws(BusCallError) -> BusMessage {
        var message: OpaquePointer?
        let r = sd_bus_message_new_method_call(bus, &message, destination, path, interface, member)
        guard r >= 0, let message else { throw .system(SystemdError(call: "sd_bus_message_new_method_call", returned: r)) }
        sd_bus_message_set_auto_start(message, autoStart ? 1 : 0)
        return BusMessage(adopting: message)
    }

    /// Sends `message` and waits for its reply. Other messages that arrive
    /// meanwhile are queued for the next `processPending()`.
    public func call(_ message: BusMessage, timeoutMicroseconds: UInt64) throws(BusCallError) -> BusMessage {
        var error = sd_bus_error()
        defer { sd_bus_error_free(&error) }
        var reply: OpaquePointer?
        let r = sd_bus_call(bus, message.raw, timeoutMicroseconds, &error, &reply)
        if r < 0 {
            if sd_bus_error_is_set(&error) != 0, let name = error.name {
                throw .reply(BusErrorReply(name: String(cString: name),
                                           message: error.message.map { String(cString: $0) } ?? "",
                                           errno: Errno(rawValue: -r)))
            }
            throw .system(SystemdError(call: "sd_bus_call", returned: r))
        }
        return BusMessage(adopting: reply!)
    }

    /// Sends `message` and calls `completion` with its reply later, as the
    /// connection is processed: a loop never waits on another program's bus service.
    public func callAsync(_ message: BusMessage, timeoutMicroseconds: UInt64,
                          completion: @escaping (Result<BusMessage, BusErrorReply>) -> Void) throws(SystemdError) {
        let pending = PendingCall(completion: completion)
        var slot: OpaquePointer?
        let r = sd_bus_call_async(bus, &slot, message.raw, { reply, userdata, _ in
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
        }, Unmanaged.passRetained(pending).toOpaque(), timeoutMicroseconds)
        if r < 0 {
            // Never registered: the reference passed along above comes back here.
            Unmanaged.passUnretained(pending).release()
            throw SystemdError(call: "sd_bus_call_async", returned: r)
        }
        // The slot is floating: sd-bus frees it after the reply (or timeout) is dispatched.
        sd_bus_slot_set_floating(slot, 1)
        sd_bus_slot_unref(slot)
    }

    // MARK: processing

    /// Lets `loop` process this connection from now on (sd_bus_attach_event).
    public func attach(to loop: EventLoop) throws(SystemdError) {
        // 0: the corresponding C constant is SD_EVENT_PRIORITY_NORMAL.
        try SystemdError.check(sd_bus_attach_event(bus, loop.event, 0), "sd_bus_attach_event")
    }

    /// Dispatches everything that is queued or readable now, without waiting.
    /// Not from inside one of this connection's own callbacks (sd-bus refuses).
    public func processPending() throws(SystemdError) {
        while try SystemdError.check(sd_bus_process(bus, nil), "sd_bus_process") > 0 {}
    }

    /// Blocks until there is something to process or `microseconds` passed.
    public func wait(microseconds: UInt64) throws(SystemdError) {
        try SystemdError.check(sd_bus_wait(bus, microseconds), "sd_bus_wait")
    }

    /// Writes out everything queued, blocking until it is sent.
    public func flush() {
        sd_bus_flush(bus)
    }

    /// For a poll(2) loop: the fd to watch.
    public var fileDescriptor: Int32 { sd_bus_get_fd(bus) }

    /// For a poll(2) loop: POLLIN/POLLOUT to wait for.
    public var pollEvents: Int16 { Int16(truncatingIfNeeded: max(sd_bus_get_events(bus), 0)) }

    /// For a poll(2) loop: CLOCK_MONOTONIC µs by which `processPending()` must
    /// run even without I/O, or nil for none.
    public var deadline: UInt64? {
        var usec: UInt64 = 0
        guard sd_bus_get_timeout(bus, &usec) >= 0, usec != UInt64.max else { return nil }
        return usec
    }
}

/// A connection on a bus as the bus daemon describes it.
public struct BusPeer: Equatable, Sendable {
    /// ":1.42".
    public var uniqueName: String
    /// The uid it connected as (SO_PEERCRED).
    public var uid: UInt32
    public var pid: Int32?

    public init(uniqueName: String, uid: UInt32, pid: Int32?) {
        self.uniqueName = uniqueName; self.uid = uid; self.pid = pid
    }
}

/// A call in flight; retained until its reply arrives.
private final class PendingCall {
    let completion: (Result<BusMessage, BusErrorReply>) -> Void
    init(completion: @escaping (Result<BusMessage, BusErrorReply>) -> Void) { self.completion = completion }
}
