import Testing
@testable import BlockerCore

@Suite struct PolicyTests {
    let discord = Window(appID: "discord")

    func decide(_ groups: [AppGroup], zone: TimeZoneRules, balance: Milliseconds = 3_600_000,
                used: [String: Milliseconds] = [:], blocks: [TimedBlock] = [], window: Window? = nil,
                at now: WallInstant) -> Decision {
        let config = Config(groups: groups)
        return Policy.decide(config: config, zone: zone, matcher: Matcher(groups: groups), window: window ?? discord,
                             ledger: LedgerSnapshot(balance: balance, usedToday: used, timedBlocks: blocks), now: now)
    }

    // MARK: timed blocks

    @Test func aFiveMinuteTimedBlock() {
        let z = zone("Europe/Paris")
        let start = at(z, "2026-11-30", "14:30")
        let block = TimedBlock(target: "social", until: start + 5 * minute)
        let g = [group("social", apps: ["discord"])]
        let d = decide(g, zone: z, blocks: [block], at: start)
        #expect(d.shield?.reason == .timedBlock)
        #expect(d.shield?.group == "social")
        #expect(d.shield?.until == start + 5 * minute)
        #expect(decide(g, zone: z, blocks: [block], at: start + 5 * minute - 1).shield != nil)
        #expect(decide(g, zone: z, blocks: [block], at: start + 5 * minute).shield == nil)
    }

    @Test func aTimedBlockOnAnAppCoversItWhateverItsTitle() {
        let g = [group("video", apps: ["firefox"], titles: ["YouTube"])]
        let block = TimedBlock(target: "Firefox", until: WallInstant(ms: 0) + 10 * minute)
        let d = decide(g, zone: .utc, blocks: [block], window: Window(wmClass: "firefox", title: "docs"), at: 0)
        #expect(d.shield?.reason == .timedBlock)
        #expect(d.shield?.group == nil)
        #expect(decide(g, zone: .utc, blocks: [block], window: Window(appID: "foot"), at: 0).shield == nil)
    }

    // MARK: schedules

    @Test func aTwentyFourHourWindow() {
        let z = zone("America/New_York")
        let g = [group("social", apps: ["discord"], schedules: [Schedule(days: .monday, span: .allDay)])]
        #expect(decide(g, zone: z, at: at(z, "2026-11-29", "23:59")).shield == nil)      // Sunday
        let d = decide(g, zone: z, at: at(z, "2026-11-30", "00:00"))
        #expect(d.shield?.reason == .schedule)
        #expect(d.shield?.until == at(z, "2026-12-01", "00:00"))
        #expect(decide(g, zone: z, at: at(z, "2026-11-30", "23:59", seconds: 59)).shield != nil)
        #expect(decide(g, zone: z, at: at(z, "2026-12-01", "00:00")).shield == nil)
    }

    @Test func bedtimeAcrossMidnightBelongsToTheDayItStarts() {
        let z = zone("Europe/Paris")
        let g = [group("social", apps: ["discord"], schedules: [schedule("Mon", "22:30", "07:00")])]
        #expect(decide(g, zone: z, at: at(z, "2026-11-30", "22:29")).shield == nil)      // Monday
        let d = decide(g, zone: z, at: at(z, "2026-11-30", "22:30"))
        #expect(d.shield?.reason == .schedule)
        #expect(d.shield?.until == at(z, "2026-12-01", "07:00"))
        #expect(decide(g, zone: z, at: at(z, "2026-12-01", "06:59")).shield != nil)      // Tuesday morning
        #expect(decide(g, zone: z, at: at(z, "2026-12-01", "07:00")).shield == nil)
        #expect(decide(g, zone: z, at: at(z, "2026-12-01", "22:30")).shield == nil)      // Tuesday night: not listed
        #expect(decide(g, zone: z, at: at(z, "2026-11-30", "06:59")).shield == nil)      // Monday morning: Sunday's, not listed
    }

