import Testing
@testable import BlockerCore

@Suite struct EarnLimitsTests {
    let minute: Milliseconds = 60_000
    let now = WallInstant(ms: 1_796_000_000_000)
    let tomorrow = WallInstant(ms: 1_796_000_000_000 + 5 * 3_600_000)

    @Test func noLimitsAllowEverything() {
        let limits = EarnLimits()
        let history = EarnLimits.History(earnedToday: .hours(100), lastEarningAt: now)
        #expect(limits.refusal(earning: 60 * minute, now: now, history: history, nextDay: tomorrow) == nil)
    }

    @Test func minGapRefusesUntilTheLastEarningPlusTheGap() {
        let limits = EarnLimits(minGap: minute)
        let history = EarnLimits.History(earnedToday: minute, lastEarningAt: now - 20_000)
        #expect(limits.refusal(earning: minute, now: now, history: history, nextDay: tomorrow)
            == .tooSoon(minGap: minute, possibleAt: now + 40_000))
        #expect(limits.refusal(earning: minute, now: now + 39_999, history: history, nextDay: tomorrow) != nil)
        #expect(limits.refusal(earning: minute, now: now + 40_000, history: history, nextDay: tomorrow) == nil)
        // The first earning ever has nothing to be spaced from.
        #expect(limits.refusal(earning: minute, now: now,
                               history: .init(earnedToday: 0, lastEarningAt: nil), nextDay: tomorrow) == nil)
    }

    @Test func aLastEarningInTheFutureIsNotHeldAgainstTheUser() {
        // The clock was set back an hour: the spacing cannot be measured.
        let history = EarnLimits.History(earnedToday: 0, lastEarningAt: now + 3_600_000)
        #expect(EarnLimits(minGap: minute).refusal(earning: minute, now: now, history: history, nextDay: tomorrow) == nil)
    }

    @Test func maxPerDayRefusesWhatWouldGoPastTheCapAndSaysWhatIsLeft() {
        let limits = EarnLimits(maxPerDay: 120 * minute)
        func check(_ earnedToday: Milliseconds, _ earning: Milliseconds) -> EarnLimits.Refusal? {
            limits.refusal(earning: earning, now: now, history: .init(earnedToday: earnedToday, lastEarningAt: now - 1),
                           nextDay: tomorrow)
        }
        #expect(check(0, 120 * minute) == nil)                        // exactly the cap
        #expect(check(110 * minute, 10 * minute) == nil)
        #expect(check(110 * minute, 10 * minute + 1)
            == .dailyCap(maxPerDay: 120 * minute, left: 10 * minute, nextDay: tomorrow))
        #expect(check(120 * minute, 1) == .dailyCap(maxPerDay: 120 * minute, left: 0, nextDay: tomorrow))
        #expect(check(200 * minute, 1)?.possibleAt == tomorrow)      // earned before the cap was set
    }

    @Test func theSpacingIsCheckedBeforeTheCap() {
        let limits = EarnLimits(maxPerDay: minute, minGap: minute)
        let refusal = limits.refusal(earning: minute, now: now,
                                     history: .init(earnedToday: minute, lastEarningAt: now - 1000), nextDay: tomorrow)
        #expect(refusal == .tooSoon(minGap: minute, possibleAt: now + 59_000))
    }

    @Test func theMessagesSayWhyAndWhenInLocalTime() throws {
        let paris = try TimeZoneRules(posix: "CET-1CEST,M3.5.0,M10.5.0/3")
        // 2026-12-02 23:30 in Paris (22:30 UTC): the next day starts at 23:00 UTC.
        let at = WallInstant(ms: 1_796_250_600_000)
        let nextDay = paris.startOfDay(paris.localDate(at: at).adding(days: 1))
        #expect(nextDay == at + 30 * minute)
        #expect(EarnLimits.Refusal.dailyCap(maxPerDay: 120 * minute, left: 0, nextDay: nextDay).message(now: at, zone: paris)
            == "over the daily cap: [earn] max-per-day is 2h 00m; today's earnings reached it; "
            + "earn again from Thu 2026-12-03 00:00:00 (the next day); nothing was credited")
        #expect(EarnLimits.Refusal.dailyCap(maxPerDay: 120 * minute, left: 5 * minute, nextDay: nextDay).message(now: at, zone: paris)
            .contains("only 5m 00s more may be earned today; log fewer reps, or earn again from Thu 2026-12-03 00:00:00"))
        #expect(EarnLimits.Refusal.tooSoon(minGap: minute, possibleAt: at + 42_000).message(now: at, zone: paris)
            == "too soon: [earn] min-gap is 1m 00s between earnings; earn again in 42s (at Wed 2026-12-02 23:30:42); "
            + "nothing was credited")
    }
}
