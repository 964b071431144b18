import BlockerCore
import BlockerSystemd

/// What a call to blockerd can end in, on the client side.
public enum BusFailure: Error, Equatable, Sendable, CustomStringConvertible {
    /// No session bus, or blockerd does not own its name.
    case notRunning(String)
    /// blockerd answered with an error (one of `BusErrorName`, or another name).
    case refused(name: String, message: String)
    /// Transport trouble: timeout, bad reply.
    case transport(String)
    /// The name is owned by a process of another user: not this user's blockerd, so it is not asked anything.
    case untrustedOwner(String)

    public var description: String {
        switch self {
        case let .notRunning(why): why
        case let .refused(_, message): message
        case let .transport(why): why
        case let .untrustedOwner(why): why
        }
    }
}

/// `Status() → a{sv}`, decoded. Mirrors `blockerctl status --json`.
public struct StatusReport: Equatable, Sendable {
    public struct Foreground: Equatable, Sendable {
        public var app: String
        public var title: String
        public var pid: Int32?
        public var groups: [String]
        /// A browser window's active tab, as blocker's extension says it; nil without one.
        public var tab: BrowserTab?
        public init(app: String, title: String, pid: Int32?, groups: [String], tab: BrowserTab? = nil) {
            self.app = app; self.title = title; self.pid = pid; self.groups = groups; self.tab = tab
        }
    }
    public var balanceMs: Milliseconds
    public var metered: Bool
    public var locked: Bool
    public var foreground: Foreground?
    /// The same state `ShieldChanged` carries.
    public var shield: ShieldState
    public var todayUsedMs: Milliseconds
    public var todayEarnedMs: Milliseconds
    public var probeName: String
    public var probeOK: Bool
    public var probeError: String?
    /// `[earn]` as blockerd has it now, in name order.
    public var exercises: [Exercise]
    /// Whether the balance is being spent right now: a status bar counts it
    /// down between `BalanceChanged` signals, which come at start and stop.
    public var spending: Bool
    /// `[strict] delay` in force, nil outside strict mode (absent from the
    /// dictionary then, and from blockerd before strict mode).
    public var strictDelayMs: Milliseconds?
    /// Config changes waiting for the delay, and when the next applies.
    public var pendingChanges: UInt32 = 0
    public var pendingNext: WallInstant?
    /// The system-wide default config blockerd runs on when the user has none
    /// of their own: it then meters nothing (`SystemDefaultConfig`). Absent otherwise.
    public var systemConfig: String?
    /// Strict mode runs on the ledger's config because blocker.toml does not
    /// load: why, and what to do (absent otherwise).
    public var configProblem: String?
    /// Browsers seen in front with no word from blocker's extension while the
    /// config names sites (absent when none).
    public var browsersWithoutExtension: [String] = []
    /// `[sync]`: the folder, this device and the others (absent without [sync]).
    public var sync: SyncStatus?

    public init(balanceMs: Milliseconds, metered: Bool, locked: Bool, foreground: Foreground?, shield: ShieldState,
                todayUsedMs: Milliseconds, todayEarnedMs: Milliseconds, probeName: String, probeOK: Bool, probeError: String?,
                exercises: [Exercise], spending: Bool = false) {
        self.spending = spending
        self.balanceMs = balanceMs; self.metered = metered; self.locked = locked; self.foreground = foreground
        self.shield = shield; self.todayUsedMs = todayUsedMs; self.todayEarnedMs = todayEarnedMs
        self.probeName = probeName; self.probeOK = probeOK; self.probeError = probeError
        self.exercises = exercises.sorted { $0.name < $1.name }
    }
}

/// One row of `History(u days) → a(ssxx)`: (day, group, used_ms, earned_ms).
/// The row with group "" carries the day's totals: metered time spent and time earned.
public struct HistoryRow: Equatable, Sendable {
    public var day: String
    public var group: String
    public var usedMs: Milliseconds
    public var earnedMs: Milliseconds
    public init(day: String, group: String, usedMs: Milliseconds, earnedMs: Milliseconds) {
        self.day = day; self.group = group; self.usedMs = usedMs; self.earnedMs = earnedMs
    }
}

// MARK: the a{sv} forms

extension ShieldState {
    /// `ShieldChanged`'s argument and `Status`'s `shield` entry: active b,
    /// reason s (absent while down), app s, group s (absent when none),
    /// until_ms x (0 when only earning lifts it; a pause: its countdown's
    /// end), balance_ms x, ask_reason b (present and true when a pause asks
    /// "why now?"), passes_left u (absent without `[pass]`), site s (present
    /// when the browser extension covers a tab of that site, not a window cover).
    public var busDictionary: [String: BusValue] {
        var entries: [String: BusValue] = ["active": .bool(active), "app": .string(app),
                                           "until_ms": .int64(until?.ms ?? 0), "balance_ms": .int64(balanceMs.ms)]
        if active, let reason { entries["reason"] = .string(reason.rawValue) }
        if let group { entries["group"] = .string(group) }
        if askReason { entries["ask_reason"] = .bool(true) }
        if let passesLeft { entries["passes_left"] = .uint32(UInt32(clamping: passesLeft)) }
        if active, let site { entries["site"] = .string(site) }
        return entries
    }

