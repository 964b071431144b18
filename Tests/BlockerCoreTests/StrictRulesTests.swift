import Testing
@testable import BlockerCore

/// The strict-mode table, rule by rule: what tightens applies at once (the
/// merged config takes the new value), what loosens waits (it keeps the old).
@Suite struct StrictRulesTests {
    let h: Milliseconds = 3_600_000
    let m: Milliseconds = 60_000

    func group(_ name: String = "social", apps: [String] = ["discord"], titles: [String] = [], metered: Bool = true,
               limit: Milliseconds? = nil, schedules: [Schedule] = []) -> AppGroup {
        AppGroup(name: name, apps: apps, titles: titles.map { try! TitlePattern($0) }, metered: metered,
                 dailyLimit: limit, schedules: schedules)
    }

    func config(_ change: (inout Config) -> Void) -> Config {
        var config = Config(exercises: [Exercise(name: "pushups", perRep: 30_000)], warnBefore: [5 * m],
                            groups: [group()])
        change(&config)
        return config
    }

    /// The keys that tightened and loosened from `a` to `b`, and the merge.
    func compare(_ a: Config, _ b: Config) -> (tight: [String], loose: [String], merged: Config) {
        let result = StrictRules.compare(running: a, wanted: b)
        return (result.tightening.map(\.key), result.loosening.map(\.key), result.tightened)
    }

    @Test func noChangeIsNoChange() {
        let r = compare(config { _ in }, config { _ in })
        #expect(r.tight.isEmpty && r.loose.isEmpty)
    }

    @Test func anyProbeOrPollingChangeLoosens() {
        let base = config { _ in }
        let changes: [(String, (inout Config) -> Void)] = [
            ("daemon.probe", { $0.daemon.probe = .x11 }),
            ("daemon.poll-interval", { $0.daemon.pollInterval = 500 }),     // faster is still a change of the probe's view
            ("daemon.poll-interval", { $0.daemon.pollInterval = 5000 }),
            ("daemon.probe-command", { $0.daemon.probeCommand = ["/bin/true"] }),
            ("daemon.probe-command-mode", { $0.daemon.probeCommandMode = .stream }),
            ("daemon.time-zone", { $0.daemon.timeZone = "Etc/GMT-14" }),       // another "today"
        ]
        for (key, change) in changes {
            let r = compare(base, config(change))
            #expect(r.loose == [key] && r.tight.isEmpty, "\(key)")
            #expect(r.merged.daemon == base.daemon, "\(key)")
        }
    }

    @Test func idleAfterLongerOrRemovedTightensShorterOrAddedLoosens() {
        let ten = config { $0.daemon.idleAfter = 10 * m }
        #expect(compare(ten, config { $0.daemon.idleAfter = 20 * m }).tight == ["daemon.idle-after"])
        #expect(compare(ten, config { $0.daemon.idleAfter = 20 * m }).merged.daemon.idleAfter == 20 * m)
        #expect(compare(ten, config { $0.daemon.idleAfter = nil }).tight == ["daemon.idle-after"])
        #expect(compare(ten, config { $0.daemon.idleAfter = nil }).merged.daemon.idleAfter == nil)
        #expect(compare(ten, config { $0.daemon.idleAfter = 5 * m }).loose == ["daemon.idle-after"])
        #expect(compare(ten, config { $0.daemon.idleAfter = 5 * m }).merged.daemon.idleAfter == 10 * m)
        #expect(compare(config { _ in }, ten).loose == ["daemon.idle-after"])
    }

    @Test func aLowerRateOrARemovedExerciseTightensAHigherOrANewOneLoosens() {
        let base = config { _ in }
        let lower = compare(base, config { $0.exercises = [Exercise(name: "pushups", perRep: 15_000)] })
        #expect(lower.tight == ["earn.pushups"] && lower.merged.exercises == [Exercise(name: "pushups", perRep: 15_000)])
        let higher = compare(base, config { $0.exercises = [Exercise(name: "pushups", perRep: 60_000)] })
        #expect(higher.loose == ["earn.pushups"] && higher.merged.exercises == base.exercises)
        let added = compare(base, config { $0.exercises.append(Exercise(name: "squats", perRep: 30_000)) })
        #expect(added.loose == ["earn.squats"] && added.merged.exercises == base.exercises)
        let removed = compare(base, config { $0.exercises = [] })
        #expect(removed.tight == ["earn.pushups"] && removed.merged.exercises.isEmpty)
    }

