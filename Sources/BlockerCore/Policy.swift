/// Why an app is covered. Raw values are the `reason` strings of the contract;
/// declaration order is the display precedence.
public enum ShieldReason: String, Sendable, CaseIterable, Comparable {
    case timedBlock = "timed-block"
    case schedule
    case dailyLimit = "daily-limit"
    /// Over `opens-per-day`: until the next local midnight.
    case opensCap = "opens-cap"
    case balance
    /// An open's countdown, or its unanswered end: `until` is the countdown's end.
    case pause

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
    /// nil when only earning lifts it. A pause lifts only when answered: its
    /// `until` is the countdown's end (the cover's "Open" is enabled then),
    /// which may have passed; under other rules, the later of theirs and it.
    public var until: WallInstant?
    /// The site covered, when the window is a browser tab that is in its
    /// groups by its site: the browser extension covers that tab, not the window.
    public var site: String? = nil
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
    /// Opens and passes; its `day` must be the local day of `now` for the
    /// opens cap to count (an empty book of any day: no opens, no passes).
    public var opens: OpenBook

    public init(balance: Milliseconds, usedToday: [String: Milliseconds] = [:], timedBlocks: [TimedBlock] = [],
                opens: OpenBook = .empty) {
        self.balance = balance
        self.usedToday = Dictionary(usedToday.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: +)
        self.timedBlocks = timedBlocks
        self.opens = opens
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

        let hard = rules.active(at: now)
        let pause = pauseCover(config: config, groups: groups, book: ledger.opens, now: now)
        let active = hard + (pause.map { [$0] } ?? [])
        guard let shown = active.min(by: { $0.reason < $1.reason }) else {
            return Decision(groups: groups.map(\.name), metered: metered, shield: nil)
        }
        let reasons = Set(active.map(\.reason)).sorted()
        let until: WallInstant?
        switch (hard.isEmpty, pause?.end) {
        case (true, let countdownEnd): until = countdownEnd
        case (false, nil): until = liftInstant(rules: rules, from: now)
        // Under other rules too: nothing lifts before the countdown's end.
        case (false, let countdownEnd?): until = liftInstant(rules: rules, from: now).map { max($0, countdownEnd) }
        }
        var shield = Shield(reason: shown.reason, reasons: reasons, app: window.app, group: shown.group, until: until)
        if let site = window.tab?.site, groups.contains(where: { $0.sites.contains { $0.matches(site: site) } }) {
            shield.site = site
        }
        return Decision(groups: groups.map(\.name), metered: metered, shield: shield)
    }

    /// An unanswered open of a group in front covers it (but not while a
    /// pass of it runs); of several, the one whose countdown ends last.
    static func pauseCover(config: Config, groups: [AppGroup], book: OpenBook, now: WallInstant) -> HardRules.Active? {
        groups.compactMap { group -> HardRules.Active? in
            let key = group.name.lowercased()
            guard let open = book.latest[key], open.outcome == .pausing, book.runningPass(key, at: now) == nil
            else { return nil }
            let countdown = config.pauseRule(for: group)?.seconds ?? 0
            return HardRules.Active(reason: .pause, group: group.name, end: open.at + countdown)
        }.max { $0.end! < $1.end! }
    }

    /// Follows the hard rules forward: while any rule is active at t, jump to
    /// the latest end among them. A rule with no end (the balance) never
    /// ends by itself; a pass that ends may start rules again.
    static func liftInstant(rules: HardRules, from now: WallInstant) -> WallInstant? {
        var t = now
        while true {
            let active = rules.active(at: t)
            if active.isEmpty { return t }
            guard !active.contains(where: { $0.end == nil }), let end = active.compactMap(\.end).max(), end > t,
                  end - now <= chainHorizon else { return nil }
            t = end
        }
    }
}

/// The rules that cover one window whatever the user answers: timed blocks,
/// schedules, daily limits, the opens cap and the balance, each but the
/// balance lifted for a group while a pass of it runs.
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
        let book = ledger.opens
        // Almost always no pass: then nothing to look up per group.
        let passed: Set<String> = book.passes.isEmpty ? []
            : Set(groups.map { $0.name.lowercased() }.filter { book.runningPass($0, at: t) != nil })
        // Almost always no timed block: then no set of names to build.
        if !ledger.timedBlocks.isEmpty {
            let names = Set(groups.map { $0.name.lowercased() })
            // A block of the app itself belongs to no group: only a pass of every group of the window lifts it.
            let appBlockLifted = !groups.isEmpty && passed.count == names.count
            for block in ledger.timedBlocks where block.until > t {
                let lifted = names.contains(block.target) ? passed.contains(block.target) : appBlockLifted
                guard !lifted, names.contains(block.target) || window.identifiers.contains(block.target) else { continue }
                let group = groups.first { $0.name.lowercased() == block.target }?.name
                found.append(Active(reason: .timedBlock, group: group, end: block.until))
            }
        }
        // Worked out only for a rule that ends at midnight: most ticks have none.
        func untilMidnight(_ reason: ShieldReason, _ group: AppGroup) {
            guard zone.localDate(at: t) == today else { return }
            found.append(Active(reason: reason, group: group.name, end: zone.startOfDay(today.adding(days: 1))))
        }
        for group in groups where !passed.contains(group.name.lowercased()) {
            for schedule in group.schedules {
                if let end = schedule.occurrence(containing: t, in: zone)?.end {
                    found.append(Active(reason: .schedule, group: group.name, end: end))
                }
            }
            if let limit = group.dailyLimit, ledger.used(group.name) >= limit { untilMidnight(.dailyLimit, group) }
            if book.day == today, book.cappedToday.contains(group.name.lowercased()) { untilMidnight(.opensCap, group) }
        }
        // A window in a passed group and in a metered one without a pass is still the latter's.
        if ledger.balance <= 0, groups.contains(where: { $0.metered && !passed.contains($0.name.lowercased()) }) {
            found.append(Active(reason: .balance, group: nil, end: nil))
        }
        return found
    }
}

extension OpenBook {
    /// No opens and no passes (of a day that does not matter then).
    public static let empty = OpenBook(day: CivilDate(year: 1970, month: 1, day: 1))
}
