/// Why an app is covered. Raw values are the `reason` strings of the contract;
/// declaration order is the display precedence.
public enum ShieldReason: String, Sendable, CaseIterable, Comparable {
    case timedBlock = "timed-block"
    case schedule
    case dailyLimit = "daily-limit"
    case balance

    public static func < (a: ShieldReason, b: ShieldReason) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}

public struct Shield: Equatable, Sendable {
    /// The reason shown: the first active one in precedence order.
    public var reason: ShieldReason
    /// Every rule covering the app now.
    public var reasons: [ShieldReason]
    public var app: String
    /// The group whose rule is shown (nil for `balance` and app-level timed blocks).
    public var group: String?
    /// When the shield lifts if nothing changes (chained rules included);
    /// nil when only earning lifts it.
    public var until: WallInstant?
}

public struct Decision: Equatable, Sendable {
    public var groups: [String]
    public var metered: Bool
    public var shield: Shield?

    public static let nothingInFront = Decision(groups: [], metered: false, shield: nil)
}

/// A `blockerctl block TARGET --for …`: an absolute end instant.
public struct TimedBlock: Equatable, Sendable {
    public var target: String
    public var until: WallInstant
    public init(target: String, until: WallInstant) {
        self.target = target.lowercased()
        self.until = until
    }
}

/// What the ledger says, as the policy needs it.
public struct LedgerSnapshot: Equatable, Sendable {
    public var balance: Milliseconds
    /// Usage per group (by name, lowercased) on the local day of `now`.
    public var usedToday: [String: Milliseconds]
    public var timedBlocks: [TimedBlock]

    public init(balance: Milliseconds, usedToday: [String: Milliseconds] = [:], timedBlocks: [TimedBlock] = []) {
        self.balance = balance
        self.usedToday = Dictionary(usedToday.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: +)
        self.timedBlocks = timedBlocks
    }

    public func used(_ group: String) -> Milliseconds { usedToday[group.lowercased()] ?? 0 }
}

/// The shield at time t is a pure function of (config, ledger, foreground, t):
/// the union of every rule active at t. Nothing is "unblocked" by an event.
public enum Policy {
    /// How far ahead `until` follows a chain of rules before calling it "no end".
    static let chainHorizon: Milliseconds = .days(8)

    public static func decide(config: Config, zone: TimeZoneRules, matcher: Matcher,
                              window: Window?, ledger: LedgerSnapshot, now: WallInstant) -> Decision {
        guard let window else { return .nothingInFront }
        let groups = matcher.groups(for: window)
        let metered = groups.contains { $0.metered }
        let rules = HardRules(groups: groups, window: window, ledger: ledger, zone: zone, today: zone.localDate(at: now))

        var active = rules.active(at: now)
        let balanceOut = metered && ledger.balance <= 0
        if balanceOut { active.append(.init(reason: .balance, group: nil, end: nil)) }
        guard let shown = active.min(by: { $0.reason < $1.reason }) else {
            return Decision(groups: groups.map(\.name), metered: metered, shield: nil)
        }
        let reasons = Set(active.map(\.reason)).sorted()
        let shield = Shield(reason: shown.reason, reasons: reasons, app: window.app, group: shown.group,
                            until: liftInstant(rules: rules, from: now, balanceOut: balanceOut))
        return Decision(groups: groups.map(\.name), metered: metered, shield: shield)
    }

    /// Follows the hard rules forward: while any rule is active at t, jump to
    /// the latest end among them. The balance rule never ends by itself.
    static func liftInstant(rules: HardRules, from now: WallInstant, balanceOut: Bool) -> WallInstant? {
        if balanceOut { return nil }
        var t = now
        while true {
            let active = rules.active(at: t)
            if active.isEmpty { return t }
            guard let end = active.compactMap(\.end).max(), end > t, end - now <= chainHorizon else { return nil }
            t = end
        }
    }
}

/// The balance-independent rules for one window: timed blocks, schedules, daily limits.
struct HardRules {
    struct Active {
        var reason: ShieldReason
        var group: String?
        /// When this rule stops covering; nil: never by itself.
        var end: WallInstant?
    }

    let groups: [AppGroup]
    let window: Window
    let ledger: LedgerSnapshot
    let zone: TimeZoneRules
    /// The local day `ledger.usedToday` is about; limits reset after it.
    let today: CivilDate

    func active(at t: WallInstant) -> [Active] {
        var found: [Active] = []
        // Almost always no timed block: then no set of names to build.
        if !ledger.timedBlocks.isEmpty {
            let targets = Set(groups.map { $0.name.lowercased() }).union(window.identifiers)
            for block in ledger.timedBlocks where targets.contains(block.target) && block.until > t {
                let group = groups.first { $0.name.lowercased() == block.target }?.name
                found.append(Active(reason: .timedBlock, group: group, end: block.until))
            }
        }
        for group in groups {
            for schedule in group.schedules {
                if let end = schedule.occurrence(containing: t, in: zone)?.end {
                    found.append(Active(reason: .schedule, group: group.name, end: end))
                }
            }
            if let limit = group.dailyLimit, ledger.used(group.name) >= limit,
               zone.localDate(at: t) == today {
                found.append(Active(reason: .dailyLimit, group: group.name, end: zone.startOfDay(today.adding(days: 1))))
            }
        }
        return found
    }
}