    @Test func maxPerDayLowerOrAddedTightensHigherOrRemovedLoosens() {
        let two = config { $0.earnLimits.maxPerDay = 2 * h }
        #expect(compare(two, config { $0.earnLimits.maxPerDay = h }).tight == ["earn.max-per-day"])
        #expect(compare(two, config { $0.earnLimits.maxPerDay = h }).merged.earnLimits.maxPerDay == h)
        #expect(compare(config { _ in }, two).tight == ["earn.max-per-day"])
        #expect(compare(two, config { $0.earnLimits.maxPerDay = 3 * h }).loose == ["earn.max-per-day"])
        #expect(compare(two, config { $0.earnLimits.maxPerDay = nil }).loose == ["earn.max-per-day"])
        #expect(compare(two, config { $0.earnLimits.maxPerDay = nil }).merged.earnLimits.maxPerDay == 2 * h)
    }

    @Test func minGapLongerOrAddedTightensShorterOrRemovedLoosens() {
        let one = config { $0.earnLimits.minGap = m }
        #expect(compare(one, config { $0.earnLimits.minGap = 5 * m }).tight == ["earn.min-gap"])
        #expect(compare(config { _ in }, one).tight == ["earn.min-gap"])
        #expect(compare(one, config { $0.earnLimits.minGap = 30_000 }).loose == ["earn.min-gap"])
        #expect(compare(one, config { $0.earnLimits.minGap = nil }).loose == ["earn.min-gap"])
        #expect(compare(one, config { $0.earnLimits.minGap = nil }).merged.earnLimits.minGap == m)
    }

    @Test func aWarningRemovedLoosensOneAddedTightens() {
        let base = config { _ in }
        let removed = compare(base, config { $0.warnBefore = [] })
        #expect(removed.loose == ["warn.before"] && removed.merged.warnBefore == [5 * m])
        let added = compare(base, config { $0.warnBefore = [5 * m, m] })
        #expect(added.tight == ["warn.before"] && added.merged.warnBefore == [5 * m, m])
    }

    @Test func switchingACoverGuardOffLoosens() {
        let base = config { _ in }
        #expect(compare(base, config { $0.cover.mute = false }).loose == ["cover.mute"])
        #expect(compare(base, config { $0.cover.pauseMedia = false }).loose == ["cover.pause-media"])
        #expect(compare(base, config { $0.cover.mute = false }).merged.cover.mute)
        #expect(compare(config { $0.cover.mute = false }, base).tight == ["cover.mute"])
    }

    @Test func aShorterOrNoStrictDelayIsItselfDelayed() {
        let day = config { $0.strict.delay = 24 * h }
        #expect(compare(day, config { $0.strict.delay = h }).loose == ["strict.delay"])
        #expect(compare(day, config { $0.strict.delay = nil }).loose == ["strict.delay"])
        #expect(compare(day, config { $0.strict.delay = nil }).merged.strict.delay == 24 * h)
        #expect(compare(day, config { $0.strict.delay = 48 * h }).tight == ["strict.delay"])
        #expect(compare(config { _ in }, day).tight == ["strict.delay"])
    }

    @Test func aGroupRemovedLoosensOneAddedTightens() {
        let base = config { _ in }
        let removed = compare(base, config { $0.groups = [] })
        #expect(removed.loose == ["group \"social\""] && removed.merged.groups.map(\.name) == ["social"])
        let added = compare(base, config { $0.groups.append(group("video", apps: ["firefox"])) })
        #expect(added.tight == ["group \"video\"", "group \"video\".apps"] && added.loose.isEmpty)
        #expect(added.merged.groups.map(\.name) == ["social", "video"])
    }

    @Test func anAppRemovedLoosensOneAddedTightens() {
        let base = config { $0.groups = [group(apps: ["discord", "slack"])] }
        let removed = compare(base, config { $0.groups = [group(apps: ["discord"])] })
        #expect(removed.loose == ["group \"social\".apps"] && removed.merged.groups[0].apps == ["discord", "slack"])
        let added = compare(base, config { $0.groups = [group(apps: ["discord", "slack", "signal"])] })
        #expect(added.tight == ["group \"social\".apps"] && added.merged.groups[0].apps == ["discord", "slack", "signal"])
    }

