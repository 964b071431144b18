import BlockerCore
import BlockerSystem
import BlockerSystemd
import Glibc

/// `BalanceChanged` at most once a second: the latest value wins, and a value
/// held back is sent when the second is over. Pure: the caller owns the clock.
struct BalanceThrottle {
    static let interval: UInt64 = 1_000_000   // µs

    private(set) var lastSent: UInt64?
    private(set) var held: Milliseconds?

    enum Action: Equatable {
        case send(Milliseconds)
        /// Send the held value at this CLOCK_MONOTONIC µs.
        case wait(until: UInt64)
    }

    mutating func offer(_ balance: Milliseconds, now: UInt64) -> Action {
        if let lastSent, now < lastSent + Self.interval {
            held = balance
            return .wait(until: lastSent + Self.interval)
        }
        lastSent = now
        held = nil
        return .send(balance)
    }

    /// The timer fired: the held value, if any, goes out now.
    mutating func due(now: UInt64) -> Milliseconds? {
        guard let value = held else { return nil }
        held = nil
        lastSent = now
        return value
    }
}

/// The exported object `/io/github/blockerd/Blocker1` on the session bus.
///
/// `claim` connects and takes the well-known name; the daemon then attaches
/// the connection to its sd_event loop and `export`s its `BlockerMethods`.
/// Every method call from a uid other than the daemon's is refused with
/// AccessDenied; the methods and signals come from `BlockerInterface`.
public final class BlockerExport {
    public enum ClaimFailure: Error, Equatable, Sendable, CustomStringConvertible {
        /// No session bus to connect to.
        case noBus(String)
        /// Another process owns `io.github.blockerd.Blocker1`: who, when the
        /// bus daemon says, and the uid blockerd runs as.
        case nameTaken(owner: BusPeer?, ownUID: UInt32)
        case failed(String)

        public var description: String {
            switch self {
            case let .noBus(why): why
            case let .nameTaken(owner?, ownUID) where owner.uid == ownUID:
                "blockerd is already running (pid \(owner.pid.map(String.init) ?? "unknown")) as your own user "
                    + "(uid \(ownUID)) on the session bus; stop it first: systemctl --user stop blockerd"
            case let .nameTaken(owner?, ownUID):
                "\(BusNames.service) is taken on the session bus by pid \(owner.pid.map(String.init) ?? "unknown") "
                    + "running as uid \(owner.uid), not as you (uid \(ownUID)): that is no blockerd of yours but an "
                    + "impostor; find out what it is (ps -p \(owner.pid.map(String.init) ?? "PID")) and stop it"
            case .nameTaken(nil, _):
                "another process owns \(BusNames.service) on the session bus (the bus daemon does not say which); "
                    + "if it is blockerd, stop it first: systemctl --user stop blockerd"
            case let .failed(why): why
            }
        }
    }

    /// The session bus connection, for blockerd's other clients of other
    /// services (the cover's MPRIS players) on the same loop.
    public let connection: BusConnection
    private var disconnectWatch: BusSubscription?
    private var exported: BusExport?
    private weak var methods: BlockerMethods?
    private let ownUID: uid_t
    /// Unique names are never reused on a bus, so a sender's uid can be kept.
    private var senderUIDs: [String: uid_t] = [:]
    private var throttle = BalanceThrottle()
    /// Sends a held BalanceChanged; nil until the export is attached to a loop.
    private var throttleTimer: EventTimer?
    /// Each method's route, by member.
    private static let routes = Dictionary(uniqueKeysWithValues: BlockerInterface.routes.map { ($0.spec.member, $0) })

    private init(connection: BusConnection) {
        self.connection = connection
        ownUID = geteuid()
    }

    /// Connects to the session bus and takes the service name, or says who has it.
    public static func claim(environment: [String: String]) throws(ClaimFailure) -> BlockerExport {
        guard let address = BusAddress.session(environment: environment) else {
            throw .noBus("no session bus: DBUS_SESSION_BUS_ADDRESS is not set and $XDG_RUNTIME_DIR/bus does not exist")
        }
        let connection: BusConnection
        do { connection = try BusConnection(address: address) } catch {
            throw .noBus("cannot connect to the session bus at \(address): \(error.errno)")
        }
        do {
            try connection.requestName(BusNames.service)
        } catch where error.errno == .fileExists {
            throw .nameTaken(owner: try? connection.owner(of: BusNames.service), ownUID: geteuid())
        } catch {
            throw .failed("cannot take the name \(BusNames.service) on the session bus: \(error)")
        }
        return BlockerExport(connection: connection)
    }