    /// The inverse of `busDictionary`; nil when a required key is missing or
    /// mistyped. A reason this build does not know reads as nil (the shield still covers).
    public init?(busDictionary entries: [String: BusValue]) {
        guard case let .bool(active)? = entries["active"], case let .string(app)? = entries["app"],
              case let .int64(until)? = entries["until_ms"], case let .int64(balance)? = entries["balance_ms"]
        else { return nil }
        var reason: ShieldReason?
        if case let .string(text)? = entries["reason"] { reason = ShieldReason(rawValue: text) }
        var group: String?
        if case let .string(text)? = entries["group"] { group = text }
        self.init(active: active, reason: reason, app: app, group: group,
                  until: until > 0 ? WallInstant(ms: until) : nil, balanceMs: Milliseconds(ms: balance))
        if case .bool(true)? = entries["ask_reason"] { askReason = true }
        if case let .uint32(left)? = entries["passes_left"] { passesLeft = Int(left) }
        if case let .string(text)? = entries["site"] { site = text }
    }
}

extension StatusReport {
    /// `Status() → a{sv}`, shaped like `blockerctl status --json`: nested
    /// dictionaries for foreground (absent when nothing is in front), shield,
    /// today and probe, and exercises (name → x ms a rep); optional strings
    /// are absent rather than empty.
    var busDictionary: [String: BusValue] {
        var probeEntries: [String: BusValue] = ["name": .string(probeName), "ok": .bool(probeOK)]
        if let probeError { probeEntries["error"] = .string(probeError) }
        var entries: [String: BusValue] = [
            "balance_ms": .int64(balanceMs.ms),
            "metered": .bool(metered),
            "spending": .bool(spending),
            "locked": .bool(locked),
            "shield": .dictionary(shield.busDictionary),
            "today": .dictionary(["used_ms": .int64(todayUsedMs.ms), "earned_ms": .int64(todayEarnedMs.ms)]),
            "probe": .dictionary(probeEntries),
            "exercises": .dictionary(Dictionary(exercises.map { ($0.name, BusValue.int64($0.perRep.ms)) },
                                                uniquingKeysWith: { first, _ in first })),
        ]
        if let strictDelayMs { entries["strict_delay_ms"] = .int64(strictDelayMs.ms) }
        if let systemConfig { entries["system_config"] = .string(systemConfig) }
        if let configProblem { entries["config_problem"] = .string(configProblem) }
        if !browsersWithoutExtension.isEmpty { entries["browsers_without_extension"] = .strings(browsersWithoutExtension) }
        if let sync { entries["sync"] = .dictionary(sync.busDictionary) }
        if pendingChanges > 0, let pendingNext {
            entries["pending_changes"] = .uint32(pendingChanges)
            entries["pending_next_ms"] = .int64(pendingNext.ms)
        }
        if let foreground {
            var front: [String: BusValue] = ["app": .string(foreground.app), "title": .string(foreground.title),
                                             "groups": .strings(foreground.groups)]
            if let pid = foreground.pid { front["pid"] = .int32(pid) }
            if let tab = foreground.tab {
                front["tab"] = .dictionary(["site": .string(tab.site ?? ""), "private": .bool(tab.isPrivate),
                                            "covered": .bool(tab.covered)])
            }
            entries["foreground"] = .dictionary(front)
        }
        return entries
    }

