import Testing
@testable import BlockerCore

/// The open gate: which opens a tick starts, continues or leaves.
@Suite struct OpenGateTests {
    let paris = zone("Europe/Paris")
    let social = group("social", apps: ["discord"])
    var capped5: AppGroup { var g = group("video", apps: ["firefox"]); g.opensPerDay = 5; return g }

    /// `[pause]` seconds = 10, after = 15m for every group.
    func paused(_ groups: [AppGroup]) -> Config { Config(groups: groups, pause: PauseSettings()) }

    func record(_ id: Int64, group: String = "social", _ outcome: OpenOutcome, at: WallInstant,
                lastSeen: WallInstant? = nil, day: CivilDate = "2026-11-30") -> OpenRecord {
        OpenRecord(id: id, group: group, day: day, at: at, lastSeen: lastSeen ?? at, outcome: outcome,
                   paused: outcome == .pausing)
    }

    func book(_ records: [OpenRecord] = [], day: CivilDate = "2026-11-30", today: [String: Int] = [:],
              passes: [PassRecord] = []) -> OpenBook {
        OpenBook(day: day, latest: Dictionary(uniqueKeysWithValues: records.map { ($0.group, $0) }), opensToday: today,
                 passes: passes)
    }

    var noon: WallInstant { at(paris, "2026-11-30", "12:00") }

    func steps(_ config: Config, front: [AppGroup], _ book: OpenBook, covered: Bool = false, at now: WallInstant) -> [OpenStep] {
        OpenGate.steps(config: config, front: front, book: book, coveredOtherwise: covered, now: now)
    }

    @Test func aGroupWithNoPauseAndNoCapIsNotTracked() {
        #expect(steps(Config(groups: [social]), front: [social], book(), at: noon).isEmpty)
        // [group.pause] seconds = 0 is no pause either.
        var none = social
        none.pause = PauseSettings(seconds: 0)
        #expect(steps(paused([none]), front: [none], book(), at: noon).isEmpty)
    }