    @Test func aSiteAddedTightensASiteRemovedLoosens() {
        func sites(_ list: [String]) -> Config {
            config { $0.groups = [AppGroup(name: "social", apps: [], sites: list.map { SitePattern($0)! })] }
        }
        let key = "group \"social\".sites"
        let added = compare(sites(["youtube.com"]), sites(["youtube.com", "*.twitch.tv"]))
        #expect(added.tight == [key] && added.loose.isEmpty)
        #expect(added.merged.groups[0].sites.map(\.description) == ["youtube.com", "*.twitch.tv"])
        let removed = compare(sites(["youtube.com", "reddit.com"]), sites(["youtube.com"]))
        #expect(removed.loose == [key] && removed.tight.isEmpty)
        #expect(removed.merged.groups[0].sites.map(\.description) == ["youtube.com", "reddit.com"])
        // A group of sites only is kept by the merge (it has no apps).
        #expect(compare(sites(["youtube.com"]), sites(["youtube.com"])).merged.groups.count == 1)
    }

    @Test func titlesThatNarrowTheGroupLoosenTitlesThatWidenItTighten() {
        func titles(_ list: [String]) -> Config { config { $0.groups = [group(titles: list)] } }
        func merged(_ r: (tight: [String], loose: [String], merged: Config)) -> [String] { r.merged.groups[0].titles.map(\.source) }
        let key = "group \"social\".titles"
        let set = compare(titles([]), titles(["YouTube"]))             // every window → only YouTube's
        #expect(set.loose == [key] && merged(set).isEmpty)
        let removed = compare(titles(["YouTube", "Twitch"]), titles(["YouTube"]))
        #expect(removed.loose == [key] && merged(removed) == ["YouTube", "Twitch"])
        let cleared = compare(titles(["YouTube"]), titles([]))         // → every window
        #expect(cleared.tight == [key] && merged(cleared).isEmpty)
        let added = compare(titles(["YouTube"]), titles(["YouTube", "Twitch"]))
        #expect(added.tight == [key] && merged(added) == ["YouTube", "Twitch"])
    }

    @Test func meteredTrueToFalseLoosens() {
        let base = config { _ in }
        let off = compare(base, config { $0.groups = [group(metered: false)] })
        #expect(off.loose == ["group \"social\".metered"] && off.merged.groups[0].metered)
        let on = compare(config { $0.groups = [group(metered: false)] }, base)
        #expect(on.tight == ["group \"social\".metered"] && on.merged.groups[0].metered)
    }

    @Test func aDailyLimitLowerOrAddedTightensHigherOrRemovedLoosens() {
        let hour = config { $0.groups = [group(limit: h)] }
        let key = ["group \"social\".daily-limit"]
        #expect(compare(hour, config { $0.groups = [group(limit: 30 * m)] }).tight == key)
        #expect(compare(hour, config { $0.groups = [group(limit: 30 * m)] }).merged.groups[0].dailyLimit == 30 * m)
        #expect(compare(config { _ in }, hour).tight == key)
        #expect(compare(hour, config { $0.groups = [group(limit: 2 * h)] }).loose == key)
        #expect(compare(hour, config { $0.groups = [group(limit: 2 * h)] }).merged.groups[0].dailyLimit == h)
        #expect(compare(hour, config { $0.groups = [group()] }).loose == key)
    }

    @Test func aScheduleAddedTightensOneRemovedOrChangedLoosens() {
        let bedtime = Schedule(days: .all, span: .between(from: 22 * 60 + 30, to: 7 * 60))
        let later = Schedule(days: .all, span: .between(from: 23 * 60, to: 7 * 60))
        let key = "group \"social\".schedule"
        let added = compare(config { _ in }, config { $0.groups = [group(schedules: [bedtime])] })
        #expect(added.tight == [key] && added.merged.groups[0].schedules == [bedtime])
        let removed = compare(config { $0.groups = [group(schedules: [bedtime])] }, config { _ in })
        #expect(removed.loose == [key] && removed.merged.groups[0].schedules == [bedtime])
        // Changed: the new window applies at once, the old one stays until the delay.
        let changed = compare(config { $0.groups = [group(schedules: [bedtime])] }, config { $0.groups = [group(schedules: [later])] })
        #expect(changed.tight == [key] && changed.loose == [key])
        #expect(changed.merged.groups[0].schedules == [bedtime, later])
        #expect(StrictRules.compare(running: config { $0.groups = [group(schedules: [bedtime])] }, wanted: config { _ in })
            .loosening.map(\.description) == ["group \"social\".schedule: Mon,Tue,Wed,Thu,Fri,Sat,Sun 22:30–07:00 → removed"])
    }

    @Test func anAppMovedOutOfMeteringWaits() {
        // discord leaves the metered group for a new unmetered one.
        let base = config { $0.groups = [group(apps: ["discord", "slack"])] }
        let moved = config { $0.groups = [group(apps: ["slack"]), group("chat", apps: ["discord"], metered: false)] }
        let r = compare(base, moved)
        #expect(r.loose.contains("group \"social\".apps") && r.loose.contains("group \"chat\".apps"))
        #expect(!r.tight.contains("group \"chat\".apps"))
        #expect(r.merged.groups.map(\.name) == ["social"])          // chat has no app left yet
        #expect(r.merged.groups[0].apps == ["discord", "slack"])
    }
}

