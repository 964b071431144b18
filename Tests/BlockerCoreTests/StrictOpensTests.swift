import Testing
@testable import BlockerCore

/// Strict mode for issue 23's keys: a longer or new pause, a shorter `after`,
/// `ask-reason`, fewer opens, fewer or shorter passes, no `[pass]` tighten;
/// the reverse of each waits.
@Suite struct StrictOpensTests {
    let m: Milliseconds = 60_000

    func config(pause: PauseSettings? = nil, pass: PassRule? = nil, _ groups: AppGroup...) -> Config {
        Config(groups: groups.isEmpty ? [group("social", apps: ["discord"])] : groups, pause: pause, pass: pass)
    }

    func social(opens: Int? = nil, pause: PauseSettings? = nil) -> AppGroup {
        var social = group("social", apps: ["discord"])
        social.opensPerDay = opens
        social.pause = pause
        return social
    }

    func compare(_ a: Config, _ b: Config) -> (tight: [String], loose: [String], merged: Config) {
        let result = StrictRules.compare(running: a, wanted: b)
        // Whatever tightened is in force: comparing again tightens nothing.
        #expect(StrictRules.compare(running: result.tightened, wanted: b).tightening.isEmpty)
        return (result.tightening.map(\.description), result.loosening.map(\.description), result.tightened)
    }

    /// The pause the merge gives the first group.
    func rule(_ merged: Config) -> PauseRule? { merged.pauseRule(for: merged.groups[0]) }

    @Test func aLongerCountdownTightensAShorterOneWaits() {
        let ten = config(pause: PauseSettings(seconds: .seconds(10)))
        let longer = compare(ten, config(pause: PauseSettings(seconds: .seconds(20))))
        #expect(longer.tight == ["pause.seconds: 10s → 20s"] && longer.loose.isEmpty)
        #expect(rule(longer.merged)?.seconds == .seconds(20))
        let shorter = compare(ten, config(pause: PauseSettings(seconds: .seconds(5))))
        #expect(shorter.loose == ["pause.seconds: 10s → 5s"] && shorter.tight.isEmpty)
        #expect(rule(shorter.merged)?.seconds == .seconds(10))
        let none = compare(ten, config(pause: PauseSettings(seconds: 0)))
        #expect(none.loose == ["pause.seconds: 10s → none"] && rule(none.merged)?.seconds == .seconds(10))
    }

    @Test func aShorterAfterTightensALongerOneWaits() {
        let base = config(pause: PauseSettings())
        let shorter = compare(base, config(pause: PauseSettings(after: 5 * m)))
        #expect(shorter.tight == ["pause.after: 15m 00s → 5m 00s"] && rule(shorter.merged)?.after == 5 * m)
        let longer = compare(base, config(pause: PauseSettings(after: 30 * m)))
        #expect(longer.loose == ["pause.after: 15m 00s → 30m 00s"] && rule(longer.merged)?.after == 15 * m)
    }

    @Test func askingWhyTightensNotAskingWaits() {
        let asking = config(pause: PauseSettings(askReason: true))
        let on = compare(config(pause: PauseSettings()), asking)
        #expect(on.tight == ["pause.ask-reason: false → true"] && rule(on.merged)?.askReason == true)
        let off = compare(asking, config(pause: PauseSettings()))
        #expect(off.loose == ["pause.ask-reason: true → false"] && rule(off.merged)?.askReason == true)
    }

    @Test func aNewPauseTightensRemovingItWaits() {
        let added = compare(config(), config(pause: PauseSettings()))
        #expect(added.tight == ["pause.seconds: none → 10s"] && rule(added.merged)?.seconds == .seconds(10))
        let removed = compare(config(pause: PauseSettings()), config())
        #expect(removed.loose == ["pause.seconds: 10s → none"] && rule(removed.merged)?.seconds == .seconds(10))
        // A [pause] that pauses nothing changes nothing.
        #expect(compare(config(), config(pause: PauseSettings(seconds: 0))).tight.isEmpty)
    }

