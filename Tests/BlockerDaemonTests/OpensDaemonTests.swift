import Foundation
import Testing
@testable import BlockerDaemon
import BlockerCore
import BlockerProbes
import BlockerStore
import TestSupport

/// Opens, pauses and passes through the daemon, against the real ledger and
/// the command probe: what is charged during a pause, the opens cap at local
/// midnight, and counts that a restart or a kill -9 neither loses nor doubles.
@Suite struct OpensDaemonTests {
    let pushups = Exercise(name: "pushups", perRep: 30_000)

    static let sections = """
        [pause]
        seconds = 10
        after = "15m"

        [pass]
        per-week = 1
        length = "15m"

        [[group]]
        name = "social"
        apps = ["discord"]
        opens-per-day = 2

        [[group]]
        name = "tools"
        apps = ["notes"]
        metered = false
        """

    func sandbox(_ sections: String = Self.sections) throws -> Sandbox {
        let box = try Sandbox()
        try box.write(commandProbeConfig(frontFile: box.frontPath, warnBefore: nil, sections: sections), to: box.configPath)
        return box
    }

    func reopen(_ box: Sandbox, zone: String = "UTC", log: MemoryLog = MemoryLog()) throws -> Daemon {
        try Daemon.reopened(options: box.options, log: log, environment: ["TZ": zone, "HOME": box.root])
    }

    /// The ledger's opens of the last `days` local days up to `clock`'s.
    func opens(_ daemon: Daemon, days: Int = 1, at clock: Clock) throws -> [OpenDaySummary] {
        let today = daemon.meter.zone.localDate(at: clock.wall)
        return try daemon.ledger.opensHistory(fromDay: today.adding(days: 1 - days), toDay: today)
    }

    /// `reps` pushups earned (30 s each), then discord (social) in front for a tick.
    func earnThenDiscord(_ daemon: Daemon, _ box: Sandbox, at clock: Clock, reps: Int) throws {
        _ = try daemon.earn(exercise: pushups, reps: reps, wall: clock.wall)
        box.front("discord")
        daemon.tick(clock)
    }

    /// `app` in front for one tick after `away` (the group's last tick before it).
    func bringToFront(_ app: String, after away: Milliseconds, _ box: Sandbox, _ daemon: Daemon, _ clock: inout Clock) {
        box.front("notes")
        clock.advance(1000)
        daemon.tick(clock)
        clock.advance(away)
        box.front(app)
        daemon.tick(clock)
    }