    /// The inverse of `busDictionary`; nil when a required key is missing or mistyped.
    init?(busDictionary entries: [String: BusValue]) {
        guard case let .int64(balance)? = entries["balance_ms"],
              case let .bool(metered)? = entries["metered"],
              case let .bool(locked)? = entries["locked"],
              case let .dictionary(shieldEntries)? = entries["shield"],
              let shield = ShieldState(busDictionary: shieldEntries),
              case let .dictionary(today)? = entries["today"],
              case let .int64(used)? = today["used_ms"],
              case let .int64(earned)? = today["earned_ms"],
              case let .dictionary(probe)? = entries["probe"],
              case let .string(probeName)? = probe["name"],
              case let .bool(probeOK)? = probe["ok"],
              case let .dictionary(rates)? = entries["exercises"]
        else { return nil }
        var exercises: [Exercise] = []
        for (name, value) in rates {
            guard case let .int64(perRep) = value else { return nil }
            exercises.append(Exercise(name: name, perRep: Milliseconds(ms: perRep)))
        }
        var foreground: Foreground?
        if case let .dictionary(front)? = entries["foreground"] {
            guard case let .string(app)? = front["app"], case let .string(title)? = front["title"],
                  case let .strings(groups)? = front["groups"] else { return nil }
            var pid: Int32?
            if case let .int32(value)? = front["pid"] { pid = value }
            foreground = Foreground(app: app, title: title, pid: pid, groups: groups)
            if case let .dictionary(tab)? = front["tab"], case let .string(site)? = tab["site"] {
                var isPrivate = false, covered = false
                if case let .bool(value)? = tab["private"] { isPrivate = value }
                if case let .bool(value)? = tab["covered"] { covered = value }
                foreground?.tab = BrowserTab(site: site.isEmpty ? nil : site, isPrivate: isPrivate, covered: covered)
            }
        }
        var probeError: String?
        if case let .string(text)? = probe["error"] { probeError = text }
        var spending = false   // absent from a blockerd older than 0.2.0
        if case let .bool(value)? = entries["spending"] { spending = value }
        self.init(balanceMs: Milliseconds(ms: balance), metered: metered, locked: locked, foreground: foreground,
                  shield: shield, todayUsedMs: Milliseconds(ms: used), todayEarnedMs: Milliseconds(ms: earned), probeName: probeName, probeOK: probeOK,
                  probeError: probeError, exercises: exercises, spending: spending)
        if case let .int64(delay)? = entries["strict_delay_ms"] { strictDelayMs = Milliseconds(ms: delay) }
        if case let .string(path)? = entries["system_config"] { systemConfig = path }
        if case let .string(problem)? = entries["config_problem"] { configProblem = problem }
        if case let .strings(browsers)? = entries["browsers_without_extension"] { browsersWithoutExtension = browsers }
        if case let .dictionary(sync)? = entries["sync"] { self.sync = SyncStatus(busDictionary: sync) }
        if case let .uint32(count)? = entries["pending_changes"], case let .int64(next)? = entries["pending_next_ms"] {
            pendingChanges = count
            pendingNext = WallInstant(ms: next)
        }
    }
}

extension SyncStatus {
    /// Status's `sync`: folder s, device s (empty while sync is off), problem s
    /// (absent when none), records x (this device's log), devices a{sv}: each
    /// other device's id → {records x, last_ms x (absent before any), earned_ms x, spent_ms x}.
    var busDictionary: [String: BusValue] {
        var entries: [String: BusValue] = ["folder": .string(folder), "device": .string(device),
                                           "records": .int64(Int64(records))]
        if let problem { entries["problem"] = .string(problem) }
        entries["devices"] = .dictionary(Dictionary(uniqueKeysWithValues: devices.map { device in
            var fields: [String: BusValue] = ["records": .int64(Int64(device.records)), "earned_ms": .int64(device.earnedMs.ms),
                                              "spent_ms": .int64(device.spentMs.ms)]
            if let lastAt = device.lastAt { fields["last_ms"] = .int64(lastAt.ms) }
            return (device.id, BusValue.dictionary(fields))
        }))
        return entries
    }

    init?(busDictionary entries: [String: BusValue]) {
        guard case let .string(folder)? = entries["folder"], case let .string(device)? = entries["device"],
              case let .int64(records)? = entries["records"], case let .dictionary(others)? = entries["devices"]
        else { return nil }
        var problem: String?
        if case let .string(text)? = entries["problem"] { problem = text }
        var devices: [Device] = []
        for (id, value) in others.sorted(by: { $0.key < $1.key }) {
            guard case let .dictionary(fields) = value, case let .int64(count)? = fields["records"],
                  case let .int64(earned)? = fields["earned_ms"], case let .int64(spent)? = fields["spent_ms"] else { continue }
            var lastAt: WallInstant?
            if case let .int64(ms)? = fields["last_ms"] { lastAt = WallInstant(ms: ms) }
            devices.append(Device(id: id, records: Int(count), lastAt: lastAt, earnedMs: Milliseconds(ms: earned),
                                  spentMs: Milliseconds(ms: spent)))
        }
        self.init(folder: folder, device: device, problem: problem, records: Int(records), devices: devices)
    }
}

// Durations and instants travel as the D-Bus `x` (int64 ms) they always
// were; these put them on and take them off a message typed.
extension BusMessage {
    func append(_ length: Milliseconds) throws(SystemdError) { try append(length.ms) }
    func append(_ instant: WallInstant) throws(SystemdError) { try append(instant.ms) }
    func readMilliseconds() throws(SystemdError) -> Milliseconds { Milliseconds(ms: try readInt64()) }
    func readWallInstant() throws(SystemdError) -> WallInstant { WallInstant(ms: try readInt64()) }
}
