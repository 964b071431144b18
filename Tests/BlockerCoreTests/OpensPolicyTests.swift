import Testing
@testable import BlockerCore

/// Issue 23 in the policy: a pass lifts its group's rules, the opens cap
/// covers until midnight, a pause covers until answered.
@Suite struct OpensPolicyTests {
    let paris = zone("Europe/Paris")
    let discord = Window(appID: "discord")
    var noon: WallInstant { at(paris, "2026-11-30", "12:00") }
    var midnight: WallInstant { at(paris, "2026-12-01", "00:00") }

    func decide(_ groups: [AppGroup], config: Config? = nil, balance: Milliseconds = hour, used: [String: Milliseconds] = [:],
                blocks: [TimedBlock] = [], book: OpenBook, at now: WallInstant) -> Shield? {
        var config = config ?? Config()
        config.groups = groups
        return Policy.decide(config: config, zone: paris, matcher: Matcher(groups: groups), window: discord,
                             ledger: LedgerSnapshot(balance: balance, usedToday: used, timedBlocks: blocks, opens: book),
                             now: now).shield
    }

    func book(capped: Set<String> = [], latest: [OpenRecord] = [], passes: [PassRecord] = [],
              day: CivilDate = "2026-11-30") -> OpenBook {
        OpenBook(day: day, latest: Dictionary(uniqueKeysWithValues: latest.map { ($0.group, $0) }), cappedToday: capped,
                 passes: passes)
    }

    func pass(_ group: String = "social", from start: WallInstant, for length: Milliseconds = 15 * minute) -> PassRecord {
        PassRecord(id: 1, group: group, at: start, until: start + length)
    }

    func pausing(_ group: String = "social", at start: WallInstant) -> OpenRecord {
        OpenRecord(id: 3, group: group, day: "2026-11-30", at: start, lastSeen: start, outcome: .pausing, paused: true)
    }

    // MARK: the pass

