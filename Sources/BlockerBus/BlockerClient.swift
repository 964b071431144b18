import BlockerCore
import BlockerSystemd
import Glibc

/// blockerd over the session bus, for `blockerctl` and the overlay.
///
/// Calls block until the reply (at most `callTimeoutMicroseconds`). Signals
/// arrive through the `on…` subscriptions while the connection is processed:
/// either attached to an sd_event loop, or from a poll(2) loop that watches
/// `fileDescriptor` for `pollEvents` and calls `dispatchPending()`.
/// One thread: a client is not Sendable.
public final class BlockerClient: BlockerService {
    private let connection: BusConnection
    /// How long a call may take before it fails with `.transport`.
    public var callTimeoutMicroseconds: UInt64 = 5_000_000

    /// What every "not running" failure says: the fix included.
    public static let notRunningMessage = "blockerd is not running — start it with: systemctl --user start blockerd"

    private init(connection: BusConnection) {
        self.connection = connection
    }

    /// Connects to the session bus of `environment` (`DBUS_SESSION_BUS_ADDRESS`,
    /// else `$XDG_RUNTIME_DIR/bus`). Succeeds while blockerd is down: calls
    /// then fail with `.notRunning`, and `onDaemonRunningChanged` reports its start.
    public static func connect(environment: [String: String]) throws(BusFailure) -> BlockerClient {
        guard let address = BusAddress.session(environment: environment) else {
            throw .notRunning("no session bus here (DBUS_SESSION_BUS_ADDRESS is not set and $XDG_RUNTIME_DIR/bus "
                + "does not exist), so blockerd cannot be reached; run this inside your desktop session, "
                + "or start it with: systemctl --user start blockerd")
        }
        do {
            return BlockerClient(connection: try BusConnection(address: address))
        } catch {
            throw .notRunning("cannot connect to the session bus at \(address) "
                + "(\(String(cString: strerror(error.errno)))), so blockerd cannot be reached; "
                + "start it with: systemctl --user start blockerd")
        }
    }

    // MARK: BlockerService

    public func status() throws(BusFailure) -> StatusReport {
        let reply = try call("Status") { _ throws(SystemdError) in }
        let entries = try decode("Status") { () throws(SystemdError) in try reply.readDictionary() }
        guard let report = StatusReport(busDictionary: entries) else {
            throw .transport("blockerd sent a Status reply this program does not understand "
                + "(keys: \(entries.keys.sorted().joined(separator: ", "))); are both from the same blocker version?")
        }
        return report
    }

    public func earn(exercise: String, reps: UInt32) throws(BusFailure) -> (earnedMs: Int64, balanceMs: Int64) {
        let reply = try call("Earn") { (message: BusMessage) throws(SystemdError) in
            try message.append(exercise)
            try message.append(reps)
        }
        return try decode("Earn") { () throws(SystemdError) in (try reply.readInt64(), try reply.readInt64()) }
    }

    public func blockFor(target: String, seconds: UInt64) throws(BusFailure) -> Int64 {
        let reply = try call("BlockFor") { (message: BusMessage) throws(SystemdError) in
            try message.append(target)
            try message.append(seconds)
        }
        return try decode("BlockFor") { () throws(SystemdError) in try reply.readInt64() }
    }

    public func unblock(target: String) throws(BusFailure) {
        _ = try call("Unblock") { (message: BusMessage) throws(SystemdError) in try message.append(target) }
    }

    public func history(days: UInt32) throws(BusFailure) -> [HistoryRow] {
        let reply = try call("History") { (message: BusMessage) throws(SystemdError) in try message.append(days) }
        return try decode("History") { () throws(SystemdError) in
            try reply.readArray(of: "(ssxx)") { () throws(SystemdError) in
                try reply.readStruct("ssxx") { () throws(SystemdError) in
                    HistoryRow(day: try reply.readString(), group: try reply.readString(),
                               usedMs: try reply.readInt64(), earnedMs: try reply.readInt64())
                }
            }
        }
    }

    public func reload() throws(BusFailure) {
        _ = try call("Reload") { _ throws(SystemdError) in }
    }

    // MARK: the daemon itself

    /// Whether blockerd owns its name on the bus now.
    public func isDaemonRunning() throws(BusFailure) -> Bool {
        do { return try connection.hasOwner(BusNames.service) } catch { throw Self.failure(error, member: "NameHasOwner") }
    }

    /// blockerd's pid as the bus daemon reports it, nil when it is not running.
    public func daemonPID() -> Int32? {
        connection.ownerPID(of: BusNames.service)
    }

    // MARK: signals

    /// `ShieldChanged`, on every change of the shield.
    public func onShieldChanged(_ handler: @escaping (ShieldChange) -> Void) throws(BusFailure) -> BlockerSubscription {
        try subscribe("ShieldChanged") { message in
            guard let change = try? ShieldChange(active: message.readBool(), app: message.readString(),
                                                 reason: message.readString(), balanceMs: message.readInt64(),
                                                 untilMs: message.readInt64()) else { return }
            handler(change)
        }
    }

    /// `BalanceChanged(x balance_ms)`, at most once a second.
    public func onBalanceChanged(_ handler: @escaping (Int64) -> Void) throws(BusFailure) -> BlockerSubscription {
        try subscribe("BalanceChanged") { message in
            if let balance = try? message.readInt64() { handler(balance) }
        }
    }

