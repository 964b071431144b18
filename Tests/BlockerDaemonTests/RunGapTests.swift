import Foundation
import Testing
@testable import BlockerDaemon
import BlockerCore
import BlockerProbes
import BlockerStore
import TestSupport

/// The ledger's record of every run, and the gap each start logs.
@Suite struct RunGapTests {
    @Test func aCleanStopAKillAndARecordedCauseEachNameTheirGap() throws {
        let box = try Sandbox()
        let env = ["TZ": "UTC", "HOME": box.root]
        var clock = Clock()
        // A clean stop.
        do {
            let first = try Daemon.reopened(options: box.options, log: MemoryLog(), environment: env, wall: clock.wall)
            clock.advance(60_000)
            first.shutdown(wall: clock.wall)
        }
        clock.advance(70 * 60_000)
        let log = MemoryLog()
        do {
            let second = try Daemon.reopened(options: box.options, log: log, environment: env, wall: clock.wall)
            let gap = try #require(log.events(.gap).first)
            #expect(gap.field("REASON") == "stopped")
            #expect(gap.field("GAP_MS") == "\(70 * 60_000)")
            // Alive for two minutes, ticking; then dropped as by kill -9.
            for _ in 0..<4 { clock.advance(30_000); second.tick(clock) }
        }
        let lastTick = clock.wall
        clock.advance(10 * 60_000)
        let log3 = MemoryLog()
        _ = try Daemon.reopened(options: box.options, log: log3, environment: env, wall: clock.wall)
        let killed = try #require(log3.events(.gap).first)
        #expect(killed.field("REASON") == Gap.unknown)
        #expect(killed.field("FROM_MS") == "\(lastTick)")
        #expect(killed.message == "blockerd was off 10m 00s (since \(ShieldText.clock(lastTick, now: clock.wall, zone: try TimeZoneRules(posix: "UTC0")))): \(Gap.unknown)")
    }

    @Test func theGapsUnguardedPartIsFromTheEarliestGraphicalSessionLogindStillHas() throws {
        let box = try Sandbox()
        let env = ["TZ": "UTC", "HOME": box.root]
        var clock = Clock()
        do {
            let first = try Daemon.reopened(options: box.options, log: MemoryLog(), environment: env, wall: clock.wall)
            first.shutdown(wall: clock.wall)
        }
        let gapStart = clock.wall
        clock.advance(70 * 60_000)
        // Sessions began 1 min into the gap and 30 min into it; a tty session is not asked about here.
        var askedUID: UInt32?
        let log = MemoryLog()
        do {
            _ = try Daemon.reopened(options: box.options, log: log, environment: env, wall: clock.wall) { uid, _ in
                askedUID = uid
                return .success([gapStart + 30 * 60_000, gapStart + 60_000])
            }
        }
        #expect(askedUID == getuid())
        let gap = try #require(log.events(.gap).first)
        #expect(gap.field("UNGUARDED_MS") == "\(69 * 60_000)")
        #expect(gap.message.hasSuffix("stopped; 1h 09m of it in the graphical session"), "\(gap.message)")
        let ledger = try Ledger.open(stateDirectory: box.stateDirectory)
        defer { ledger.close() }
        let gaps = Gap.between(try ledger.runs(since: 0))
        #expect(gaps == [Gap(from: gapStart, to: clock.wall, reason: "stopped", unguardedSince: gapStart + 60_000)])
        let unguarded: Milliseconds? = .minutes(69)
        #expect(gaps.first?.unguarded == unguarded)
    }

    @Test func withoutLogindAGapHasNoUnguardedFigureAndOneInfoLine() throws {
        let box = try Sandbox()
        let env = ["TZ": "UTC", "HOME": box.root]
        var clock = Clock()
        do {
            let first = try Daemon.reopened(options: box.options, log: MemoryLog(), environment: env, wall: clock.wall)
            first.shutdown(wall: clock.wall)
        }
        clock.advance(60_000)
        let log = MemoryLog()
        _ = try Daemon.reopened(options: box.options, log: log, environment: env, wall: clock.wall) { _, _ in
            .failure(.init("cannot connect to the system bus at unix:path=/nowhere"))
        }
        let gap = try #require(log.events(.gap).first)
        #expect(gap.field("UNGUARDED_MS") == nil)
        #expect(gap.message.hasSuffix("): stopped"), "\(gap.message)")
        let lines = log.events.filter { $0.message.contains("No unguarded time") }
        #expect(lines.count == 1 && lines.first?.priority == .info)
        #expect(lines.first?.message.contains("/nowhere") == true)
    }