    @Test func aPassLiftsEachRuleOfItsGroupForItsLength() {
        let social = group("social", apps: ["discord"], dailyLimit: hour, schedules: [schedule("Mon", "11:00", "13:00")])
        let rules: [(ShieldReason, [AppGroup], Milliseconds, [String: Milliseconds], [TimedBlock], Set<String>)] = [
            (.timedBlock, [group("social", apps: ["discord"])], hour, [:], [TimedBlock(target: "social", until: noon + hour)], []),
            (.schedule, [social], hour, [:], [], []),
            (.dailyLimit, [group("social", apps: ["discord"], dailyLimit: hour)], hour, ["social": hour], [], []),
            (.opensCap, [group("social", apps: ["discord"])], hour, [:], [], ["social"]),
            (.balance, [group("social", apps: ["discord"])], 0, [:], [], []),
        ]
        let running = pass(from: noon - minute)
        for (reason, groups, balance, used, blocks, capped) in rules {
            #expect(decide(groups, balance: balance, used: used, blocks: blocks, book: book(capped: capped), at: noon)?.reason == reason)
            #expect(decide(groups, balance: balance, used: used, blocks: blocks, book: book(capped: capped, passes: [running]),
                           at: noon) == nil, "\(reason)")
            // Over at its `until`.
            #expect(decide(groups, balance: balance, used: used, blocks: blocks, book: book(capped: capped, passes: [running]),
                           at: running.until)?.reason == reason, "\(reason)")
        }
    }

    @Test func aPassLiftsABlockOfTheAppOnlyWhenEveryGroupOfTheWindowHasOne() {
        let block = [TimedBlock(target: "discord", until: noon + hour)]
        let social = group("social", apps: ["discord"]), chat = group("chat", apps: ["discord"], metered: false)
        let running = book(passes: [pass(from: noon)])
        #expect(decide([social], blocks: block, book: running, at: noon) == nil)
        #expect(decide([social, chat], blocks: block, book: running, at: noon)?.reason == .timedBlock)
    }

    @Test func aSecondMeteredGroupWithoutAPassStillCovers() {
        let social = group("social", apps: ["discord"]), chat = group("chat", apps: ["discord"])
        let running = book(passes: [pass(from: noon)])
        let shield = decide([social, chat], balance: 0, book: running, at: noon)
        #expect(shield?.reason == .balance && shield?.until == nil)
        // Not metered: nothing to cover with.
        let unmetered = group("chat", apps: ["discord"], metered: false)
        #expect(decide([social, unmetered], balance: 0, book: running, at: noon) == nil)
        // Its own rules too.
        let bedtime = group("chat", apps: ["discord"], metered: false, schedules: [schedule("Mon", "11:00", "13:00")])
        #expect(decide([social, bedtime], book: running, at: noon)?.group == "chat")
    }

    @Test func theLiftInstantSeesThePassEnd() {
        // chat's block ends at 12:30; social's pass at 12:15 gives its daily limit back, until midnight.
        let social = group("social", apps: ["discord"], dailyLimit: hour), chat = group("chat", apps: ["discord"], metered: false)
        let block = [TimedBlock(target: "chat", until: noon + 30 * minute)]
        let running = book(passes: [pass(from: noon)])
        #expect(decide([social, chat], used: ["social": hour], blocks: block, book: running, at: noon)?.until == midnight)
        // Inside the pass, the block ends first: it lifts then.
        let early = [TimedBlock(target: "chat", until: noon + 5 * minute)]
        #expect(decide([social, chat], used: ["social": hour], blocks: early, book: running, at: noon)?.until == noon + 5 * minute)
        // Out of balance, the pass's end brings the balance rule: no end.
        #expect(decide([social, chat], balance: 0, blocks: block, book: running, at: noon)?.until == nil)
    }

    // MARK: the opens cap

    @Test func theOpensCapCoversUntilTheNextLocalMidnight() {
        let social = [group("social", apps: ["discord"])]
        let shield = decide(social, book: book(capped: ["social"]), at: noon)
        #expect(shield?.reason == .opensCap && shield?.group == "social" && shield?.until == midnight)
        #expect(decide(social, book: book(capped: ["social"]), at: midnight - 1)?.reason == .opensCap)
        // A book of another day caps nothing today.
        #expect(decide(social, book: book(capped: ["social"]), at: midnight) == nil)
        #expect(decide(social, book: book(capped: ["social"], day: "2026-11-29"), at: noon) == nil)
        // Another group's cap is not this one's.
        #expect(decide(social, book: book(capped: ["video"]), at: noon) == nil)
    }

    @Test func theOpensCapComesAfterTheDailyLimitAndBeforeTheBalance() {
        let limited = [group("social", apps: ["discord"], dailyLimit: hour)]
        let both = decide(limited, used: ["social": hour], book: book(capped: ["social"]), at: noon)
        #expect(both?.reason == .dailyLimit && both?.reasons == [.dailyLimit, .opensCap])
        let broke = decide([group("social", apps: ["discord"])], balance: 0, book: book(capped: ["social"]), at: noon)
        #expect(broke?.reason == .opensCap && broke?.reasons == [.opensCap, .balance] && broke?.until == nil)
    }

    // MARK: the pause

    @Test func aPauseCoversWithItsCountdownEndAsUntil() {
        let social = [group("social", apps: ["discord"])]
        let config = Config(pause: PauseSettings(seconds: .seconds(20)))
        let started = noon - .seconds(5)
        let shield = decide(social, config: config, book: book(latest: [pausing(at: started)]), at: noon)
        #expect(shield?.reason == .pause && shield?.group == "social" && shield?.until == started + .seconds(20))
        // Unanswered after the countdown: still covered, `until` passed.
        #expect(decide(social, config: config, book: book(latest: [pausing(at: started)]), at: noon + minute)?.until
                == started + .seconds(20))
        // Answered: no cover.
        var opened = pausing(at: started)
        opened.outcome = .opened
        #expect(decide(social, config: config, book: book(latest: [opened]), at: noon) == nil)
        // A pass runs: no pause.
        #expect(decide(social, config: config, book: book(latest: [pausing(at: started)], passes: [pass(from: noon)]), at: noon) == nil)
        // Another group's pause is not this window's.
        #expect(decide(social, config: config, book: book(latest: [pausing("video", at: started)]), at: noon) == nil)
    }

    @Test func aPauseUnderOtherRulesComesLastAndHoldsTheirUntilToItsCountdown() {
        let social = [group("social", apps: ["discord"])]
        let config = Config(pause: PauseSettings())
        let paused = book(latest: [pausing(at: noon)])
        let broke = decide(social, config: config, balance: 0, book: paused, at: noon)
        #expect(broke?.reason == .balance && broke?.reasons == [.balance, .pause] && broke?.until == nil)
        let block = decide(social, config: config, blocks: [TimedBlock(target: "social", until: noon + 5 * minute)], book: paused, at: noon)
        #expect(block?.reason == .timedBlock && block?.until == noon + 5 * minute)
        let short = decide(social, config: config, blocks: [TimedBlock(target: "social", until: noon + .seconds(3))], book: paused, at: noon)
        #expect(short?.until == noon + .seconds(10))
    }

    @Test func aGroupsOwnCountdownSetsTheUntil() {
        var social = group("social", apps: ["discord"])
        social.pause = PauseSettings(seconds: .seconds(45))
        #expect(decide([social], book: book(latest: [pausing(at: noon)]), at: noon)?.until == noon + .seconds(45))
    }
}
