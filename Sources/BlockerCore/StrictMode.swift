/// `[strict] delay`: in strict mode a config change that loosens waits that
/// long; one that tightens applies at once.
public struct StrictSettings: Sendable, Equatable {
    /// nil = strict mode off: every change applies at once.
    public var delay: Milliseconds?

    public init(delay: Milliseconds? = nil) { self.delay = delay }

    /// The shortest delay accepted: short enough for a test to wait it out,
    /// long enough to be a delay. (A real one is hours: "24h".)
    public static let minimumDelay: Milliseconds = 1000
    /// 30 days: past that a typo would lock a config for months.
    public static let maximumDelay: Milliseconds = .days(30)
}

/// One part of a config change, as `blockerctl config pending` shows it.
public struct ConfigChange: Sendable, Equatable, CustomStringConvertible {
    /// Where, as a key path: `group "social".daily-limit`, `earn.pushups`.
    public var key: String
    /// The value in force and the one wanted, in words.
    public var from: String
    public var to: String

    public init(_ key: String, from: String, to: String) {
        self.key = key
        self.from = from
        self.to = to
    }

    public var description: String { "\(key): \(from) → \(to)" }
}

/// How a new config compares with the one in force, key by key.
public struct StrictComparison: Sendable {
    /// The config in force with every tightening of `wanted` applied (and
    /// every loosening left out): what applies at once in strict mode.
    public var tightened: Config
    /// What applies at once.
    public var tightening: [ConfigChange]
    /// What waits for the delay.
    public var loosening: [ConfigChange]
}