/// Issue 20, row 14: `compare` starts from the config in force and handles
/// fields one by one, so a field it forgets would be neither a tightening nor a
/// loosening: a new key would bypass strict mode. `Mirror` lists every stored
/// field of `Config` (through its settings structs and the elements of its
/// arrays); each must have a change below, and each change must be seen.
@Suite struct StrictRulesCoverEveryFieldTests {
    static let m: Milliseconds = 60_000

    /// One change per field, by its Swift path (`[]`: every element).
    static let changes: [String: @Sendable (inout Config) -> Void] = [
        "daemon.probe": { $0.daemon.probe = .x11 },
        "daemon.pollInterval": { $0.daemon.pollInterval = 5000 },
        "daemon.probeCommand": { $0.daemon.probeCommand = ["/bin/true"] },
        "daemon.probeCommandMode": { $0.daemon.probeCommandMode = .stream },
        "daemon.idleAfter": { $0.daemon.idleAfter = 20 * m },
        "daemon.timeZone": { $0.daemon.timeZone = "Etc/GMT-14" },
        "exercises[].name": { $0.exercises[0].name = "squats" },
        "exercises[].perRep": { $0.exercises[0].perRep = 10_000 },
        "warnBefore": { $0.warnBefore = [2 * m] },
        "groups[].name": { $0.groups[0].name = "games" },
        "groups[].apps": { $0.groups[0].apps = ["discord", "slack"] },
        "groups[].titles": { $0.groups[0].titles = [try! TitlePattern("YouTube")] },
        "groups[].sites": { $0.groups[0].sites = [SitePattern("youtube.com")!] },
        "groups[].metered": { $0.groups[0].metered = false },
        "groups[].dailyLimit": { $0.groups[0].dailyLimit = 30 * m },
        "groups[].schedules": { $0.groups[0].schedules = [Schedule(days: .all, span: .between(from: 60, to: 120))] },
        "cover.pauseMedia": { $0.cover.pauseMedia = false },
        "cover.mute": { $0.cover.mute = false },
        "earnLimits.maxPerDay": { $0.earnLimits.maxPerDay = 30 * m },
        "earnLimits.minGap": { $0.earnLimits.minGap = 5 * m },
        "strict.delay": { $0.strict.delay = 3_600_000 },
        "pause.seconds": { $0.pause?.seconds = .seconds(30) },
        "pause.after": { $0.pause?.after = 5 * m },
        "pause.askReason": { $0.pause?.askReason = true },
        "pass.perWeek": { $0.pass?.perWeek = 2 },
        "pass.length": { $0.pass?.length = 30 * m },
        "sync.folder": { $0.sync?.folder = "/elsewhere" },
        "groups[].opensPerDay": { $0.groups[0].opensPerDay = 3 },
        "groups[].pause.seconds": { $0.groups[0].pause?.seconds = .seconds(60) },
        "groups[].pause.after": { $0.groups[0].pause?.after = 0 },
        "groups[].pause.askReason": { $0.groups[0].pause?.askReason = false },
    ]