    @Test func theRealLogindQueryWithoutASystemBusSaysWhy() {
        let result = GraphicalSessions.starts(uid: getuid(), environment: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/bus"])
        guard case let .failure(why) = result else { Issue.record("answered without a bus: \(result)"); return }
        #expect(why.description.contains("/nonexistent/bus"))
    }

    @Test func recordStopOverridesWhatOnlySystemdKnows() throws {
        let box = try Sandbox()
        let env = ["TZ": "UTC", "HOME": box.root]
        var clock = Clock()
        do { _ = try Daemon.reopened(options: box.options, log: MemoryLog(), environment: env, wall: clock.wall) }   // dropped: no stop recorded
        #expect(StopCause.record(stateDirectory: box.stateDirectory,
                                 environment: ["SERVICE_RESULT": "watchdog", "EXIT_CODE": "killed", "EXIT_STATUS": "ABRT"]) == nil)
        clock.advance(60_000)
        let log = MemoryLog()
        do {
            let daemon = try Daemon.reopened(options: box.options, log: log, environment: env, wall: clock.wall)
            #expect(log.events(.gap).first?.field("REASON") == "watchdog: it stopped answering and systemd killed it")
            // A clean stop is not overwritten by a later "success".
            daemon.shutdown(wall: clock.wall + 1000)
        }
        #expect(StopCause.record(stateDirectory: box.stateDirectory, environment: ["SERVICE_RESULT": "success"]) == nil)
        let ledger = try Ledger.open(stateDirectory: box.stateDirectory)
        defer { ledger.close() }
        let runs = try ledger.runs(since: 0)
        #expect(runs.map(\.endReason) == ["watchdog: it stopped answering and systemd killed it", "stopped"])
    }

    @Test(arguments: [
        ("success", "0", nil as String?),
        ("signal", "KILL", "killed with SIGKILL"),
        ("signal", "TERM", "killed by SIGTERM"),
        ("core-dump", "SEGV", "crashed (SIGSEGV, core dumped)"),
        ("watchdog", "ABRT", "watchdog: it stopped answering and systemd killed it"),
        ("exit-code", "69", "exited with status 69"),
    ])
    func systemdsServiceResultInWords(_ result: String, _ status: String, _ reason: String?) {
        #expect(StopCause.reason(serviceResult: result, exitCode: nil, exitStatus: status)?.reason == reason)
    }

    @Test func aGapRunsFromTheLastSignOfLifeToTheNextStart() {
        let runs = [RunRecord(id: 1, pid: 1, started: 0, lastTick: 5000, ended: 9000, endReason: "stopped"),
                    RunRecord(id: 2, pid: 2, started: 9000, lastTick: 20_000, ended: nil, endReason: nil),
                    RunRecord(id: 3, pid: 3, started: 80_000, lastTick: 80_000, ended: nil, endReason: nil)]
        #expect(Gap.between(runs) == [Gap(from: 20_000, to: 80_000, reason: Gap.unknown)])
    }
}

@Suite struct LedgerEditDaemonTests {
    @Test func anEditWhileStoppedIsSaidAtTheNextStart() throws {
        let box = try Sandbox()
        let env = ["TZ": "UTC", "HOME": box.root]
        let clock = Clock()
        let path: String
        do {
            let daemon = try Daemon.reopened(options: box.options, log: MemoryLog(), environment: env, wall: clock.wall)
            _ = try daemon.earn(exercise: Exercise(name: "pushups", perRep: 30_000), reps: 2, wall: clock.wall)
            path = daemon.ledger.path
            daemon.shutdown(wall: clock.wall)
        }
        let edit = try run(["/usr/bin/sqlite3", path, "DELETE FROM timed_blocks; UPDATE earnings SET reps = 200"])
        #expect(edit.status == 0, "\(edit.stderr)")
        let log = MemoryLog()
        _ = try Daemon.reopened(options: box.options, log: log, environment: env, wall: clock.wall + 60_000)
        #expect(log.events.filter { $0.message.hasPrefix("The ledger \(path) was edited outside blocker") }.count == 1)
        #expect(try LedgerIntegrity.inspect(path: path).edits.count == 1)
    }
}