/// The strict-mode rule, pure: which parts of a config change tighten and
/// which loosen. The README's table lists the same rules; each has a test.
///
/// Tightening means more time is counted or covered: a lower limit, a new
/// rule, more apps. Anything that cannot be ordered (a different probe) loosens,
/// since it could be used to blind blockerd.
public enum StrictRules {
    public static func compare(running a: Config, wanted b: Config) -> StrictComparison {
        var merged = a
        var tight: [ConfigChange] = []
        var loose: [ConfigChange] = []
        /// Takes `bValue` when `bIsTighter`, else keeps `aValue`; records the change.
        func pick<T: Equatable>(_ key: String, _ aValue: T, _ bValue: T, tighter bIsTighter: Bool,
                                _ show: (T) -> String) -> T {
            guard aValue != bValue else { return aValue }
            let change = ConfigChange(key, from: show(aValue), to: show(bValue))
            if bIsTighter { tight.append(change); return bValue }
            loose.append(change)
            return aValue
        }

        // [daemon]: a different probe or polling could hide the window in front.
        merged.daemon.probe = pick("daemon.probe", a.daemon.probe, b.daemon.probe, tighter: false) { "\"\($0.rawValue)\"" }
        merged.daemon.pollInterval = pick("daemon.poll-interval", a.daemon.pollInterval, b.daemon.pollInterval,
                                          tighter: false, DurationText.format)
        merged.daemon.probeCommand = pick("daemon.probe-command", a.daemon.probeCommand, b.daemon.probeCommand,
                                          tighter: false) { $0.isEmpty ? "none" : $0.joined(separator: " ") }
        merged.daemon.probeCommandMode = pick("daemon.probe-command-mode", a.daemon.probeCommandMode,
                                              b.daemon.probeCommandMode, tighter: false) { $0.rawValue }
        // idle-after: longer or none means more idle time is spent.
        merged.daemon.idleAfter = pick("daemon.idle-after", a.daemon.idleAfter, b.daemon.idleAfter,
                                       tighter: isLower(a.daemon.idleAfter, than: b.daemon.idleAfter), showOptional)
        // time-zone: another zone is another "today" for daily limits and schedules.
        merged.daemon.timeZone = pick("daemon.time-zone", a.daemon.timeZone, b.daemon.timeZone, tighter: false) {
            $0.map { "\"\($0)\"" } ?? "the system's"
        }

        // [earn]: fewer minutes per rep, or an exercise gone, tightens.
        var exercises: [Exercise] = []
        for old in a.exercises {
            guard let new = b.exercise(named: old.name) else {
                tight.append(ConfigChange("earn.\(old.name)", from: minutes(old.perRep), to: "removed"))
                continue
            }
            let rate = pick("earn.\(old.name)", old.perRep, new.perRep, tighter: new.perRep < old.perRep, minutes)
            exercises.append(Exercise(name: old.name, perRep: rate))
        }
        for new in b.exercises where a.exercise(named: new.name) == nil {
            loose.append(ConfigChange("earn.\(new.name)", from: "none", to: minutes(new.perRep)))
        }
        merged.exercises = exercises
        merged.earnLimits.maxPerDay = pick("earn.max-per-day", a.earnLimits.maxPerDay, b.earnLimits.maxPerDay,
                                           tighter: isLower(b.earnLimits.maxPerDay, than: a.earnLimits.maxPerDay), showOptional)
        merged.earnLimits.minGap = pick("earn.min-gap", a.earnLimits.minGap, b.earnLimits.minGap,
                                        tighter: isLonger(b.earnLimits.minGap, than: a.earnLimits.minGap), showOptional)

        // [warn]: a warning gone loosens; a new one tightens.
        let warnings = union(a.warnBefore, b.warnBefore)
        for gone in a.warnBefore where !b.warnBefore.contains(gone) {
            loose.append(ConfigChange("warn.before", from: DurationText.format(gone), to: "removed"))
        }
        for added in b.warnBefore where !a.warnBefore.contains(added) {
            tight.append(ConfigChange("warn.before", from: "none", to: DurationText.format(added)))
        }
        merged.warnBefore = warnings.sorted(by: >)

        // [cover]: switching a guard off loosens.
        merged.cover.pauseMedia = pick("cover.pause-media", a.cover.pauseMedia, b.cover.pauseMedia,
                                       tighter: b.cover.pauseMedia) { "\($0)" }
        merged.cover.mute = pick("cover.mute", a.cover.mute, b.cover.mute, tighter: b.cover.mute) { "\($0)" }

        // [strict]: a shorter delay, or none, is itself delayed.
        merged.strict.delay = pick("strict.delay", a.strict.delay, b.strict.delay,
                                   tighter: isLonger(b.strict.delay, than: a.strict.delay), showOptional)

        // [pass]: fewer or shorter passes, or none, tighten.
        switch (a.pass, b.pass) {
        case (nil, nil): break
        case (let old?, nil):
            tight.append(ConfigChange("pass", from: describe(old), to: "removed"))
            merged.pass = nil
        case (nil, let new?):
            loose.append(ConfigChange("pass", from: "none", to: describe(new)))
        case (let old?, let new?):
            merged.pass?.perWeek = pick("pass.per-week", old.perWeek, new.perWeek, tighter: new.perWeek < old.perWeek) { "\($0)" }
            merged.pass?.length = pick("pass.length", old.length, new.length, tighter: new.length < old.length,
                                       DurationText.format)
        }

        // [sync]: another folder (or none) could leave the other machines'
        // spending and blocks behind: any change waits.
        merged.sync = pick("sync.folder", a.sync, b.sync, tighter: false) { $0.map { "\"\($0.folder)\"" } ?? "none" }

        // [[group]]; [pause] is compared through the groups it reaches (merged keeps a's).
        var groups: [AppGroup] = []
        for old in a.groups {
            guard let new = b.group(named: old.name) else {
                loose.append(ConfigChange("group \"\(old.name)\"", from: "apps \(old.apps.joined(separator: ", "))", to: "removed"))
                groups.append(old)
                continue
            }
            var group = mergeGroup(old, new, &tight, &loose)
            group.pause = mergePause(running: (a, old), wanted: (b, new), &tight, &loose)
            groups.append(group)
        }
        for new in b.groups where a.group(named: new.name) == nil {
            tight.append(ConfigChange("group \"\(new.name)\"", from: "none", to: "added"))
            for app in new.apps { tight.append(ConfigChange("group \"\(new.name)\".apps", from: "none", to: "added \(app)")) }
            var added = new
            // Its pause as b has it, whatever the [pause] in force.
            if a.resolvedPause(for: new) != b.resolvedPause(for: new) { added.pause = explicit(b.resolvedPause(for: new)) }
            groups.append(added)
        }
        // A window is metered or not: an app the merge keeps metered cannot be
        // in an unmetered group too (it was moved there: that waits).
        let meteredApps = Set(groups.filter(\.metered).flatMap(\.apps))
        for index in groups.indices where !groups[index].metered {
            let key = "group \"\(groups[index].name)\".apps"
            for app in groups[index].apps where meteredApps.contains(app) {
                tight.removeAll { $0.key == key && $0.to == "added \(app)" }
                loose.append(ConfigChange(key, from: "metered in another group", to: "added \(app)"))
            }
            groups[index].apps.removeAll { meteredApps.contains($0) }
        }
        merged.groups = groups.filter { !$0.apps.isEmpty || !$0.sites.isEmpty }
        return StrictComparison(tightened: merged, tightening: tight, loosening: loose)
    }

