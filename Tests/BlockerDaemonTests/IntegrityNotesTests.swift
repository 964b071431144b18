import Testing
@testable import BlockerDaemon
import BlockerCore
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
        var boottime: Int64 = 9_000_000
        func step(_ ms: Int64) {
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
        #expect(daemon.ledger.balance == 300_000 - 78_000)
        let notes = try daemon.notes(sinceMs: 0)
        #expect(notes.count == 1)
        let note = try #require(notes.first)
        #expect(note.kind == .stall)
        #expect(note.fromMs == start + 2_000 && note.toMs == clock.wall - 1_000)
        #expect(note.text == "blockerd did not run (SIGSTOP or a stall) 3 times with discord in front: 1m 09s charged "
            + "(the same app in front before and after)", "\(note.text)")
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
            let notes = try second.notes(sinceMs: 0)
            #expect(notes.map(\.kind) == [.environment])
            #expect(notes.first?.text == "started with another environment than the last run: zone: UTC → Etc/GMT-14; "
                + "TZ: UTC → Etc/GMT-14; LD_PRELOAD: unset → /tmp/shim.so")
            second.shutdown(wall: clock.wall + 2000)
        }
        // The same again: nothing new to say.
        let third = try Daemon.reopened(options: box.options, log: MemoryLog(),
                                        environment: ["TZ": "Etc/GMT-14", "LD_PRELOAD": "/tmp/shim.so", "HOME": box.root],
                                        wall: clock.wall + 3000)
        #expect(try third.notes(sinceMs: 0).count == 1)
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
