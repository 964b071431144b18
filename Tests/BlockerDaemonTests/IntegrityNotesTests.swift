import Testing
@testable import BlockerDaemon
import BlockerCore
import BlockerProbes
import TestSupport

/// What blockerd records of a way around it: in the journal as it happens,
/// in the ledger (IntegrityNote) for history and doctor.
@Suite struct IntegrityNotesTests {
    /// `kill -STOP` 25 s / `-CONT` 1 s, three times, with a metered app in
    /// front: every second charged, one stall note for the run of them.
    @Test func aStopContinueLoopIsChargedAndRecordedOnce() throws {
        let box = try Sandbox()
        box.front("discord")
        let log = MemoryLog()
        let daemon = try box.daemon(log: log)
        var clock = Clock()
        var boottime: BoottimeInstant = 9_000_000
        func step(_ ms: Milliseconds) {
            clock.advance(ms)
            boottime += ms
            daemon.tick(monotonic: clock.monotonic, boottime: boottime, wall: clock.wall)
        }
        _ = try daemon.earn(exercise: Exercise(name: "pushups", perRep: 30_000), reps: 10, wall: clock.wall)
        step(0)
        let start = clock.wall
        for _ in 0..<3 {
            step(25_000)
            step(1_000)
        }
        #expect(daemon.ledger.balance == (300_000 - 78_000) as Milliseconds)
        let notes = try daemon.notes(since: 0)
        #expect(notes.count == 1)
        let note = try #require(notes.first)
        #expect(note.kind == .stall)
        #expect(note.from == start + 2_000 && note.to == clock.wall - 1_000)
        #expect(note.text == "blockerd did not run (SIGSTOP or a stall) 3 times with discord in front: 1m 09s past the cap, "
            + "charged (the same app in front before and after)", "\(note.text)")
        #expect(log.events(.stall).count == 2)   // the first, the second; the third folded into the minute's line
    }

    /// `systemctl --user set-environment TZ=Etc/GMT-14` and a restart: a new
    /// "today" for the daily limits. The start records what changed.
    @Test func aRestartWithAnotherEnvironmentIsRecorded() throws {
        let box = try Sandbox()
        let clock = Clock()
        do {
            let first = try Daemon.reopened(options: box.options, log: MemoryLog(), environment: ["TZ": "UTC", "HOME": box.root],
                                            wall: clock.wall)
            first.shutdown(wall: clock.wall)
        }
        do {
            let log = MemoryLog()
            let second = try Daemon.reopened(options: box.options, log: log,
                                             environment: ["TZ": "Etc/GMT-14", "LD_PRELOAD": "/tmp/shim.so", "HOME": box.root],
                                             wall: clock.wall + 1000)
            let event = try #require(log.events(.environment).first)
            #expect(event.field("CHANGES") == "zone: UTC → Etc/GMT-14\nTZ: UTC → Etc/GMT-14\nLD_PRELOAD: unset → /tmp/shim.so")
            let notes = try second.notes(since: 0)
            #expect(notes.map(\.kind) == [.environment])
            #expect(notes.first?.text == "started with another environment than the last run: zone: UTC → Etc/GMT-14; "
                + "TZ: UTC → Etc/GMT-14; LD_PRELOAD: unset → /tmp/shim.so")
            second.shutdown(wall: clock.wall + 2000)
        }
        // The same again: nothing new to say.
        let third = try Daemon.reopened(options: box.options, log: MemoryLog(),
                                        environment: ["TZ": "Etc/GMT-14", "LD_PRELOAD": "/tmp/shim.so", "HOME": box.root],
                                        wall: clock.wall + 3000)
        #expect(try third.notes(since: 0).count == 1)
    }

    /// `[daemon] time-zone` names the zone: TZ from the environment no longer moves "today".
    @Test func theConfigsTimeZoneWinsOverTZ() throws {
        let box = try Sandbox(config: commandProbeConfig(frontFile: "/dev/null",
                                                          sections: "[[group]]\nname = \"social\"\napps = [\"discord\"]")
                                .replacingOccurrences(of: "[daemon]\n", with: "[daemon]\ntime-zone = \"Europe/Paris\"\n"))
        let daemon = try Daemon.reopened(options: box.options, log: MemoryLog(), environment: ["TZ": "Etc/GMT-14", "HOME": box.root])
        #expect(daemon.meter.zone.identifier == "Europe/Paris")
    }
}

extension IntegrityNotesTests {
    /// A probe that says what the test set, with the lock as a claim.
    final class ClaimingProbe: ForegroundProbe {
        var reading = Reading(window: nil)
        let name = "claiming"
        func sample() -> Result<Reading, ProbeFailure> { .success(reading) }
    }

    /// `busctl call … SetLockedHint true`, then switching windows: the lock
    /// is not honoured from the switch, the time is charged, and recorded.
    @Test func aLockClaimTheWindowsContradictIsChargedAndRecorded() throws {
        let box = try Sandbox()
        let log = MemoryLog()
        let daemon = try box.daemon(log: log)
        let probe = ClaimingProbe()
        daemon.use(probe: probe)
        var clock = Clock()
        _ = try daemon.earn(exercise: Exercise(name: "pushups", perRep: 30_000), reps: 10, wall: clock.wall)
        let discord = Window(appID: "discord", title: "chat", pid: 42), notes = Window(appID: "notes", title: "n", pid: 43)
        probe.reading = Reading(window: notes, locked: true, lockClaim: "logind's LockedHint")
        daemon.tick(clock)
        let since = clock.wall
        clock.advance(1000)
        probe.reading.window = discord
        daemon.tick(clock)
        #expect(!daemon.locked)
        for _ in 0..<10 {
            clock.advance(1000)
            daemon.tick(clock)
        }
        #expect(daemon.ledger.balance == (300_000 - 10_000) as Milliseconds)
        let event = try #require(log.events(.lockNotHonoured).first)
        #expect(event.field("REASON") == "the window in front changed (notes → discord)")
        probe.reading = Reading(window: discord)
        clock.advance(1000)
        daemon.tick(clock)
        let note = try #require(try daemon.notes(since: 0).first)
        #expect(note.kind == .lockNotHonoured && note.from == since && note.to == clock.wall)
        #expect(note.text.hasPrefix("logind's LockedHint said the screen is locked, but the window in front changed (notes → discord): "
            + "not honoured, charged from "), "\(note.text)")
    }
}
