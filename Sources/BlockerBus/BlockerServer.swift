import BlockerCore
import BlockerSystem
import BlockerSystemd
import Glibc

/// The bounds every caller of the API is held to (the CLI checks the same before calling).
public enum BlockerLimits {
    /// `Earn(s, u reps)`.
    public static let reps: ClosedRange<UInt32> = 1...1000
    /// `BlockFor(s, t seconds)`: 1 minute to 7 days.
    public static let blockSeconds: ClosedRange<UInt64> = 60...604_800
    /// `History(u days)`.
    public static let historyDays: ClosedRange<UInt32> = 1...366
}

/// A refusal a handler sends back: one of the API's named errors with a
/// message that says what to do.
public struct MethodError: Error, Equatable, Sendable, CustomStringConvertible {
    public let name: BusErrorName
    public let message: String
    public var description: String { message }

    public init(_ name: BusErrorName, _ message: String) {
        self.name = name
        self.message = message
    }

    public static func invalidArgument(_ message: String) -> MethodError { MethodError(.invalidArgument, message) }
    public static func unknownExercise(_ message: String) -> MethodError { MethodError(.unknownExercise, message) }
    public static func unknownTarget(_ message: String) -> MethodError { MethodError(.unknownTarget, message) }
    public static func configError(_ message: String) -> MethodError { MethodError(.configError, message) }
    public static func storageError(_ message: String) -> MethodError { MethodError(.storageError, message) }
}

/// What blockerd does for each method. `BlockerServer` has already checked
/// the caller's uid and the numeric bounds of `BlockerLimits`.
public protocol BlockerServerHandler: AnyObject {
    func status() throws(MethodError) -> StatusReport
    /// `exercise` may be "" (the only one configured). Committed before it returns.
    func earn(exercise: String, reps: UInt32) throws(MethodError) -> (earnedMs: Int64, balanceMs: Int64)
    /// Returns the block's end, Unix ms.
    func blockFor(target: String, seconds: UInt64) throws(MethodError) -> Int64
    func unblock(target: String) throws(MethodError)
    func history(days: UInt32) throws(MethodError) -> [HistoryRow]
    func reload() throws(MethodError)
}

/// `ShieldChanged(b active, s app, s reason, x balance_ms, x until_ms)`.
/// When the shield goes down, `app` is the app it covered and `reason` is "".
public struct ShieldChange: Equatable, Sendable {
    public var active: Bool
    public var app: String
    public var reason: String
    public var balanceMs: Int64
    /// Unix ms when the shield lifts by itself, 0 when only earning lifts it (or it is down).
    public var untilMs: Int64

    public init(active: Bool, app: String, reason: String, balanceMs: Int64, untilMs: Int64) {
        self.active = active; self.app = app; self.reason = reason
        self.balanceMs = balanceMs; self.untilMs = untilMs
    }
}

/// `BalanceChanged` at most once a second: the latest value wins, and a value
/// held back is sent when the second is over. Pure: the caller owns the clock.
struct BalanceThrottle {
    static let interval: UInt64 = 1_000_000   // µs

    private(set) var lastSent: UInt64?
    private(set) var held: Int64?

    enum Action: Equatable {
        case send(Int64)
        /// Send the held value at this CLOCK_MONOTONIC µs.
        case wait(until: UInt64)
    }

    mutating func offer(_ balance: Int64, now: UInt64) -> Action {
        if let lastSent, now < lastSent + Self.interval {
            held = balance
            return .wait(until: lastSent + Self.interval)
        }
        lastSent = now
        held = nil
        return .send(balance)
    }

    /// The timer fired: the held value, if any, goes out now.
    mutating func due(now: UInt64) -> Int64? {
        guard let value = held else { return nil }
        held = nil
        lastSent = now
        return value
    }
}

/// The exported object `/io/github/blockerd/Blocker1` on the session bus.
///
/// `claim` connects and takes the well-known name; the daemon then attaches
/// the connection to its sd_event loop and `export`s its handler. Every
/// method call from a uid other than the daemon's is refused with AccessDenied.
public final class BlockerServer {
    public enum ClaimFailure: Error, Equatable, Sendable, CustomStringConvertible {
        /// No session bus to connect to.
        case noBus(String)
        /// Another process owns `io.github.blockerd.Blocker1`.
        case nameTaken(ownerPID: Int32?)
        case failed(String)

        public var description: String {
            switch self {
            case let .noBus(why): why
            case let .nameTaken(pid):
                "blockerd is already running (\(pid.map { "pid \($0)" } ?? "another process")) on the session bus; "
                    + "stop it first: systemctl --user stop blockerd"
            case let .failed(why): why
            }
        }
    }

