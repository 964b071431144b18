import BlockerCore
import BlockerSystem
import BlockerSystemd
import Glibc

/// blockerd over the session bus, for `blockerctl` and the overlay.
///
/// Calls block until the reply (at most `callTimeoutMicroseconds`), except
/// `statusAsync`. Signals arrive through the `on…` subscriptions while the
/// connection is processed: either attached to an sd_event loop, or from a
/// poll(2) loop that watches `fileDescriptor` for `pollEvents` and calls
/// `dispatchPending()`. One thread: a client is not Sendable.
///
/// Only a name owner running as this process's uid is blockerd: calls go to
/// that owner's unique name once the bus daemon said who it runs as, and
/// signals from any other sender are dropped.
public final class BlockerClient {
    private let connection: BusConnection
    /// How long a call may take before it fails with `.transport`.
    public var callTimeoutMicroseconds: UInt64 = 5_000_000
    /// The unique name of the owner checked to run as our uid; unique names are never reused.
    private var trustedOwner: String?
    /// Senders found to be someone else's, so their signals are dropped without asking again.
    private var untrustedSenders: Set<String> = []
    private let ownUID = geteuid()

    /// How to start blockerd: part of every "not running" failure.
    public static var startFix: String { tr("start it with: systemctl --user start blockerd") }

    /// What every "not running" failure says: the fix included.
    public static var notRunningMessage: String { tr("blockerd is not running — {fix}", ["fix": startFix]) }

    private init(connection: BusConnection) {
        self.connection = connection
    }

    /// Connects to the session bus of `environment` (`DBUS_SESSION_BUS_ADDRESS`,
    /// else `$XDG_RUNTIME_DIR/bus`). Succeeds while blockerd is down: calls
    /// then fail with `.notRunning`, and `onDaemonRunningChanged` reports its start.
    public static func connect(environment: [String: String]) throws(BusFailure) -> BlockerClient {
        guard let address = BusAddress.session(environment: environment) else {
            throw .notRunning(tr("no session bus here (DBUS_SESSION_BUS_ADDRESS is not set and $XDG_RUNTIME_DIR/bus does not exist), so blockerd cannot be reached; run this inside your desktop session, or {fix}", ["fix": startFix]))
        }
        do {
            return BlockerClient(connection: try BusConnection(address: address))
        } catch {
            throw .notRunning(tr("cannot connect to the session bus at {address} ({why}), so blockerd cannot be reached; {fix}",
                                 ["address": "\(address)", "why": "\(error.errno)", "fix": startFix]))
        }
    }

    // MARK: calls

    /// Calls `method` of blockerd and waits for its reply.
    public func call<Arguments, Reply>(_ method: BlockerMethod<Arguments, Reply>, _ arguments: Arguments)
        throws(BusFailure) -> Reply {
        let reply: BusMessage
        do {
            reply = try send(method, arguments, to: try verifiedOwner())
        } catch let failure where failure == .notRunning(Self.notRunningMessage) && trustedOwner != nil {
            // The owner checked before is gone (a restart): check the new one, once.
            trustedOwner = nil
            reply = try send(method, arguments, to: try verifiedOwner())
        }
        return try decode(method, reply)
    }

    /// `Status()` without waiting: `completion` runs as the connection is
    /// processed. Asking the bus daemon who owns the name may wait, blockerd never.
    public func statusAsync(_ completion: @escaping (Result<StatusReport, BusFailure>) -> Void) {
        callAsync(BlockerInterface.status, (), completion)
    }

    /// Calls `method` without waiting for blockerd; `completion` gets the reply on the loop.
    public func callAsync<Arguments, Reply>(_ method: BlockerMethod<Arguments, Reply>, _ arguments: Arguments,
                                            _ completion: @escaping (Result<Reply, BusFailure>) -> Void) {
        let timeout = callTimeoutMicroseconds
        do throws(BusFailure) {
            let message = try message(method, arguments, to: try verifiedOwner())
            do {
                try connection.callAsync(message, timeoutMicroseconds: timeout) { [weak self] result in
                    switch result {
                    case let .success(reply):
                        guard let self else { return }
                        do throws(BusFailure) { completion(.success(try self.decode(method, reply))) } catch {
                            completion(.failure(error))
                        }
                    case let .failure(reply):
                        if Self.failure(.reply(reply), member: method.member) == .notRunning(Self.notRunningMessage) {
                            self?.trustedOwner = nil
                        }
                        completion(.failure(Self.failure(.reply(reply), member: method.member, timeout: timeout)))
                    }
                }
            } catch {
                throw Self.failure(.system(error), member: method.member)
            }
        } catch {
            completion(.failure(error))
        }
    }

    /// The unique name of the name's owner, once the bus daemon said it runs
    /// as our uid; another user's process is refused, named.
    private func verifiedOwner() throws(BusFailure) -> String {
        if let trustedOwner { return trustedOwner }
        let owner: BusPeer?
        do { owner = try connection.owner(of: BusNames.service) } catch {
            throw Self.failure(error, member: "GetNameOwner")
        }
        guard let owner else { throw .notRunning(Self.notRunningMessage) }
        guard owner.uid == ownUID else {
            untrustedSenders.insert(owner.uniqueName)
            let pid = owner.pid.map(String.init) ?? "unknown"
            throw .untrustedOwner("\(BusNames.service) on this session bus belongs to pid \(pid) running as uid "
                + "\(owner.uid), not to your blockerd (you are uid \(ownUID)); refusing to talk to it — "
                + "find out what it is: ps -p \(pid)")
        }
        trustedOwner = owner.uniqueName
        return owner.uniqueName
    }

