import Testing
@testable import BlockerCore

/// The emergency pass's week (local Monday 00:00 on) and its refusals.
@Suite struct PassAllowanceTests {
    let paris = zone("Europe/Paris")
    let oneAWeek = PassRule(perWeek: 1, length: .minutes(15))

    func pass(_ id: Int64, at start: WallInstant) -> PassRecord {
        PassRecord(id: id, group: "social", at: start, until: start + 15 * minute)
    }

    @Test func theWeekStartsOnTheLocalMonday() {
        let monday = at(paris, "2026-11-30", "00:00")
        #expect(PassAllowance.weekStart(of: at(paris, "2026-12-06", "23:59", seconds: 59), zone: paris) == monday)  // Sunday night
        #expect(PassAllowance.weekStart(of: at(paris, "2026-12-07", "00:00"), zone: paris) == at(paris, "2026-12-07", "00:00"))
        #expect(PassAllowance.weekStart(of: monday - 1, zone: paris) == at(paris, "2026-11-23", "00:00"))
        #expect(PassAllowance.weekStart(of: at(paris, "2026-12-02", "13:00"), zone: paris) == monday)
        // In UTC the same instant is in another local week.
        #expect(PassAllowance.weekStart(of: monday, zone: .utc) == utc("2026-11-23T00:00:00Z"))
    }

    @Test func aWeekAcrossADSTChangeIsShorterOrLonger() {
        // Spring forward on Sunday 2026-03-29: Monday 00:00 CET to Monday 00:00 CEST is 167 hours.
        let spring = PassAllowance.weekStart(of: utc("2026-03-29T12:00:00Z"), zone: paris)
        #expect(spring == utc("2026-03-22T23:00:00Z"))
        #expect(PassAllowance.weekStart(of: utc("2026-03-29T22:00:00Z"), zone: paris) - spring == 167 * hour)
        #expect(PassAllowance.weekStart(of: utc("2026-03-29T21:59:59Z"), zone: paris) == spring)
        // Fall back on Sunday 2026-10-25: 169 hours.
        let fall = PassAllowance.weekStart(of: utc("2026-10-25T12:00:00Z"), zone: paris)
        #expect(fall == utc("2026-10-18T22:00:00Z"))
        #expect(PassAllowance.weekStart(of: utc("2026-10-25T23:00:00Z"), zone: paris) - fall == 169 * hour)
        #expect(PassAllowance.weekStart(of: utc("2026-10-25T22:59:59Z"), zone: paris) == fall)
    }

    @Test func theFirstPassOfAWeekIsAllowed() {
        #expect(PassAllowance.check(rule: oneAWeek, passes: [], now: at(paris, "2026-12-02", "13:00"), zone: paris) == nil)
        // Last week's pass, a second before Monday 00:00, is last week's.
        let sundayNight = pass(1, at: at(paris, "2026-11-29", "23:59", seconds: 59))
        #expect(PassAllowance.check(rule: oneAWeek, passes: [sundayNight], now: at(paris, "2026-11-30", "00:00"), zone: paris) == nil)
        #expect(PassAllowance.used([sundayNight], now: at(paris, "2026-11-30", "00:00"), zone: paris) == 0)
    }

    @Test func theSecondPassInAWeekIsRefusedWithTheNextInstant() {
        let used = [pass(1, at: at(paris, "2026-12-01", "10:00"))]
        let refusal = PassAllowance.check(rule: oneAWeek, passes: used, now: at(paris, "2026-12-03", "18:00"), zone: paris)
        #expect(refusal == PassRefusal(message: "no pass left this week (1 of 1 used); the next from Mon 2026-12-07 00:00",
                                       next: at(paris, "2026-12-07", "00:00")))
        // On Sunday night too; at Monday 00:00 it is allowed.
        #expect(PassAllowance.check(rule: oneAWeek, passes: used, now: at(paris, "2026-12-06", "23:59", seconds: 59), zone: paris) != nil)
        #expect(PassAllowance.check(rule: oneAWeek, passes: used, now: at(paris, "2026-12-07", "00:00"), zone: paris) == nil)
        // Two a week: the second is allowed, the third is not.
        let two = PassRule(perWeek: 2, length: .minutes(15))
        #expect(PassAllowance.check(rule: two, passes: used, now: at(paris, "2026-12-03", "18:00"), zone: paris) == nil)
        let twice = used + [pass(2, at: at(paris, "2026-12-02", "10:00"))]
        #expect(PassAllowance.check(rule: two, passes: twice, now: at(paris, "2026-12-03", "18:00"), zone: paris)?.message
                == "no pass left this week (2 of 2 used); the next from Mon 2026-12-07 00:00")
    }

    @Test func theNextWeekAfterSpringForwardStartsAtItsOwnMidnight() {
        let used = [pass(1, at: utc("2026-03-24T10:00:00Z"))]
        let refusal = PassAllowance.check(rule: oneAWeek, passes: used, now: utc("2026-03-29T12:00:00Z"), zone: paris)
        #expect(refusal?.next == utc("2026-03-29T22:00:00Z"))
        #expect(refusal?.message == "no pass left this week (1 of 1 used); the next from Mon 2026-03-30 00:00")
    }

    @Test func withoutPassOrWithNoneAWeekTheMessageSaysHowToHaveOne() {
        let now = at(paris, "2026-12-03", "18:00")
        #expect(PassAllowance.check(rule: nil, passes: [], now: now, zone: paris) == PassRefusal(
            message: "no [pass] in blocker.toml: add [pass] per-week = 1 (and length = \"15m\") for one emergency pass "
                + "a week, then blockerctl reload"))
        #expect(PassAllowance.check(rule: PassRule(perWeek: 0), passes: [], now: now, zone: paris) == PassRefusal(
            message: "no passes: [pass] per-week = 0 in blocker.toml; set per-week = 1 for one a week, then blockerctl reload"))
    }
}
