import BlockerSystem
import Foundation
import Testing
@testable import BlockerDaemon
import BlockerCore
import TestSupport

/// Rows 1–3 of issue 20 in blockerd: the cover known by its process, a
/// shield with no cover drawn charged and recorded, an impostor ignored.
@Suite struct CoverWatchTests {
    /// A supervised daemon (an overlay path is set) with discord in front at
    /// a balance of 0: its shield goes up at the first tick. It started long
    /// before, so no start-up grace is left.
    func shielded(_ box: Sandbox, log: MemoryLog, clock: Clock, overlay: String = "/nonexistent/blocker-overlay") throws -> Daemon {
        var options = box.options
        options.overlayExecutable = overlay
        let daemon = try Daemon(options: options, log: log, environment: ["TZ": "UTC", "HOME": box.root],
                                wall: clock.wall, monotonic: clock.monotonic - 60_000)
        box.front("discord")
        daemon.tick(clock)
        #expect(daemon.shield?.reason == .balance)
        return daemon
    }

    func used(_ daemon: Daemon, _ clock: Clock) -> Milliseconds {
        daemon.snapshot(at: clock.wall).usedToday["social"] ?? 0
    }

    @Test func aShieldWithNoCoverDrawnIsChargedAndSaid() throws {
        // Row 2: blocker-overlay stopped, the shield "up" with nothing drawn:
        // nothing was charged or counted, and nothing said so.
        let box = try Sandbox()
        let log = MemoryLog()
        var clock = Clock()
        let daemon = try shielded(box, log: log, clock: clock)
        #expect(daemon.covers.coverage(at: clock.monotonic) == .missing)
        for _ in 0..<5 { clock.advance(1000); daemon.tick(clock) }
        #expect(used(daemon, clock) == 5000, "the time under a shield with no cover counts")
        let missing = try #require(log.events(.coverMissing).first)
        #expect(missing.field("APP") == "discord")
        #expect(missing.message.contains("no blocker-overlay running"))
        #expect(daemon.shield != nil, "the shield stays up, for the cover to show when it comes")

        // blocker-overlay comes back and draws: charging stops, the stretch is said whole.
        daemon.coverReported(client: ":1.9", pid: 4242, drawn: true, at: clock.monotonic)
        clock.advance(1000); daemon.tick(clock)
        for _ in 0..<5 { clock.advance(1000); daemon.tick(clock) }
        #expect(used(daemon, clock) == 6000, "the second before the cover came is charged, none after")
        let back = try #require(log.events(.coverBack).first)
        #expect(back.field("CHARGED_MS") == "6000" && back.field("APP") == "discord")
        #expect(log.events(.coverMissing).count == 1)
        // Kept for history and doctor too, not only said in the journal.
        let notes = try daemon.notes(since: 0)
        #expect(notes.map(\.kind) == [.uncovered], "\(notes)")
        #expect(notes.first?.text.contains("6s charged") == true, "\(notes)")
    }

    @Test func aDrawnCoverChargesNothing() throws {
        let box = try Sandbox()
        let log = MemoryLog()
        var clock = Clock()
        let daemon = try shielded(box, log: log, clock: clock)
        daemon.coverReported(client: ":1.9", pid: 4242, drawn: true, at: clock.monotonic)
        clock.advance(1000); daemon.tick(clock)
        for _ in 0..<5 { clock.advance(1000); daemon.tick(clock) }
        #expect(used(daemon, clock) == 1000, "only the second before the cover was drawn")
        #expect(daemon.covers.coverage(at: clock.monotonic) == .drawn(by: "blocker-overlay"))
    }