    private let connection: BusConnection
    private var exported: BusExport?
    private weak var handler: BlockerServerHandler?
    private let ownUID: uid_t
    /// Unique names are never reused on a bus, so a sender's uid can be kept.
    private var senderUIDs: [String: uid_t] = [:]
    private var throttle = BalanceThrottle()
    /// Sends a held BalanceChanged; nil until the server is attached to a loop.
    private var throttleTimer: EventTimer?

    private init(connection: BusConnection) {
        self.connection = connection
        ownUID = geteuid()
    }

    /// Connects to the session bus and takes the service name, or says who has it.
    public static func claim(environment: [String: String]) throws(ClaimFailure) -> BlockerServer {
        guard let address = BusAddress.session(environment: environment) else {
            throw .noBus("no session bus: DBUS_SESSION_BUS_ADDRESS is not set and $XDG_RUNTIME_DIR/bus does not exist")
        }
        let connection: BusConnection
        do { connection = try BusConnection(address: address) } catch {
            throw .noBus("cannot connect to the session bus at \(address): \(String(cString: strerror(error.errno)))")
        }
        do {
            try connection.requestName(BusNames.service)
        } catch where error.errno == EEXIST {
            throw .nameTaken(ownerPID: connection.ownerPID(of: BusNames.service))
        } catch {
            throw .failed("cannot take the name \(BusNames.service) on the session bus: \(error)")
        }
        return BlockerServer(connection: connection)
    }

    /// Lets the daemon's loop serve the bus (and the BalanceChanged timer).
    public func attach(to loop: EventLoop) throws(SystemdError) {
        try connection.attach(to: loop)
        throttleTimer = try loop.timer { [weak self] in
            guard let self, let value = self.throttle.due(now: UInt64(MonotonicClock.nowUs)) else { return }
            self.emitBalance(value)
        }
    }

    public var uniqueName: String? { connection.uniqueName }