    private static func mergeGroup(_ a: AppGroup, _ b: AppGroup, _ tight: inout [ConfigChange],
                                   _ loose: inout [ConfigChange]) -> AppGroup {
        let key = "group \"\(a.name)\""
        var merged = a
        // apps: added tightens, removed loosens.
        for app in b.apps where !a.apps.contains(app) {
            tight.append(ConfigChange(key + ".apps", from: "none", to: "added \(app)"))
            merged.apps.append(app)
        }
        for app in a.apps where !b.apps.contains(app) {
            loose.append(ConfigChange(key + ".apps", from: app, to: "removed"))
        }
        // sites: the same.
        for site in b.sites where !a.sites.contains(site) {
            tight.append(ConfigChange(key + ".sites", from: "none", to: "added \(site)"))
            merged.sites.append(site)
        }
        for site in a.sites where !b.sites.contains(site) {
            loose.append(ConfigChange(key + ".sites", from: "\(site)", to: "removed"))
        }
        // titles: none means every window of the apps counts. A title set
        // where there were none, or one removed from a list, narrows the group.
        let aTitles = a.titles.map(\.source), bTitles = b.titles.map(\.source)
        if aTitles != bTitles {
            if bTitles.isEmpty {
                tight.append(ConfigChange(key + ".titles", from: aTitles.joined(separator: ", "), to: "none (every window)"))
                merged.titles = []
            } else if aTitles.isEmpty {
                loose.append(ConfigChange(key + ".titles", from: "none (every window)", to: bTitles.joined(separator: ", ")))
            } else {
                for title in aTitles where !bTitles.contains(title) {
                    loose.append(ConfigChange(key + ".titles", from: title, to: "removed"))
                }
                for (index, title) in bTitles.enumerated() where !aTitles.contains(title) {
                    tight.append(ConfigChange(key + ".titles", from: "none", to: "added \(title)"))
                    merged.titles.append(b.titles[index])
                }
            }
        }
        // metered: true → false loosens.
        if a.metered != b.metered {
            let change = ConfigChange(key + ".metered", from: "\(a.metered)", to: "\(b.metered)")
            if b.metered { tight.append(change); merged.metered = true } else { loose.append(change) }
        }
        // daily-limit: lower or new tightens.
        if a.dailyLimit != b.dailyLimit {
            let change = ConfigChange(key + ".daily-limit", from: showOptional(a.dailyLimit), to: showOptional(b.dailyLimit))
            if isLower(b.dailyLimit, than: a.dailyLimit) { tight.append(change); merged.dailyLimit = b.dailyLimit }
            else { loose.append(change) }
        }
        // schedules: a new one tightens; one removed (or changed: the old one) loosens.
        for schedule in b.schedules where !a.schedules.contains(schedule) {
            tight.append(ConfigChange(key + ".schedule", from: "none", to: describe(schedule)))
            merged.schedules.append(schedule)
        }
        for schedule in a.schedules where !b.schedules.contains(schedule) {
            loose.append(ConfigChange(key + ".schedule", from: describe(schedule), to: "removed"))
        }
        // opens-per-day: lower or new tightens.
        if a.opensPerDay != b.opensPerDay {
            let change = ConfigChange(key + ".opens-per-day", from: a.opensPerDay.map(String.init) ?? "none",
                                      to: b.opensPerDay.map(String.init) ?? "none")
            if isLower(b.opensPerDay, than: a.opensPerDay) { tight.append(change); merged.opensPerDay = b.opensPerDay }
            else { loose.append(change) }
        }
        return merged
    }