    @Test func aFirstOpenPausesWhenThereIsAPauseAndOpensOtherwise() {
        #expect(steps(paused([social]), front: [social], book(), at: noon) == [.open(group: "social", outcome: .pausing, paused: true)])
        #expect(steps(Config(groups: [capped5]), front: [capped5], book(), at: noon)
                == [.open(group: "video", outcome: .opened, paused: false)])
    }

    @Test func anOpenedGroupBackWithinAfterContinuesAndAtAfterOpensAgain() {
        let opened = record(7, .opened, at: noon - hour, lastSeen: noon)
        let config = paused([social])
        #expect(steps(config, front: [social], book([opened]), at: noon + 15 * minute - 1) == [.seen(id: 7)])
        #expect(steps(config, front: [social], book([opened]), at: noon + 15 * minute)
                == [.open(group: "social", outcome: .pausing, paused: true)])
        // after = "0s": every appearance is an open.
        let always = Config(groups: [social], pause: PauseSettings(after: 0))
        #expect(steps(always, front: [social], book([opened]), at: noon + 1)
                == [.open(group: "social", outcome: .pausing, paused: true)])
    }

    @Test(arguments: [OpenOutcome.notNow, .left, .capped, .interrupted])
    func afterAnyOtherOutcomeTheNextAppearanceIsANewOpen(_ outcome: OpenOutcome) {
        let last = record(3, outcome, at: noon - 5 * 1000)
        #expect(steps(paused([social]), front: [social], book([last]), at: noon)
                == [.open(group: "social", outcome: .pausing, paused: true)])
    }

    @Test func theOpenAfterOpensPerDayIsCapped() {
        var both = capped5
        both.pause = PauseSettings()
        let config = Config(groups: [both])
        #expect(steps(config, front: [both], book(today: ["video": 4]), at: noon)
                == [.open(group: "video", outcome: .pausing, paused: true)])
        // The sixth: capped, never paused.
        #expect(steps(config, front: [both], book(today: ["video": 5]), at: noon)
                == [.open(group: "video", outcome: .capped, paused: false)])
        // A continuation is no open: it is not capped.
        let opened = record(9, group: "video", .opened, at: noon - minute)
        #expect(steps(config, front: [both], book([opened], today: ["video": 5]), at: noon) == [.seen(id: 9)])
    }

    @Test func inFrontAtThePreviousTickContinuesAnOpenedOpenPastItsAfter() {
        let opened = record(7, .opened, at: noon - hour, lastSeen: noon - hour)       // a long gap between ticks
        let config = paused([social])
        #expect(OpenGate.steps(config: config, front: [social], book: book([opened]), coveredOtherwise: false, now: noon,
                               inFrontBefore: ["social"]) == [.seen(id: 7)])
        #expect(steps(config, front: [social], book([opened]), at: noon) == [.open(group: "social", outcome: .pausing, paused: true)])
    }

    @Test(arguments: [OpenOutcome.notNow, .left])
    func backAtTheNextTickAfterNotNowOrALeftPauseIsANewPause(_ outcome: OpenOutcome) {
        // An event-driven probe: no tick between the one that left and the one that is back, and the
        // answer's instant is the open's last sighting.
        let ended = record(5, outcome, at: noon - 5000, lastSeen: noon - 1000)
        #expect(OpenGate.steps(config: paused([social]), front: [social], book: book([ended]), coveredOtherwise: false,
                               now: noon, inFrontBefore: []) == [.open(group: "social", outcome: .pausing, paused: true)])
        #expect(OpenGate.steps(config: paused([social]), front: [social], book: book([ended]), coveredOtherwise: false,
                               now: noon, inFrontBefore: ["social"]) == [.open(group: "social", outcome: .pausing, paused: true)])
    }

    @Test func aGroupCappedTodayOpensNothingMoreButUnderAPass() {
        let config = Config(groups: [capped5])
        let capped = record(6, group: "video", .capped, at: noon - minute)
        var full = book([capped], today: ["video": 6])
        full.cappedToday = ["video"]
        // Back at once, or after `after`: no new open, however often.
        #expect(steps(config, front: [capped5], full, at: noon) == [.seen(id: 6)])
        #expect(steps(config, front: [capped5], full, at: noon + hour) == [.seen(id: 6)])
        // A pass used while it is in front continues that open; one used while away opens it.
        full.passes = [PassRecord(id: 1, group: "video", at: noon, until: noon + 15 * minute)]
        #expect(steps(config, front: [capped5], full, at: noon + minute) == [.open(group: "video", outcome: .opened, paused: false)])
    }

    @Test func aRunningPassOpensWithoutPauseOrCap() {
        var both = capped5
        both.pause = PauseSettings()
        let config = Config(groups: [both])
        let pass = PassRecord(id: 1, group: "video", at: noon - minute, until: noon + 14 * minute)
        let full = book(today: ["video": 5], passes: [pass])
        #expect(steps(config, front: [both], full, at: noon) == [.open(group: "video", outcome: .opened, paused: false)])
        // Over: the cap again.
        #expect(steps(config, front: [both], full, at: noon + 14 * minute)
                == [.open(group: "video", outcome: .capped, paused: false)])
        // Another group's pass is not this one's.
        let other = PassRecord(id: 2, group: "social", at: noon - minute, until: noon + hour)
        #expect(steps(config, front: [both], book(today: ["video": 5], passes: [other]), at: noon)
                == [.open(group: "video", outcome: .capped, paused: false)])
    }

    @Test func aPauseWaitsInFrontAndIsLeftForAnotherWindow() {
        let pausing = record(4, .pausing, at: noon - 3 * 1000)
        let config = paused([social, capped5])
        #expect(steps(config, front: [social], book([pausing]), at: noon).isEmpty)
        #expect(steps(config, front: [], book([pausing]), at: noon) == [.left(id: 4)])
        #expect(steps(config, front: [capped5], book([pausing]), at: noon)
                == [.left(id: 4), .open(group: "video", outcome: .pausing, paused: true)])
    }

    @Test func aCoveredWindowOpensNothingButAPauseIsStillLeft() {
        let config = paused([social, capped5])
        #expect(steps(config, front: [social], book(), covered: true, at: noon).isEmpty)
        let opened = record(5, .opened, at: noon - minute)
        #expect(steps(config, front: [social], book([opened]), covered: true, at: noon).isEmpty)
        let pausing = record(6, .pausing, at: noon - minute)
        #expect(steps(config, front: [capped5], book([pausing]), covered: true, at: noon) == [.left(id: 6)])
    }

    @Test func acrossLocalMidnight() {
        let config = Config(groups: [capped5], pause: PauseSettings())
        // Opened at 23:50, seen at 23:58: at 00:05 it goes on, and stays the day before's.
        let lateOpen = record(8, group: "video", .opened, at: at(paris, "2026-11-30", "23:50"),
                              lastSeen: at(paris, "2026-11-30", "23:58"))
        let tomorrow = book([lateOpen], day: "2026-12-01")
        #expect(steps(config, front: [capped5], tomorrow, at: at(paris, "2026-12-01", "00:05")) == [.seen(id: 8)])
        // Yesterday's five opens and cap do not count today.
        let yesterdaysCap = record(9, group: "video", .capped, at: at(paris, "2026-11-30", "23:59"))
        #expect(steps(config, front: [capped5], book([yesterdaysCap], day: "2026-12-01"), at: at(paris, "2026-12-01", "00:00"))
                == [.open(group: "video", outcome: .pausing, paused: true)])
    }

    @Test func afterIsRealTimeAcrossADSTChange() {
        let config = paused([social])
        // 2026-03-29, Paris springs forward at 02:00 CET: 01:55 CET to 03:05 CEST is 10 minutes.
        let spring = record(1, .opened, at: utc("2026-03-29T00:30:00Z"), lastSeen: utc("2026-03-29T00:55:00Z"), day: "2026-03-29")
        #expect(steps(config, front: [social], book([spring], day: "2026-03-29"), at: utc("2026-03-29T01:05:00Z")) == [.seen(id: 1)])
        // 2026-10-25, it falls back at 03:00 CEST: 02:50 CEST to 02:10 CET is 20 minutes, not minus 40.
        let fall = record(2, .opened, at: utc("2026-10-25T00:30:00Z"), lastSeen: utc("2026-10-25T00:50:00Z"), day: "2026-10-25")
        #expect(steps(config, front: [social], book([fall], day: "2026-10-25"), at: utc("2026-10-25T01:10:00Z"))
                == [.open(group: "social", outcome: .pausing, paused: true)])
    }

    @Test func eachTrackedGroupInFrontIsItsOwn() {
        let config = paused([social, capped5])
        let opened = record(2, .opened, at: noon - minute)
        #expect(steps(config, front: [social, capped5], book([opened]), at: noon)
                == [.seen(id: 2), .open(group: "video", outcome: .pausing, paused: true)])
    }
}