    @Test func aRunningOverlayHasItsGraceToDrawThenTheTimeIsCharged() throws {
        let box = try Sandbox()
        let log = MemoryLog()
        var clock = Clock()
        var options = box.options
        options.overlayExecutable = "/nonexistent/blocker-overlay"
        let daemon = try Daemon(options: options, log: log, environment: ["TZ": "UTC", "HOME": box.root],
                                wall: clock.wall, monotonic: clock.monotonic - 60_000)
        daemon.coverReported(client: ":1.9", pid: 4242, drawn: false, at: clock.monotonic)
        box.front("discord")
        daemon.tick(clock)
        #expect(daemon.shield != nil)
        #expect(daemon.covers.coverage(at: clock.monotonic) == .awaiting(until: clock.monotonic + CoverSupervisor.grace))
        for _ in 0..<3 { clock.advance(1000); daemon.tick(clock) }
        #expect(used(daemon, clock) == 0, "within the grace")
        for _ in 0..<4 { clock.advance(1000); daemon.tick(clock) }
        #expect(used(daemon, clock) == 4000, "it never drew: charged from the grace's end")
        #expect(log.events(.coverMissing).first?.message.contains("blocker-overlay drew nothing") == true)
        // It is killed: still charged, and blockerd asks for it back.
        final class Asked: DaemonObserver {
            var times = 0
            func shieldChanged(_ shield: Shield?, balance: Milliseconds) {}
            func balanceChanged(_ balance: Milliseconds) {}
            func warning(remaining: Milliseconds) {}
            func coverMissing() { times += 1 }
        }
        let asked = Asked()
        daemon.observer = asked
        daemon.coverClientLeft(":1.9")
        clock.advance(1000); daemon.tick(clock)
        #expect(used(daemon, clock) == 5000)
        #expect(asked.times == 1, "no overlay left: the user manager is asked to start one")
    }

    @Test func theCoverWindowIsPassedOverByItsProcessNotItsName() throws {
        // Row 1: the cover is the window of the checked process, whatever it
        // is called; an app called blocker-overlay is an app.
        let box = try Sandbox()
        try box.write(commandProbeConfig(frontFile: box.frontPath, sections: """
            [[group]]
            name = "social"
            apps = ["discord", "blocker-overlay"]
            """), to: box.configPath)
        let log = MemoryLog()
        var clock = Clock()
        var options = box.options
        options.overlayExecutable = "/nonexistent/blocker-overlay"
        let daemon = try Daemon(options: options, log: log, environment: ["TZ": "UTC", "HOME": box.root],
                                wall: clock.wall, monotonic: clock.monotonic - 60_000)
        _ = try daemon.earn(exercise: Exercise(name: "pushups", perRep: 60_000), reps: 1, wall: clock.wall)
        daemon.coverReported(client: ":1.9", pid: 4242, drawn: false, at: clock.monotonic)
        box.frontRaw(#"{"app":"notes","title":"t","pid":100}"#)
        daemon.tick(clock)
        // An app started with --class blocker-overlay: charged like any app of its group.
        box.frontRaw(#"{"app":"blocker-overlay","title":"discord","pid":200}"#)
        clock.advance(1000); daemon.tick(clock)
        #expect(daemon.meter.lastWindow?.pid == 200)
        clock.advance(2000); daemon.tick(clock)
        #expect(daemon.ledger.balance == 58_000)
        // The real cover (pid 4242), whatever its name: the app beneath stays in front.
        box.frontRaw(#"{"app":"cover","title":"blocker","pid":4242}"#)
        clock.advance(1000); daemon.tick(clock)
        #expect(daemon.meter.lastWindow?.pid == 200)
        clock.advance(1000); daemon.tick(clock)
        #expect(daemon.ledger.balance == 56_000, "still the app beneath's time")
    }

    @Test func anUnsupervisedDaemonTakesEveryShieldAsCovered() throws {
        // In-process tests without a cover (overlayExecutable nil) keep the old rule.
        let box = try Sandbox()
        let log = MemoryLog()
        var clock = Clock()
        let daemon = try box.daemon(log: log)
        box.front("discord")
        daemon.tick(clock)
        for _ in 0..<5 { clock.advance(1000); daemon.tick(clock) }
        #expect(used(daemon, clock) == 0)
        #expect(log.events(.coverMissing).isEmpty)
    }
}