    /// `Warning(x remaining_ms)`, when a `[warn] before` threshold is crossed.
    public func onWarning(_ handler: @escaping (Int64) -> Void) throws(BusFailure) -> BlockerSubscription {
        try subscribe("Warning") { message in
            if let remaining = try? message.readInt64() { handler(remaining) }
        }
    }

    /// Called with true when blockerd takes its name (a start or restart) and
    /// false when it loses it (a stop or crash).
    public func onDaemonRunningChanged(_ handler: @escaping (Bool) -> Void) throws(BusFailure) -> BlockerSubscription {
        do {
            return BlockerSubscription(try connection.watchOwner(of: BusNames.service) { handler(!$0.isEmpty) })
        } catch {
            throw .transport("cannot watch blockerd on the session bus: \(error)")
        }
    }

    private func subscribe(_ member: String, _ handler: @escaping (BusMessage) -> Void) throws(BusFailure)
        -> BlockerSubscription {
        do {
            return BlockerSubscription(try connection.matchSignal(
                sender: BusNames.service, path: BusNames.objectPath, interface: BusNames.interface,
                member: member, handler: handler))
        } catch {
            throw .transport("cannot subscribe to blockerd's \(member) signal: \(error)")
        }
    }

    // MARK: the loop

    /// For a poll(2) loop: the connection's fd.
    public var fileDescriptor: Int32 { connection.fileDescriptor }

    /// For a poll(2) loop: the events (POLLIN/POLLOUT) to wait for on `fileDescriptor`.
    public var pollEvents: Int16 { connection.pollEvents }

    /// For a poll(2) loop: the CLOCK_MONOTONIC µs by which to call
    /// `dispatchPending()` even without I/O, or nil for none.
    public var deadlineMicroseconds: UInt64? { connection.deadline }

    /// Runs the handlers of everything received so far; call it when
    /// `fileDescriptor` is ready or `deadlineMicroseconds` passed.
    public func dispatchPending() throws(BusFailure) {
        do { try connection.processPending() } catch {
            throw .transport("lost the session bus connection: \(String(cString: strerror(error.errno)))")
        }
    }

    /// Waits up to `microseconds` for bus traffic, then dispatches it.
    public func waitAndDispatch(microseconds: UInt64) throws(BusFailure) {
        try dispatchPending()
        do { try connection.wait(microseconds: microseconds) } catch {
            throw .transport("lost the session bus connection: \(String(cString: strerror(error.errno)))")
        }
        try dispatchPending()
    }

    /// Lets an sd_event loop dispatch the connection (signals arrive by themselves).
    public func attach(to loop: EventLoop) throws(SystemdError) {
        try connection.attach(to: loop)
    }

    // MARK: plumbing

    private func call(_ member: String, _ fill: (BusMessage) throws(SystemdError) -> Void) throws(BusFailure) -> BusMessage {
        do throws(BusCallError) {
            let message = try connection.methodCall(destination: BusNames.service, path: BusNames.objectPath,
                                                    interface: BusNames.interface, member: member)
            do throws(SystemdError) { try fill(message) } catch { throw BusCallError.system(error) }
            return try connection.call(message, timeoutMicroseconds: callTimeoutMicroseconds)
        } catch {
            throw Self.failure(error, member: member, timeout: callTimeoutMicroseconds)
        }
    }

    private func decode<T>(_ member: String, _ body: () throws(SystemdError) -> T) throws(BusFailure) -> T {
        do { return try body() } catch {
            throw .transport("blockerd's reply to \(member) did not read as expected (\(error)); "
                + "are blockerd and this program from the same blocker version?")
        }
    }

    /// How a failed call reads to a person.
    static func failure(_ error: BusCallError, member: String, timeout: UInt64 = 5_000_000) -> BusFailure {
        switch error {
        case let .reply(reply):
            switch reply.name {
            case "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner":
                return .notRunning(notRunningMessage)
            case "org.freedesktop.DBus.Error.NoReply", "org.freedesktop.DBus.Error.Timeout":
                if reply.errno == ETIMEDOUT || reply.name.hasSuffix(".Timeout") {
                    return .transport("blockerd did not answer \(member) within \(timeout / 1_000_000) s; "
                        + "see what it is doing: journalctl --user -u blockerd")
                }
                return .transport("blockerd stopped before answering \(member) (\(reply.message)); "
                    + "see why: journalctl --user -u blockerd")
            case "org.freedesktop.DBus.Error.Disconnected":
                return .transport("lost the session bus connection during \(member): \(reply.message)")
            case let name where name.hasPrefix("System.Error."):
                // sd-bus names a local errno this way: nothing blockerd said.
                return .transport("cannot call blockerd's \(member): \(reply.message)")
            default:
                return .refused(name: reply.name, message: reply.message)
            }
        case let .system(error):
            return .transport("cannot call blockerd's \(member): \(error)")
        }
    }
}

/// A signal subscription; it ends when released or cancelled.
public final class BlockerSubscription {
    private var inner: BusSubscription?

    fileprivate init(_ inner: BusSubscription) {
        self.inner = inner
    }

    public func cancel() {
        inner = nil
    }
}