    @Test func aGroupsOwnPauseIsNamedAsTheGroups() {
        let base = config(pause: PauseSettings())
        let longer = compare(base, config(pause: PauseSettings(), social(pause: PauseSettings(seconds: .seconds(30)))))
        #expect(longer.tight == ["group \"social\".pause.seconds: 10s → 30s"] && rule(longer.merged)?.seconds == .seconds(30))
        let off = compare(base, config(pause: PauseSettings(), social(pause: PauseSettings(seconds: 0))))
        #expect(off.loose == ["group \"social\".pause.seconds: 10s → none"] && rule(off.merged)?.seconds == .seconds(10))
        // A new table that sets only after: its seconds come from [pause] as before.
        let sooner = compare(base, config(pause: PauseSettings(), social(pause: PauseSettings(after: m))))
        #expect(sooner.tight == ["group \"social\".pause.after: 15m 00s → 1m 00s"] && sooner.loose.isEmpty)
    }

    @Test func aPauseChangeReachingSeveralGroupsIsOneLine() {
        let two = [group("social", apps: ["discord"]), group("video", apps: ["firefox"])]
        let a = Config(groups: two, pause: PauseSettings()), b = Config(groups: two, pause: PauseSettings(seconds: .seconds(30)))
        let r = compare(a, b)
        #expect(r.tight == ["pause.seconds: 10s → 30s"])
        #expect(r.merged.groups.allSatisfy { r.merged.pauseRule(for: $0)?.seconds == .seconds(30) })
        // Groups that set every key of their own do not see [pause].
        let own = PauseSettings(seconds: .seconds(5), after: m, askReason: false)
        let mine = two.map { var g = $0; g.pause = own; return g }
        #expect(StrictRules.compare(running: Config(groups: mine, pause: PauseSettings()),
                                    wanted: Config(groups: mine)).loosening.isEmpty)
    }

    @Test func aNewGroupHasThePauseTheNewConfigGivesIt() {
        let a = config(pause: PauseSettings(seconds: .seconds(10)))
        let b = config(pause: PauseSettings(seconds: .seconds(5)), group("social", apps: ["discord"]), group("video", apps: ["firefox"]))
        let r = compare(a, b)
        #expect(r.loose == ["pause.seconds: 10s → 5s"])
        #expect(r.merged.pauseRule(for: r.merged.groups[0])?.seconds == .seconds(10))
        #expect(r.merged.pauseRule(for: r.merged.groups[1])?.seconds == .seconds(5))
    }

    @Test func fewerOrNewOpensPerDayTightenMoreOrNoneWait() {
        let five = config(social(opens: 5))
        #expect(compare(five, config(social(opens: 3))).tight == ["group \"social\".opens-per-day: 5 → 3"])
        #expect(compare(five, config(social(opens: 3))).merged.groups[0].opensPerDay == 3)
        #expect(compare(config(), five).tight == ["group \"social\".opens-per-day: none → 5"])
        #expect(compare(five, config(social(opens: 8))).loose == ["group \"social\".opens-per-day: 5 → 8"])
        #expect(compare(five, config(social(opens: 8))).merged.groups[0].opensPerDay == 5)
        #expect(compare(five, config()).loose == ["group \"social\".opens-per-day: 5 → none"])
        #expect(compare(five, config()).merged.groups[0].opensPerDay == 5)
    }

    @Test func fewerShorterOrNoPassesTightenTheReverseWaits() {
        let one = config(pass: PassRule(perWeek: 1, length: 15 * m))
        let removed = compare(one, config())
        #expect(removed.tight == ["pass: per-week 1, length 15m 00s → removed"] && removed.merged.pass == nil)
        let added = compare(config(), one)
        #expect(added.loose == ["pass: none → per-week 1, length 15m 00s"] && added.merged.pass == nil)
        let fewer = compare(config(pass: PassRule(perWeek: 2)), one)
        #expect(fewer.tight == ["pass.per-week: 2 → 1"] && fewer.merged.pass?.perWeek == 1)
        let more = compare(one, config(pass: PassRule(perWeek: 3)))
        #expect(more.loose == ["pass.per-week: 1 → 3"] && more.merged.pass?.perWeek == 1)
        let shorter = compare(one, config(pass: PassRule(length: 5 * m)))
        #expect(shorter.tight == ["pass.length: 15m 00s → 5m 00s"] && shorter.merged.pass?.length == 5 * m)
        let longer = compare(one, config(pass: PassRule(length: 2 * 60 * m)))
        #expect(longer.loose == ["pass.length: 15m 00s → 2h 00m"] && longer.merged.pass?.length == 15 * m)
    }
}