    @Test func theFirstMinutesAfterMidnight() {
        let z = zone("Europe/Paris")
        let bedtime = [group("social", apps: ["discord"], schedules: [schedule("Mon-Fri", "22:30", "07:00")])]
        #expect(decide(bedtime, zone: z, at: at(z, "2026-12-01", "00:01")).shield?.reason == .schedule)
        #expect(decide(bedtime, zone: z, at: at(z, "2026-11-30", "00:01")).shield == nil) // Sunday night
        // A limit reached yesterday is gone: usage is per local day.
        let limited = [group("social", apps: ["discord"], dailyLimit: hour)]
        #expect(decide(limited, zone: z, used: ["social": 3 * minute], at: at(z, "2026-12-01", "00:01")).shield == nil)
    }

    @Test func springForwardParis() {
        // 2026-03-29: 02:00 CET → 03:00 CEST; 02:30 does not exist.
        let z = zone("Europe/Paris")
        let start = [group("social", apps: ["discord"], schedules: [schedule("Sun", "02:30", "06:00")])]
        #expect(decide(start, zone: z, at: utc("2026-03-29T00:59:59Z")).shield == nil)  // 01:59:59 CET
        let d = decide(start, zone: z, at: utc("2026-03-29T01:00:00Z"))                  // 03:00 CEST
        #expect(d.shield?.reason == .schedule)
        #expect(d.shield?.until == utc("2026-03-29T04:00:00Z"))                          // 06:00 CEST
        let end = [group("social", apps: ["discord"], schedules: [schedule("Sun", "01:00", "02:30")])]
        let e = decide(end, zone: z, at: utc("2026-03-29T00:30:00Z"))
        #expect(e.shield?.until == utc("2026-03-29T01:00:00Z"))                          // ends with the gap
        #expect(decide(end, zone: z, at: utc("2026-03-29T01:00:00Z")).shield == nil)
    }

    @Test func springForwardNewYork() {
        // 2026-03-08: 02:00 EST → 03:00 EDT.
        let z = zone("America/New_York")
        let g = [group("social", apps: ["discord"], schedules: [schedule("Sun", "02:30", "04:00")])]
        #expect(decide(g, zone: z, at: utc("2026-03-08T06:59:00Z")).shield == nil)       // 01:59 EST
        #expect(decide(g, zone: z, at: utc("2026-03-08T07:00:00Z")).shield?.until == utc("2026-03-08T08:00:00Z"))
    }

    @Test func fallBackParis() {
        // 2026-10-25: 03:00 CEST → 02:00 CET; 02:00–03:00 happens twice.
        let z = zone("Europe/Paris")
        let g = [group("social", apps: ["discord"], schedules: [schedule("Sun", "01:30", "02:30")])]
        let d = decide(g, zone: z, at: utc("2026-10-24T23:30:00Z"))                      // 01:30 CEST
        #expect(d.shield?.until == utc("2026-10-25T00:30:00Z"))                          // the first 02:30
        #expect(decide(g, zone: z, at: utc("2026-10-25T01:00:00Z")).shield == nil)       // 02:00 CET, again
        #expect(decide(g, zone: z, at: utc("2026-10-25T01:30:00Z")).shield == nil)       // the second 02:30
    }

    @Test func fallBackNewYork() {
        // 2026-11-01: 02:00 EDT → 01:00 EST; 01:30 happens twice.
        let z = zone("America/New_York")
        let g = [group("social", apps: ["discord"], schedules: [schedule("Sun", "01:30", "03:00")])]
        #expect(decide(g, zone: z, at: utc("2026-11-01T05:29:00Z")).shield == nil)       // 01:29 EDT
        let d = decide(g, zone: z, at: utc("2026-11-01T05:30:00Z"))                      // the first 01:30
        #expect(d.shield?.until == utc("2026-11-01T08:00:00Z"))                          // 03:00 EST: 2 h 30 m later
        #expect(decide(g, zone: z, at: utc("2026-11-01T06:15:00Z")).shield != nil)       // 01:15 EST, second pass
    }

    // MARK: daily limits, balance