    /// The pause a group keeps in the merge, compared as it applies to the
    /// group (`[group.pause]` over `[pause]` over the defaults): a longer
    /// countdown (none is 0), a shorter `after`, `ask-reason` false → true
    /// tighten. A key is named where it changed: `group "social".pause.seconds`
    /// when the group's own table sets it (or the table comes or goes),
    /// `pause.seconds` once for every group it reaches through `[pause]`.
    /// Unchanged in effect, the group keeps its table (over the `[pause]` in
    /// force, a's); changed, it gets every key written out.
    private static func mergePause(running a: (config: Config, group: AppGroup), wanted b: (config: Config, group: AppGroup),
                                   _ tight: inout [ConfigChange], _ loose: inout [ConfigChange]) -> PauseSettings? {
        let old = a.config.resolvedPause(for: a.group), new = b.config.resolvedPause(for: b.group)
        guard old != new else { return a.group.pause }
        let tableChanged = (a.group.pause == nil) != (b.group.pause == nil)
        func note<T: Equatable>(_ key: String, _ own: (PauseSettings) -> T?, _ from: T, _ to: T, tighter: Bool,
                                _ show: (T) -> String) -> T {
            guard from != to else { return from }
            let ownKey = tableChanged || [a.group.pause, b.group.pause].contains { $0.flatMap(own) != nil }
            let change = ConfigChange((ownKey ? "group \"\(a.group.name)\".pause." : "pause.") + key,
                                      from: show(from), to: show(to))
            if tighter {
                if !tight.contains(change) { tight.append(change) }
                return to
            }
            if !loose.contains(change) { loose.append(change) }
            return from
        }
        let countdown = { (ms: Milliseconds) in ms > 0 ? DurationText.format(ms) : "none" }
        let merged = PauseRule(
            seconds: note("seconds", \.seconds, old.seconds, new.seconds, tighter: new.seconds > old.seconds, countdown),
            after: note("after", \.after, old.after, new.after, tighter: new.after < old.after, DurationText.format),
            askReason: note("ask-reason", \.askReason, old.askReason, new.askReason, tighter: new.askReason) { "\($0)" })
        return merged == old ? a.group.pause : explicit(merged)
    }

    /// A `[group.pause]` that sets every key: `rule` whatever `[pause]` says.
    private static func explicit(_ rule: PauseRule) -> PauseSettings {
        PauseSettings(seconds: rule.seconds, after: rule.after, askReason: rule.askReason)
    }

    /// `value` is a lower limit than `other`, nil being no limit (infinite).
    static func isLower<T: Comparable>(_ value: T?, than other: T?) -> Bool {
        guard let value else { return false }
        guard let other else { return true }
        return value < other
    }

    /// `value` is a longer spacing than `other`, nil being none (zero).
    static func isLonger(_ value: Milliseconds?, than other: Milliseconds?) -> Bool {
        guard let value else { return false }
        guard let other else { return true }
        return value > other
    }

    private static func union(_ a: [Milliseconds], _ b: [Milliseconds]) -> [Milliseconds] {
        a + b.filter { !a.contains($0) }
    }

    static func showOptional(_ ms: Milliseconds?) -> String { ms.map(DurationText.format) ?? "none" }

    static func minutes(_ perRep: Milliseconds) -> String { "\(DurationText.format(perRep)) a rep" }

    static func describe(_ pass: PassRule) -> String {
        "per-week \(pass.perWeek), length \(DurationText.format(pass.length))"
    }

    static func describe(_ schedule: Schedule) -> String {
        let days = (1...7).filter { schedule.days.contains(isoWeekday: $0) }.map(CivilDate.weekdayName).joined(separator: ",")
        func hhmm(_ minutes: Int) -> String { ClockText.hoursMinutes(secondOfDay: minutes * 60) }
        switch schedule.span {
        case .allDay: return "\(days) all day"
        case let .between(from, to): return "\(days) \(hhmm(from))–\(hhmm(to))"
        }
    }
}

/// The config versions strict mode keeps, and the config in force they make.
public enum StrictHistory {
    public struct Version: Sendable {
        public var config: Config
        public var applyAt: WallInstant
        public var cancelled: Bool
        public init(config: Config, applyAt: WallInstant, cancelled: Bool = false) {
            self.config = config
            self.applyAt = applyAt
            self.cancelled = cancelled
        }
    }

    /// The base: the newest version whose instant has passed and that was not
    /// cancelled (the first one otherwise). Versions before it are history.
    public static func baseIndex(_ versions: [Version], now: WallInstant) -> Int {
        versions.indices.last { versions[$0].applyAt <= now && !versions[$0].cancelled } ?? 0
    }

    /// The config in force at `now`: the base with the tightenings of every
    /// later version (their loosenings wait for their own instants).
    public static func inForce(_ versions: [Version], now: WallInstant) -> Config? {
        guard !versions.isEmpty else { return nil }
        let base = baseIndex(versions, now: now)
        var config = versions[base].config
        for version in versions[(base + 1)...] {
            config = StrictRules.compare(running: config, wanted: version.config).tightened
        }
        return config
    }

    /// The next instant a waiting version applies.
    public static func nextApply(_ versions: [Version], now: WallInstant) -> WallInstant? {
        let base = baseIndex(versions, now: now)
        return versions.dropFirst(base + 1).filter { !$0.cancelled && $0.applyAt > now }.map(\.applyAt).min()
    }
}