    /// Every field set, arrays not empty, so each change is a change. The
    /// second group has no pause of its own: `[pause]` reaches it.
    static let base: Config = {
        var config = Config(daemon: DaemonSettings(idleAfter: 10 * m), exercises: [Exercise(name: "pushups", perRep: 30_000)],
                            warnBefore: [5 * m],
                            groups: [AppGroup(name: "social", apps: ["discord"], titles: [try! TitlePattern("general")],
                                              dailyLimit: 60 * m,
                                              schedules: [Schedule(days: .all, span: .between(from: 1320, to: 420))],
                                              opensPerDay: 5,
                                              pause: PauseSettings(seconds: .seconds(20), after: 10 * m, askReason: true)),
                                     AppGroup(name: "news", apps: ["reddit"])],
                            strict: StrictSettings(delay: 86_400_000),
                            pause: PauseSettings(seconds: .seconds(10), after: 15 * m, askReason: false),
                            pass: PassRule(perWeek: 1, length: 15 * m), sync: SyncSettings(folder: "~/Sync/blocker"))
        config.earnLimits = EarnLimits(maxPerDay: 60 * m, minGap: 2 * m)
        return config
    }()

    /// The paths of `value`'s stored fields: a path with a change stops the
    /// walk; a struct (optional or not) or an array without one is walked
    /// into; anything else is a leaf.
    static func fieldPaths(of value: Any, at path: String = "") -> [String] {
        Mirror(reflecting: value).children.flatMap { child -> [String] in
            let here = path.isEmpty ? child.label ?? "?" : path + "." + (child.label ?? "?")
            if changes[here] != nil { return [here] }
            let mirror = Mirror(reflecting: child.value)
            switch mirror.displayStyle {
            case .struct?: return fieldPaths(of: child.value, at: here)
            case .optional?:
                guard let wrapped = mirror.children.first?.value,
                      Mirror(reflecting: wrapped).displayStyle == .struct else { return [here] }
                return fieldPaths(of: wrapped, at: here)
            case .collection?:
                guard let first = mirror.children.first else { return [here + "[]"] }
                return fieldPaths(of: first.value, at: here + "[]")
            default: return [here]
            }
        }
    }

    @Test func everyFieldOfConfigHasAChangeHere() {
        let paths = Self.fieldPaths(of: Self.base)
        let missing = paths.filter { Self.changes[$0] == nil }
        #expect(missing.isEmpty, "fields with no strict-mode rule (add one to StrictRules.compare, then a change here): \(missing)")
        let gone = Set(Self.changes.keys).subtracting(paths).sorted()
        #expect(gone.isEmpty, "changes here for fields Config no longer has: \(gone)")
    }

    @Test(arguments: changes.keys.sorted())
    func everyChangeIsATighteningOrALoosening(_ path: String) throws {
        let change = try #require(Self.changes[path])
        var wanted = Self.base
        change(&wanted)
        let result = StrictRules.compare(running: Self.base, wanted: wanted)
        #expect(!(result.tightening + result.loosening).isEmpty, "StrictRules.compare does not see a change of \(path)")
        // What tightens is in force at once; what loosens is not.
        #expect(StrictRules.compare(running: result.tightened, wanted: wanted).tightening.isEmpty, "\(path)")
        if result.tightening.isEmpty {
            let applied = StrictRules.compare(running: Self.base, wanted: result.tightened)
            #expect(applied.tightening.isEmpty && applied.loosening.isEmpty, "a loosening of \(path) applied at once")
        }
    }
}

@Suite struct StrictConfigTests {
    @Test func offByDefaultAndReadFromStrictDelay() throws {
        #expect(try Config(document: [:], file: "blocker.toml").strict.delay == nil)
        #expect(try Config(document: ["strict": ["delay": "24h"]], file: "blocker.toml").strict.delay == 86_400_000)
        #expect(try Config(document: ["strict": ["delay": "1s"]], file: "blocker.toml").strict.delay == 1000)
    }

    @Test(arguments: ["999ms", "31d", "0s"])
    func aDelayOutOfRangeIsRefused(_ text: String) {
        #expect(throws: ConfigError(file: "blocker.toml", keyPath: "strict.delay",
                                    message: "\"\(text)\" is out of range: delay must be from 1s to 30d; leave [strict] out "
                                        + "to apply every change at once (example: delay = \"24h\")")) {
            try Config(document: ["strict": ["delay": .string(text)]], file: "blocker.toml")
        }
    }

    @Test func anUnknownKeyIsRefused() {
        #expect(throws: ConfigError(file: "blocker.toml", keyPath: "strict.until",
                                    message: "unknown key \"until\" (known: delay)")) {
            try Config(document: ["strict": ["until": "x"]], file: "blocker.toml")
        }
    }
}