    /// Lets the daemon's loop serve the bus (and the BalanceChanged timer).
    public func attach(to loop: EventLoop) throws(SystemdError) {
        try connection.attach(to: loop)
        throttleTimer = try loop.timer { [weak self] in
            guard let self, let value = self.throttle.due(now: UInt64(MonotonicClock.nowUs)) else { return }
            self.emit(BlockerInterface.balanceChanged, value)
        }
    }

    public var uniqueName: String? { connection.uniqueName }

    /// `handler` runs once if the session bus goes away (blockerd then
    /// cannot be reached on it, nor on the one that replaces it).
    public func onDisconnect(_ handler: @escaping () -> Void) throws(SystemdError) {
        disconnectWatch = try connection.onDisconnect(handler)
    }

    /// Starts answering calls with `methods` (held weakly: its owner keeps it).
    public func export(_ methods: BlockerMethods) throws(SystemdError) {
        self.methods = methods
        exported = try connection.export(path: BusNames.objectPath, interface: BusNames.interface,
                                         methods: BlockerInterface.routes.map(\.spec),
                                         signals: BlockerInterface.signals) { [unowned self] call in
            self.answer(call)
        }
    }

    /// Desktop notifications sent over this connection.
    public func notifications(log: @escaping (String) -> Void) -> DesktopNotifications {
        DesktopNotifications(connection: connection, log: log)
    }

    /// Sends everything queued (the daemon calls this before it exits).
    public func flush() {
        connection.flush()
    }

    // MARK: calls

    /// The language a refusal is worded in: the person's (blockerd's
    /// session locale), for the call only.
    public var callerLanguage: any TranslationCatalog = EnglishCatalog()

    private func answer(_ call: BusMessage) -> Result<BusMessage, BusErrorReply> {
        Translations.$scoped.withValue(callerLanguage) { answerInLanguage(call) }
    }

    private func answerInLanguage(_ call: BusMessage) -> Result<BusMessage, BusErrorReply> {
        let member = call.member ?? ""
        do throws(MethodError) {
            try checkCaller(call, member: member)
            guard let methods else {
                throw MethodError(.unavailable, "blockerd is shutting down; try again in a moment")
            }
            // sd-bus only calls us for members of the vtable, which come from the routes.
            guard let route = Self.routes[member] else { throw .internalError("no method \(member)") }
            let reply: BusMessage
            do { reply = try call.makeReply() } catch { throw .internalError("\(member): \(error)") }
            try route.answer(call, reply, methods)
            return .success(reply)
        } catch {
            return .failure(BusErrorReply(name: error.name.rawValue, message: error.message))
        }
    }

    /// Only the daemon's own user may call it: another user's process on a
    /// shared bus must not spend or earn someone else's time.
    private func checkCaller(_ call: BusMessage, member: String) throws(MethodError) {
        guard let sender = call.sender else {
            throw MethodError(.accessDenied, "blockerd cannot tell who sent this \(member) call; refused")
        }
        let uid: uid_t
        if let known = senderUIDs[sender] {
            uid = known
        } else {
            do { uid = try connection.senderUID(of: call) } catch {
                throw MethodError(.accessDenied,
                                  "blockerd cannot tell which user sent this \(member) call (\(error)); refused")
            }
            if senderUIDs.count >= 512 { senderUIDs.removeAll() }
            senderUIDs[sender] = uid
        }
        guard uid == ownUID else {
            throw MethodError(.accessDenied, "blockerd runs for uid \(ownUID) and only answers that user; "
                + "uid \(uid) may not call \(member) (run blockerctl as uid \(ownUID))")
        }
    }

    // MARK: signals

    /// `ShieldChanged`: on every change, at once.
    public func shieldChanged(_ shield: ShieldState) {
        emit(BlockerInterface.shieldChanged, shield)
    }

    /// `BalanceChanged`: at most once a second; the latest value is sent
    /// when the second is over.
    public func balanceChanged(_ balanceMs: Milliseconds) {
        switch throttle.offer(balanceMs, now: UInt64(MonotonicClock.nowUs)) {
        case let .send(value):
            emit(BlockerInterface.balanceChanged, value)
        case let .wait(until):
            guard let throttleTimer else {
                // Not on a loop (cannot happen in blockerd): dropping beats flooding.
                return
            }
            if !throttleTimer.isArmed { throttleTimer.arm(atMicroseconds: until) }
        }
    }

    /// `Warning`: at each `[warn] before` threshold crossed.
    public func warning(remainingMs: Milliseconds) {
        emit(BlockerInterface.warning, remainingMs)
    }

    /// A signal that cannot be sent is lost; the next change sends a fresh one.
    private func emit<Payload>(_ declaration: BlockerSignal<Payload>, _ payload: Payload) {
        do {
            let signal = try connection.signal(path: BusNames.objectPath, interface: BusNames.interface,
                                               member: declaration.member)
            try declaration.write(payload, signal)
            try connection.send(signal)
        } catch {}
    }
}
