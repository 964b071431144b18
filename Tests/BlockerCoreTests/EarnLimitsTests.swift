import Testing
@testable import BlockerCore

@Suite struct EarnLimitsTests {
    let minute: Milliseconds = 60_000
    let now: Int64 = 1_796_000_000_000
    let tomorrow: Int64 = 1_796_000_000_000 + 5 * 3_600_000

    @Test func noLimitsAllowEverything() {
        let limits = EarnLimits()
        let history = EarnLimits.History(earnedToday: 100 * 3_600_000, lastEarningAtMs: now)
        #expect(limits.refusal(earning: 60 * minute, now: now, history: history, nextDayMs: tomorrow) == nil)
    }

    @Test func minGapRefusesUntilTheLastEarningPlusTheGap() {
        let limits = EarnLimits(minGap: minute)
        let history = EarnLimits.History(earnedToday: minute, lastEarningAtMs: now - 20_000)
        #expect(limits.refusal(earning: minute, now: now, history: history, nextDayMs: tomorrow)
            == .tooSoon(minGap: minute, possibleAtMs: now + 40_000))
        #expect(limits.refusal(earning: minute, now: now + 39_999, history: history, nextDayMs: tomorrow) != nil)
        #expect(limits.refusal(earning: minute, now: now + 40_000, history: history, nextDayMs: tomorrow) == nil)
        // The first earning ever has nothing to be spaced from.
        #expect(limits.refusal(earning: minute, now: now,
                               history: .init(earnedToday: 0, lastEarningAtMs: nil), nextDayMs: tomorrow) == nil)
    }

    @Test func aLastEarningInTheFutureIsNotHeldAgainstTheUser() {
        // The clock was set back an hour: the spacing cannot be measured.
        let history = EarnLimits.History(earnedToday: 0, lastEarningAtMs: now + 3_600_000)
        #expect(EarnLimits(minGap: minute).refusal(earning: minute, now: now, history: history, nextDayMs: tomorrow) == nil)
    }

    @Test func maxPerDayRefusesWhatWouldGoPastTheCapAndSaysWhatIsLeft() {
        let limits = EarnLimits(maxPerDay: 120 * minute)
        func check(_ earnedToday: Milliseconds, _ earning: Milliseconds) -> EarnLimits.Refusal? {
            limits.refusal(earning: earning, now: now, history: .init(earnedToday: earnedToday, lastEarningAtMs: now - 1),
                           nextDayMs: tomorrow)
        }
        #expect(check(0, 120 * minute) == nil)                        // exactly the cap
        #expect(check(110 * minute, 10 * minute) == nil)
        #expect(check(110 * minute, 10 * minute + 1)
            == .dailyCap(maxPerDay: 120 * minute, left: 10 * minute, nextDayMs: tomorrow))
        #expect(check(120 * minute, 1) == .dailyCap(maxPerDay: 120 * minute, left: 0, nextDayMs: tomorrow))
        #expect(check(200 * minute, 1)?.possibleAtMs == tomorrow)      // earned before the cap was set
    }

    @Test func theSpacingIsCheckedBeforeTheCap() {
        let limits = EarnLimits(maxPerDay: minute, minGap: minute)
        let refusal = limits.refusal(earning: minute, now: now,
                                     history: .init(earnedToday: minute, lastEarningAtMs: now - 1000), nextDayMs: tomorrow)
        #expect(refusal == .tooSoon(minGap: minute, possibleAtMs: now + 59_000))
    }

    @Test func theMessagesSayWhyAndWhenInLocalTime() throws {
        let paris = try TimeZoneRules(posix: "CET-1CEST,M3.5.0,M10.5.0/3")
        // 2026-12-02 23:30 in Paris (22:30 UTC): the next day starts at 23:00 UTC.
        let at: Int64 = 1_796_250_600_000
        let nextDay = paris.startOfDay(paris.localDate(atMs: at).adding(days: 1))
        #expect(nextDay == at + 30 * minute)
        #expect(EarnLimits.Refusal.dailyCap(maxPerDay: 120 * minute, left: 0, nextDayMs: nextDay).message(now: at, zone: paris)
            == "over the daily cap: [earn] max-per-day is 2h 00m; today's earnings reached it; "
            + "earn again from Thu 2026-12-03 00:00:00 (the next day); nothing was credited")
        #expect(EarnLimits.Refusal.dailyCap(maxPerDay: 120 * minute, left: 5 * minute, nextDayMs: nextDay).message(now: at, zone: paris)
            .contains("only 5m 00s more may be earned today; log fewer reps, or earn again from Thu 2026-12-03 00:00:00"))
        #expect(EarnLimits.Refusal.tooSoon(minGap: minute, possibleAtMs: at + 42_000).message(now: at, zone: paris)
            == "too soon: [earn] min-gap is 1m 00s between earnings; earn again in 42s (at Wed 2026-12-02 23:30:42); "
            + "nothing was credited")
    }
}