    @Test func aPauseIsChargedNothingAndOpenWorksOnlyOnceTheCountdownEnds() throws {
        let box = try sandbox()
        let daemon = try reopen(box)
        var clock = Clock()
        try earnThenDiscord(daemon, box, at: clock, reps: 10)
        #expect(daemon.shield?.reason == .pause)
        #expect(daemon.shield?.until == clock.wall + .seconds(10))
        for _ in 0..<9 { clock.advance(1000); daemon.tick(clock) }
        #expect(daemon.ledger.balance == .seconds(300), "charged during the pause")
        let early = #expect(throws: AnswerFailure.self) {
            try daemon.answerPause(group: "social", open: true, reason: "", wall: clock.wall)
        }
        guard case .tooSoon? = early else { Issue.record("not refused as too soon: \(String(describing: early))"); return }
        clock.advance(1000)
        daemon.tick(clock)
        try daemon.answerPause(group: "social", open: true, reason: "  a friend wrote ", wall: clock.wall)
        #expect(daemon.shield == nil)
        // Charged from the first tick that sees it uncovered: 4 of these 5 s.
        for _ in 0..<5 { clock.advance(1000); daemon.tick(clock) }
        #expect(daemon.ledger.balance == .seconds(296))
        let day = try #require(opens(daemon, days: 1, at: clock).first)
        #expect((day.opens, day.paused, day.notNow, day.reasons) == (1, 1, 0, ["a friend wrote"]))
    }

    /// An open's last_seen moves only while its app is in front and charged
    /// (a pause or a cover stops it), so the batch's bound on time in front
    /// holds it too: a kill -9 loses at most 10 s of it.
    @Test func anOpensLastSeenIsWrittenWithTheTimeInFront() throws {
        let box = try sandbox()
        let daemon = try reopen(box)
        var clock = Clock()
        try earnThenDiscord(daemon, box, at: clock, reps: 10)
        clock.advance(.seconds(10)); daemon.tick(clock)
        try daemon.answerPause(group: "social", open: true, reason: "", wall: clock.wall)
        for _ in 0..<25 { clock.advance(1000); daemon.tick(clock) }
        let written = try Ledger.open(stateDirectory: box.stateDirectory)
            .openBook(day: daemon.meter.zone.localDate(at: clock.wall), passesSince: 0)
        let seen = try #require(written.latest["social"]).lastSeen
        #expect(seen >= clock.wall - Daemon.commitEveryMs, "last_seen written \(clock.wall - seen) ago")
        #expect(seen > clock.wall - .seconds(25), "not written since the answer")
    }

    @Test(arguments: [("gnome-shell", true), ("kwin_wayland", false)])
    func aShellsOwnCoverPausesOnlyWhereItDrawsThePause(shell: String, pauses: Bool) throws {
        let box = try sandbox()
        let daemon = try reopen(box)
        let clock = Clock()
        _ = try daemon.earn(exercise: pushups, reps: 10, wall: clock.wall)
        daemon.shellCoverChanged(shell)
        box.front("discord")
        daemon.tick(clock)
        #expect((daemon.shield?.reason == .pause) == pauses)
        let day = try #require(try opens(daemon, at: clock).first)
        #expect((day.opens, day.paused) == (1, pauses ? 1 : 0))
    }

    @Test func notNowWhereTheProbeCannotHideKeepsTheCoverUntilAnotherWindowAndIsRecordedThen() throws {
        let box = try sandbox()
        let daemon = try reopen(box)
        var clock = Clock()
        try earnThenDiscord(daemon, box, at: clock, reps: 10)
        try daemon.answerPause(group: "social", open: false, reason: "", wall: clock.wall)      // the command probe cannot hide
        for _ in 0..<20 { clock.advance(1000); daemon.tick(clock) }
        #expect(daemon.shield?.reason == .pause, "the app opened under \"Not now\"")
        #expect(daemon.ledger.balance == .seconds(300))
        box.front("notes")
        clock.advance(1000)
        daemon.tick(clock)
        #expect(daemon.shield == nil)
        // Recorded once another window has held the front for the grace (a flicker is no answer).
        clock.advance(Daemon.leaveGrace)
        daemon.tick(clock)
        let day = try #require(opens(daemon, days: 1, at: clock).first)
        #expect((day.opens, day.notNow, day.left) == (1, 1, 0))
    }

    /// KWin minimizes from a script and reports the change after it: the
    /// probe says the window is in front for a moment after "Not now".
    @Test func aWindowNotNowHidStillReportedAMomentIsNoNewOpenAndChargedNothing() throws {
        let box = try sandbox()
        let daemon = try reopen(box)
        let probe = StaleHideProbe()
        daemon.use(probe: probe)
        var clock = Clock()
        _ = try daemon.earn(exercise: pushups, reps: 10, wall: clock.wall)
        let discord = Window(wmClass: "discord", pid: 42, handle: .x11(0x400001))
        probe.front = discord
        daemon.tick(clock)
        #expect(daemon.shield?.reason == .pause)
        try daemon.answerPause(group: "social", open: false, reason: "", wall: clock.wall)
        #expect(probe.hidden == [discord])
        let balance = daemon.ledger.balance
        // The window manager moves the focus a moment later: the probe still says discord.
        clock.advance(200)
        daemon.tick(clock)
        #expect(daemon.shield == nil, "nothing is in front: the window is on its way out")
        probe.front = nil
        clock.advance(200)
        daemon.tick(clock)
        #expect(daemon.ledger.balance == balance, "the hidden window's last moments were charged")
        #expect(try opens(daemon, at: clock).map { "\($0.opens) \($0.notNow) \($0.left)" } == ["1 1 0"])
        // Back for real after the grace: a new open, a new pause.
        probe.front = discord
        clock.advance(.seconds(2))
        daemon.tick(clock)
        #expect(daemon.shield?.reason == .pause)
    }

    @Test func aPauseLeftAndBackAtTheNextTickPausesAgain() throws {
        let box = try sandbox()
        let daemon = try reopen(box)
        var clock = Clock()
        try earnThenDiscord(daemon, box, at: clock, reps: 10)
        // One tick each, as an event-driven probe (GNOME, KDE) ticks only on a change.
        box.front("notes")
        clock.advance(1000)
        daemon.tick(clock)
        #expect(daemon.shield == nil)
        box.front("discord")
        clock.advance(5000)
        daemon.tick(clock)
        #expect(daemon.shield?.reason == .pause, "back after a pause left: no new pause")
        #expect(try opens(daemon, at: clock).map { "\($0.opens) \($0.left)" } == ["2 1"])
    }

    @Test func aFocusFlickerOffAPausingAppIsNoAnswerAndOpensNothing() throws {
        let box = try sandbox()
        let daemon = try reopen(box)
        var clock = Clock()
        try earnThenDiscord(daemon, box, at: clock, reps: 10)
        #expect(daemon.shield?.reason == .pause)
        // The cover mapping, or the window manager passing the focus: another window for 20 ms.
        box.front("notes")
        clock.advance(20)
        daemon.tick(clock)
        box.front("discord")
        clock.advance(20)
        daemon.tick(clock)
        #expect(daemon.shield?.reason == .pause, "the same pause")
        for _ in 0..<3 { clock.advance(1000); daemon.tick(clock) }
        #expect(try opens(daemon, at: clock).map { "\($0.opens) \($0.paused) \($0.left)" } == ["1 1 0"])
    }

    @Test func theOpenAfterOpensPerDayIsCappedUntilLocalMidnight() throws {
        let box = try sandbox(Self.sections.replacingOccurrences(of: "seconds = 10", with: "seconds = 0"))
        // 2026-12-02 22:00 in Paris (21:00 UTC).
        var clock = Clock(monotonic: 5_000_000, wall: WallInstant(ms: 1_796_245_200_000))
        let daemon = try reopen(box, zone: "Europe/Paris")
        try earnThenDiscord(daemon, box, at: clock, reps: 100)
        #expect(daemon.shield == nil)
        bringToFront("discord", after: .minutes(10), box, daemon, &clock)                       // within after: the same open
        #expect(daemon.shield == nil)
        bringToFront("discord", after: .minutes(16), box, daemon, &clock)                       // the second
        #expect(daemon.shield == nil)
        bringToFront("discord", after: .minutes(16), box, daemon, &clock)                       // the third: capped
        #expect(daemon.shield?.reason == .opensCap)
        let midnight = WallInstant(ms: 1_796_252_400_000)                                       // 00:00 in Paris
        #expect(daemon.shield?.until == midnight)
        let before = daemon.ledger.balance
        for _ in 0..<5 { clock.advance(1000); daemon.tick(clock) }
        #expect(daemon.ledger.balance == before, "charged under the opens cap")
        // The next local day: the first open is allowed again.
        bringToFront("discord", after: midnight - clock.wall, box, daemon, &clock)
        #expect(daemon.shield == nil)
        let days = try opens(daemon, days: 2, at: clock)
        #expect(days.map { "\($0.day) \($0.opens) \($0.capped)" } == ["2026-12-02 3 1", "2026-12-03 1 0"])
    }

    @Test func anOpenIsCountedOnceAcrossAKillAndARestart() throws {
        let box = try sandbox()
        var clock = Clock()
        do {
            let daemon = try reopen(box)
            try earnThenDiscord(daemon, box, at: clock, reps: 100)
            clock.advance(.seconds(10))
            try daemon.answerPause(group: "social", open: true, reason: "", wall: clock.wall)
            for _ in 0..<15 { clock.advance(1000); daemon.tick(clock) }
            // Dropped without shutdown(), as after kill -9.
        }
        clock.advance(.seconds(5))
        do {
            let restarted = try reopen(box)
            restarted.tick(clock)
            #expect(restarted.shield == nil, "the open went on: no second pause")
            clock.advance(1000)
            restarted.tick(clock)
            restarted.shutdown(reason: "test", monotonic: clock.monotonic, wall: clock.wall)
        }
        let again = try reopen(box)
        again.tick(clock)
        #expect(again.shield == nil)
        let day = try #require(opens(again, days: 1, at: clock).first)
        #expect((day.opens, day.paused) == (1, 1))
    }

    @Test func aPauseAKillInterruptedIsNotAnsweredAndTheNextAppearanceIsANewOpen() throws {
        let box = try sandbox()
        var clock = Clock()
        do {
            let daemon = try reopen(box)
            try earnThenDiscord(daemon, box, at: clock, reps: 100)
            #expect(daemon.shield?.reason == .pause)
        }
        clock.advance(.seconds(3))
        let restarted = try reopen(box)
        restarted.tick(clock)
        #expect(restarted.shield?.reason == .pause, "a restart let the app open without its pause")
        let days = try opens(restarted, days: 1, at: clock)
        #expect(days.map { "\($0.opens) \($0.paused)" } == ["2 2"])
    }

    @Test func aPassLiftsTheZeroBalanceForExactlyItsLengthInStrictModeAndIsUsedOnceAcrossARestart() throws {
        let strict = "[strict]\ndelay = \"24h\"\n\n" + Self.sections.replacingOccurrences(of: "seconds = 10", with: "seconds = 0")
        let box = try sandbox(strict)
        var clock = Clock()
        do {
            let daemon = try reopen(box)
            box.front("discord")
            daemon.tick(clock)
            #expect(daemon.shield?.reason == .balance)
            let pass = try daemon.usePass(group: "social", wall: clock.wall)
            #expect(pass.until == clock.wall + .minutes(15))
            daemon.tick(clock)
            #expect(daemon.shield == nil)
            #expect(daemon.lastTick?.nextRuleChange == pass.until, "no wake-up at the pass's end")
            clock.advance(.minutes(15) - 1000)
            daemon.tick(clock)
            #expect(daemon.shield == nil)
            clock.advance(1000)
            daemon.tick(clock)
            #expect(daemon.shield?.reason == .balance, "the pass outlived its length")
            #expect(daemon.ledger.balance == 0)
            daemon.shutdown(reason: "test", monotonic: clock.monotonic, wall: clock.wall)
        }

        let restarted = try reopen(box)
        let refused = #expect(throws: PassFailure.self) { try restarted.usePass(group: "social", wall: clock.wall) }
        guard case let .refused(message)? = refused else { Issue.record("not refused: \(String(describing: refused))"); return }
        // Clock() is Mon 2026-11-30 (UTC): the next pass comes the Monday after.
        #expect(message.contains("the next from Mon 2026-12-07 00:00"), "\(message)")
        let passes = try restarted.ledger.openBook(day: restarted.meter.zone.localDate(at: clock.wall),
                                                  passesSince: WallInstant(ms: 0)).passes
        #expect(passes.count == 1)
    }

    @Test func aPassUsedLateOnSundayStillLiftsAfterMondaysMidnight() throws {
        let box = try sandbox(Self.sections.replacingOccurrences(of: "seconds = 10", with: "seconds = 0"))
        // Sun 2026-12-06 23:55 UTC.
        var clock = Clock(monotonic: 5_000_000, wall: WallInstant(ms: 1_796_601_300_000))
        let daemon = try reopen(box)
        box.front("discord")
        daemon.tick(clock)
        #expect(daemon.shield?.reason == .balance)
        _ = try daemon.usePass(group: "social", wall: clock.wall)
        clock.advance(.minutes(10))                                                            // Monday 00:05
        daemon.tick(clock)
        #expect(daemon.shield == nil, "the pass ended at midnight")
        clock.advance(.minutes(5))
        daemon.tick(clock)
        #expect(daemon.shield?.reason == .balance)
        // A new week: Sunday's pass does not count against it.
        _ = try daemon.usePass(group: "social", wall: clock.wall)
    }
}

/// A FAKE probe, for this unit test only (the real hides run in HideTests on
/// Xvfb + openbox and sway): says what the test puts in front, and answers
/// `hide` as the X11 probe does once the window manager iconified the window,
/// while the test decides when the focus moves.
final class StaleHideProbe: ForegroundProbe {
    var name: String { "fake" }
    var front: Window?
    private(set) var hidden: [Window] = []
    func sample() -> Result<Reading, ProbeFailure> { .success(Reading(window: front)) }
    func hide(_ window: Window) -> HideResult {
        hidden.append(window)
        return .hidden
    }
}