    /// Starts answering calls with `handler` (held weakly: its owner keeps it).
    public func export(_ handler: BlockerServerHandler) throws(SystemdError) {
        self.handler = handler
        exported = try connection.export(path: BusNames.objectPath, interface: BusNames.interface,
                                         methods: Self.methods, signals: Self.signals) { [unowned self] call in
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

    static let methods = [
        BusMethodSpec(member: "Status", signature: "", parameterNames: "", result: "a{sv}", resultNames: "status"),
        BusMethodSpec(member: "Earn", signature: "su", parameterNames: "exercise,reps",
                      result: "xx", resultNames: "earned_ms,balance_ms"),
        BusMethodSpec(member: "BlockFor", signature: "st", parameterNames: "target,seconds",
                      result: "x", resultNames: "until_ms"),
        BusMethodSpec(member: "Unblock", signature: "s", parameterNames: "target", result: "", resultNames: ""),
        BusMethodSpec(member: "History", signature: "u", parameterNames: "days",
                      result: "a(ssxx)", resultNames: "rows"),
        BusMethodSpec(member: "Reload", signature: "", parameterNames: "", result: "", resultNames: ""),
    ]

    static let signals = [
        BusSignalSpec(member: "ShieldChanged", signature: "bssxx",
                      parameterNames: "active,app,reason,balance_ms,until_ms"),
        BusSignalSpec(member: "BalanceChanged", signature: "x", parameterNames: "balance_ms"),
        BusSignalSpec(member: "Warning", signature: "x", parameterNames: "remaining_ms"),
    ]

    // MARK: calls

    private func answer(_ call: BusMessage) -> Result<BusMessage, BusErrorReply> {
        let member = call.member ?? ""
        if let refusal = checkCaller(call, member: member) { return .failure(refusal) }
        guard let handler else {
            return .failure(BusErrorReply(name: "org.freedesktop.DBus.Error.Failed",
                                          message: "blockerd is shutting down; try again in a moment"))
        }
        do throws(BusCallFailure) {
            let reply = try call.makeReplyOrFail()
            try Self.dispatch(member, call: call, reply: reply, to: handler)
            return .success(reply)
        } catch {
            return .failure(error.reply)
        }
    }

    /// Only the daemon's own user may call it: another user's process on a
    /// shared bus must not spend or earn someone else's time.
    private func checkCaller(_ call: BusMessage, member: String) -> BusErrorReply? {
        let denied = BusErrorName.accessDenied.rawValue
        guard let sender = call.sender else {
            return BusErrorReply(name: denied, message: "blockerd cannot tell who sent this \(member) call; refused")
        }
        let uid: uid_t
        if let known = senderUIDs[sender] {
            uid = known
        } else {
            do { uid = try connection.senderUID(of: call) } catch {
                return BusErrorReply(name: denied,
                                     message: "blockerd cannot tell which user sent this \(member) call (\(error)); refused")
            }
            if senderUIDs.count >= 512 { senderUIDs.removeAll() }
            senderUIDs[sender] = uid
        }
        guard uid == ownUID else {
            return BusErrorReply(name: denied,
                                 message: "blockerd runs for uid \(ownUID) and only answers that user; "
                                    + "uid \(uid) may not call \(member) (run blockerctl as uid \(ownUID))")
        }
        return nil
    }

    private static func dispatch(_ member: String, call: BusMessage, reply: BusMessage,
                                 to handler: BlockerServerHandler) throws(BusCallFailure) {
        // sd-bus checked the signature before calling us, so reading cannot fail
        // on a caller's mistake; `wire` failures are ours (say, out of memory).
        func wire<T>(_ body: () throws(SystemdError) -> T) throws(BusCallFailure) -> T {
            do { return try body() } catch {
                throw .reply(BusErrorReply(name: "org.freedesktop.DBus.Error.Failed", message: "\(member): \(error)"))
            }
        }
        func run<T>(_ body: () throws(MethodError) -> T) throws(BusCallFailure) -> T {
            do { return try body() } catch { throw .method(error) }
        }
        switch member {
        case "Status":
            let status = try run { () throws(MethodError) in try handler.status() }
            try wire { () throws(SystemdError) in try reply.append(status.busDictionary) }
        case "Earn":
            let (exercise, reps) = try wire { () throws(SystemdError) in (try call.readString(), try call.readUInt32()) }
            guard BlockerLimits.reps.contains(reps) else {
                throw .method(.invalidArgument(
                    "reps must be a whole number from 1 to 1000 (got \(reps)); nothing was credited"))
            }
            let result = try run { () throws(MethodError) in try handler.earn(exercise: exercise, reps: reps) }
            try wire { () throws(SystemdError) in
                try reply.append(result.earnedMs)
                try reply.append(result.balanceMs)
            }
        case "BlockFor":
            let (target, seconds) = try wire { () throws(SystemdError) in (try call.readString(), try call.readUInt64()) }
            guard BlockerLimits.blockSeconds.contains(seconds) else {
                let shown = seconds <= 1_000_000_000 ? DurationText.format(Int64(seconds) * 1000) : "\(seconds) seconds"
                throw .method(.invalidArgument(
                    "a block lasts from 1 minute to 7 days (60 to 604800 seconds), not \(shown); nothing was blocked"))
            }
            let until = try run { () throws(MethodError) in try handler.blockFor(target: target, seconds: seconds) }
            try wire { () throws(SystemdError) in try reply.append(until) }
        case "Unblock":
            let target = try wire { () throws(SystemdError) in try call.readString() }
            try run { () throws(MethodError) in try handler.unblock(target: target) }
        case "History":
            let days = try wire { () throws(SystemdError) in try call.readUInt32() }
            guard BlockerLimits.historyDays.contains(days) else {
                throw .method(.invalidArgument("history covers 1 to 366 days (got \(days))"))
            }
            let rows = try run { () throws(MethodError) in try handler.history(days: days) }
            try wire { () throws(SystemdError) in
                try reply.appendArray(rows, of: "(ssxx)") { (row: HistoryRow) throws(SystemdError) in
                    try reply.appendStruct("ssxx") { () throws(SystemdError) in
                        try reply.append(row.day)
                        try reply.append(row.group)
                        try reply.append(row.usedMs)
                        try reply.append(row.earnedMs)
                    }
                }
            }
        case "Reload":
            try run { () throws(MethodError) in try handler.reload() }
        default:
            throw .reply(BusErrorReply(name: "org.freedesktop.DBus.Error.UnknownMethod", message: "no method \(member)"))
        }
    }

    // MARK: signals

    /// `ShieldChanged`: on every change, at once.
    public func shieldChanged(_ change: ShieldChange) {
        emit("ShieldChanged") { (signal: BusMessage) throws(SystemdError) in
            try signal.append(change.active)
            try signal.append(change.app)
            try signal.append(change.reason)
            try signal.append(change.balanceMs)
            try signal.append(change.untilMs)
        }
    }

    /// `BalanceChanged`: at most once a second; the latest value is sent
    /// when the second is over.
    public func balanceChanged(_ balanceMs: Int64) {
        switch throttle.offer(balanceMs, now: UInt64(MonotonicClock.nowUs)) {
        case let .send(value):
            emitBalance(value)
        case let .wait(until):
            guard let throttleTimer else {
                // Not on a loop (cannot happen in blockerd): dropping beats flooding.
                return
            }
            if !throttleTimer.isArmed { throttleTimer.arm(atMicroseconds: until) }
        }
    }

    /// `Warning(x remaining_ms)`: at each `[warn] before` threshold crossed.
    public func warning(remainingMs: Int64) {
        emit("Warning") { (signal: BusMessage) throws(SystemdError) in try signal.append(remainingMs) }
    }

    private func emitBalance(_ value: Int64) {
        emit("BalanceChanged") { (signal: BusMessage) throws(SystemdError) in try signal.append(value) }
    }

    /// A signal that cannot be sent is lost; the next change sends a fresh one.
    private func emit(_ member: String, _ fill: (BusMessage) throws(SystemdError) -> Void) {
        do {
            let signal = try connection.signal(path: BusNames.objectPath, interface: BusNames.interface, member: member)
            try fill(signal)
            try connection.send(signal)
        } catch {}
    }
}

/// Why a call is answered with an error.
private enum BusCallFailure: Error {
    case method(MethodError)
    case reply(BusErrorReply)

    var reply: BusErrorReply {
        switch self {
        case let .method(error): BusErrorReply(name: error.name.rawValue, message: error.message)
        case let .reply(reply): reply
        }
    }
}

extension BusMessage {
    fileprivate func makeReplyOrFail() throws(BusCallFailure) -> BusMessage {
        do { return try makeReply() } catch {
            throw .reply(BusErrorReply(name: "org.freedesktop.DBus.Error.Failed", message: "\(error)"))
        }
    }
}

// MARK: the wire form of Status

extension StatusReport {
    /// `Status() → a{sv}`, shaped like `blockerctl status --json`: nested
    /// dictionaries for foreground (absent when nothing is in front), shield,
    /// today and probe; optional strings are absent rather than empty.
    var busDictionary: [String: BusValue] {
        var shieldEntries: [String: BusValue] = ["active": .bool(shield.active), "until_ms": .int64(shield.untilMs)]
        if let reason = shield.reason { shieldEntries["reason"] = .string(reason) }
        if let app = shield.app { shieldEntries["app"] = .string(app) }
        var probeEntries: [String: BusValue] = ["name": .string(probeName), "ok": .bool(probeOK)]
        if let probeError { probeEntries["error"] = .string(probeError) }
        var entries: [String: BusValue] = [
            "balance_ms": .int64(balanceMs),
            "metered": .bool(metered),
            "locked": .bool(locked),
            "shield": .dictionary(shieldEntries),
            "today": .dictionary(["used_ms": .int64(todayUsedMs), "earned_ms": .int64(todayEarnedMs)]),
            "probe": .dictionary(probeEntries),
        ]
        if let foreground {
            var front: [String: BusValue] = ["app": .string(foreground.app), "title": .string(foreground.title),
                                             "groups": .strings(foreground.groups)]
            if let pid = foreground.pid { front["pid"] = .int32(pid) }
            entries["foreground"] = .dictionary(front)
        }
        return entries
    }

    /// The inverse of `busDictionary`; nil when a required key is missing or mistyped.
    init?(busDictionary entries: [String: BusValue]) {
        guard case let .int64(balance)? = entries["balance_ms"],
              case let .bool(metered)? = entries["metered"],
              case let .bool(locked)? = entries["locked"],
              case let .dictionary(shield)? = entries["shield"],
              case let .bool(active)? = shield["active"],
              case let .int64(until)? = shield["until_ms"],
              case let .dictionary(today)? = entries["today"],
              case let .int64(used)? = today["used_ms"],
              case let .int64(earned)? = today["earned_ms"],
              case let .dictionary(probe)? = entries["probe"],
              case let .string(probeName)? = probe["name"],
              case let .bool(probeOK)? = probe["ok"]
        else { return nil }
        var foreground: Foreground?
        if case let .dictionary(front)? = entries["foreground"] {
            guard case let .string(app)? = front["app"], case let .string(title)? = front["title"],
                  case let .strings(groups)? = front["groups"] else { return nil }
            var pid: Int32?
            if case let .int32(value)? = front["pid"] { pid = value }
            foreground = Foreground(app: app, title: title, pid: pid, groups: groups)
        }
        func string(_ value: BusValue?) -> String? {
            if case let .string(text)? = value { return text }
            return nil
        }
        self.init(balanceMs: balance, metered: metered, locked: locked, foreground: foreground,
                  shield: ShieldState(active: active, reason: string(shield["reason"]), app: string(shield["app"]),
                                      untilMs: until),
                  todayUsedMs: used, todayEarnedMs: earned, probeName: probeName, probeOK: probeOK,
                  probeError: string(probe["error"]))
    }
}