    private func message<Arguments, Reply>(_ method: BlockerMethod<Arguments, Reply>, _ arguments: Arguments,
                                           to destination: String) throws(BusFailure) -> BusMessage {
        do throws(BusCallError) {
            let message = try connection.methodCall(destination: destination, path: BusNames.objectPath,
                                                    interface: BusNames.interface, member: method.member)
            do throws(SystemdError) { try method.writeArguments(arguments, message) } catch {
                throw BusCallError.system(error)
            }
            return message
        } catch {
            throw Self.failure(error, member: method.member)
        }
    }

    private func send<Arguments, Reply>(_ method: BlockerMethod<Arguments, Reply>, _ arguments: Arguments,
                                        to destination: String) throws(BusFailure) -> BusMessage {
        let message = try message(method, arguments, to: destination)
        do { return try connection.call(message, timeoutMicroseconds: callTimeoutMicroseconds) } catch {
            throw Self.failure(error, member: method.member, timeout: callTimeoutMicroseconds)
        }
    }

    private func decode<Arguments, Reply>(_ method: BlockerMethod<Arguments, Reply>, _ reply: BusMessage)
        throws(BusFailure) -> Reply {
        do { return try method.readReply(reply) } catch {
            throw .transport("blockerd's reply to \(method.member) did not read as expected (\(error)); "
                + "are blockerd and this program from the same blocker version?")
        }
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
    public func onShieldChanged(_ handler: @escaping (ShieldState) -> Void) throws(BusFailure) -> BlockerSubscription {
        try subscribe(BlockerInterface.shieldChanged, handler)
    }

    /// `BalanceChanged(x balance_ms)`, at most once a second.
    public func onBalanceChanged(_ handler: @escaping (Milliseconds) -> Void) throws(BusFailure) -> BlockerSubscription {
        try subscribe(BlockerInterface.balanceChanged, handler)
    }

    /// `Warning(x remaining_ms)`, when a `[warn] before` threshold is crossed.
    public func onWarning(_ handler: @escaping (Milliseconds) -> Void) throws(BusFailure) -> BlockerSubscription {
        try subscribe(BlockerInterface.warning, handler)
    }

    /// `signal` from blockerd, decoded; from another user's process owning the name, nothing.
    public func subscribe<Payload>(_ signal: BlockerSignal<Payload>, _ handler: @escaping (Payload) -> Void)
        throws(BusFailure) -> BlockerSubscription {
        do {
            return BlockerSubscription(try connection.matchSignal(
                sender: BusNames.service, path: BusNames.objectPath, interface: BusNames.interface,
                member: signal.member) { [weak self] message in
                    guard let self, self.isTrusted(sender: message.sender),
                          let payload = try? signal.read(message) else { return }
                    handler(payload)
                })
        } catch {
            throw .transport("cannot subscribe to blockerd's \(signal.member) signal: \(error)")
        }
    }

    /// Whether `sender` is the owner that runs as our uid (asked of the bus daemon once per owner).
    private func isTrusted(sender: String?) -> Bool {
        guard let sender, !untrustedSenders.contains(sender) else { return false }
        if sender == trustedOwner { return true }
        trustedOwner = nil
        return (try? verifiedOwner()) == sender
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

    // MARK: the shell's own cover

    /// Who owns `BusNames.shellCover` now, checked (`CoverClaim`); nil when nobody does.
    /// Only an owner whose program is a desktop shell draws the cover.
    public func shellCoverOwner() throws(BusFailure) -> CoverClaim? {
        let owner: BusPeer?
        do { owner = try connection.owner(of: BusNames.shellCover) } catch {
            throw Self.failure(error, member: "GetNameOwner")
        }
        return owner.map { CoverClaim.check($0.uniqueName, on: connection, overlayPath: nil) }
    }

    /// Called with the new owner of `BusNames.shellCover`, checked, when it
    /// changes; nil when it has none any more.
    public func onShellCoverChanged(_ handler: @escaping (CoverClaim?) -> Void) throws(BusFailure) -> BlockerSubscription {
        do {
            return BlockerSubscription(try connection.watchOwner(of: BusNames.shellCover) { [unowned self] owner in
                handler(owner.isEmpty ? nil : CoverClaim.check(owner, on: self.connection, overlayPath: nil))
            })
        } catch {
            throw .transport("cannot watch \(BusNames.shellCover) on the session bus: \(error)")
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
            throw .transport("lost the session bus connection: \(error.errno)")
        }
    }

    /// Waits up to `microseconds` for bus traffic, then dispatches it.
    public func waitAndDispatch(microseconds: UInt64) throws(BusFailure) {
        try dispatchPending()
        do { try connection.wait(microseconds: microseconds) } catch {
            throw .transport("lost the session bus connection: \(error.errno)")
        }
        try dispatchPending()
    }

    /// Lets an sd_event loop dispatch the connection (signals arrive by themselves).
    public func attach(to loop: EventLoop) throws(SystemdError) {
        try connection.attach(to: loop)
    }

    // MARK: failures

    /// How a failed call reads to a person.
    static func failure(_ error: BusCallError, member: String, timeout: UInt64 = 5_000_000) -> BusFailure {
        switch error {
        case let .reply(reply):
            switch reply.name {
            case "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner":
                return .notRunning(notRunningMessage)
            case "org.freedesktop.DBus.Error.NoReply", "org.freedesktop.DBus.Error.Timeout":
                if reply.errno == .timedOut || reply.name.hasSuffix(".Timeout") {
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