    @Test func aDailyLimitLastsUntilLocalMidnight() {
        let z = zone("America/New_York")
        let g = [group("social", apps: ["discord"], dailyLimit: hour)]
        let now = at(z, "2026-11-30", "21:00")
        #expect(decide(g, zone: z, used: ["social": hour - 1], at: now).shield == nil)
        let d = decide(g, zone: z, used: ["social": hour], at: now)
        #expect(d.shield?.reason == .dailyLimit)
        #expect(d.shield?.until == at(z, "2026-12-01", "00:00"))
    }

    @Test func balanceOnlyCoversMeteredApps() {
        let g = [group("social", apps: ["discord"]), group("tools", apps: ["notes"], metered: false)]
        let d = decide(g, zone: .utc, balance: 0, at: 0)
        #expect(d.metered)
        #expect(d.shield == Shield(reason: .balance, reasons: [.balance], app: "discord", group: nil, until: nil))
        #expect(decide(g, zone: .utc, balance: 0, window: Window(appID: "notes"), at: 0).shield == nil)
        #expect(decide(g, zone: .utc, balance: 0, window: Window(appID: "foot"), at: 0) ==
                Decision(groups: [], metered: false, shield: nil))
        #expect(Policy.decide(config: Config(groups: g), zone: .utc, matcher: Matcher(groups: g), window: nil,
                              ledger: LedgerSnapshot(balance: 0), now: 0) == .nothingInFront)
    }

    // MARK: composition

    @Test func aTimedBlockEndingInsideBedtimeLeavesBedtimeUp() {
        let z = zone("Europe/Paris")
        let g = [group("social", apps: ["discord"], schedules: [schedule("daily", "22:30", "07:00")])]
        let block = TimedBlock(target: "discord", until: at(z, "2026-11-30", "23:00"))
        let d = decide(g, zone: z, blocks: [block], at: at(z, "2026-11-30", "22:00"))
        #expect(d.shield?.reason == .timedBlock)
        #expect(d.shield?.until == at(z, "2026-12-01", "07:00"))                         // chained through bedtime
        let both = decide(g, zone: z, blocks: [block], at: at(z, "2026-11-30", "22:45"))
        #expect(both.shield?.reasons == [.timedBlock, .schedule])
        // Removing one rule never lifts another.
        #expect(decide(g, zone: z, blocks: [], at: at(z, "2026-11-30", "22:45")).shield?.reason == .schedule)
        let noBedtime = [group("social", apps: ["discord"])]
        #expect(decide(noBedtime, zone: z, blocks: [block], at: at(z, "2026-11-30", "22:45")).shield?.until
                == at(z, "2026-11-30", "23:00"))
    }

    @Test func aDailyLimitChainsIntoBedtimeAfterMidnight() {
        let z = zone("Europe/Paris")
        let g = [group("social", apps: ["discord"], dailyLimit: hour,
                       schedules: [schedule("daily", "00:00", "07:00")])]
        let d = decide(g, zone: z, used: ["social": hour], at: at(z, "2026-11-30", "21:00"))
        #expect(d.shield?.reason == .dailyLimit)
        #expect(d.shield?.until == at(z, "2026-12-01", "07:00"))
    }

    @Test func anEndlessChainHasNoEnd() {
        let g = [group("social", apps: ["discord"], schedules: [Schedule(days: .all, span: .allDay)])]
        let d = decide(g, zone: .utc, at: 0)
        #expect(d.shield?.reason == .schedule)
        #expect(d.shield?.until == nil)
    }

    @Test func aHardBlockOverAnEmptyBalanceLiftsOnlyByEarning() {
        let g = [group("social", apps: ["discord"])]
        let d = decide(g, zone: .utc, balance: 0, blocks: [TimedBlock(target: "social", until: WallInstant(ms: 0) + 10 * minute)], at: 0)
        #expect(d.shield?.reason == .timedBlock)
        #expect(d.shield?.reasons == [.timedBlock, .balance])
        #expect(d.shield?.until == nil)
    }
}
