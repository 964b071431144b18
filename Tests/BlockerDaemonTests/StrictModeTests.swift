import BlockerSystem
import Foundation
import Testing
@testable import BlockerDaemon
import BlockerCore
import TestSupport

/// Strict mode in the daemon, with the real ledger and config files: what
/// loosens waits in the ledger (across restarts and edits) and applies at its
/// instant; what tightens applies at once.
@Suite struct StrictModeTests {
    let hour: Milliseconds = .hours(1)

    /// The sandbox's config with `[strict] delay` (nil: none) and social's daily limit.
    func write(_ box: Sandbox, delay: String? = "1h", limit: String = "1h", apps: String = "\"discord\"") throws {
        let strict = delay.map { "[strict]\ndelay = \"\($0)\"\n\n" } ?? ""
        let groups = """
            [[group]]
            name = "social"
            apps = [\(apps)]
            daily-limit = "\(limit)"
            """
        try box.write(commandProbeConfig(frontFile: box.frontPath, sections: strict + groups), to: box.configPath)
    }

    func limit(_ daemon: Daemon) -> Milliseconds? { daemon.config.group(named: "social")?.dailyLimit }

    @Test func aLooseningWaitsATighteningAppliesAtOnce() throws {
        let box = try Sandbox()
        try write(box)
        var clock = Clock()
        let log = MemoryLog()
        let daemon = try Daemon.reopened(options: box.options, log: log, environment: ["TZ": "UTC", "HOME": box.root], wall: clock.wall)
        #expect(limit(daemon) == hour)
        // A higher limit (loosens) and a new app (tightens), in one edit.
        try write(box, limit: "2h", apps: "\"discord\", \"slack\"")
        #expect(throws: Never.self) { try daemon.reload(wall: clock.wall).get() }
        #expect(limit(daemon) == hour)
        #expect(daemon.config.group(named: "social")?.apps == ["discord", "slack"])
        let pending = daemon.pendingChanges(now: clock.wall)
        #expect(pending.map(\.applyAt) == [clock.wall + hour])
        #expect(pending.first?.changes == ["group \"social\".daily-limit: 1h 00m → 2h 00m"])
        let event = try #require(log.events(.configPending).first)
        #expect(event.field("APPLY_MS") == "\(clock.wall + hour)")

        clock.advance(hour - 1000)
        daemon.tick(clock)
        #expect(limit(daemon) == hour)
        clock.advance(1000)
        daemon.tick(clock)
        #expect(limit(daemon) == 2 * hour)
        #expect(daemon.pendingChanges(now: clock.wall).isEmpty)
        #expect(log.events(.configApplied).first?.field("CHANGES") == "group \"social\".daily-limit: 1h 00m → 2h 00m")
    }

    @Test func pendingChangesSurviveAKillAndApplyAfterARestart() throws {
        let box = try Sandbox()
        try write(box)
        var clock = Clock()
        let env = ["TZ": "UTC", "HOME": box.root]
        do {
            let first = try Daemon.reopened(options: box.options, log: MemoryLog(), environment: env, wall: clock.wall)
            try write(box, limit: "3h")
            _ = first.reload(wall: clock.wall)
            // Dropped without shutdown(), as after kill -9.
        }
        clock.advance(10 * 60_000)
        do {
            let second = try Daemon.reopened(options: box.options, log: MemoryLog(), environment: env, wall: clock.wall)
            #expect(limit(second) == hour)                                 // the ledger's, not the file's
            #expect(second.pendingChanges(now: clock.wall).map(\.applyAt) == [clock.wall - 10 * 60_000 + hour])
        }
        clock.advance(hour)
        let third = try Daemon.reopened(options: box.options, log: MemoryLog(), environment: env, wall: clock.wall)
        third.tick(clock)
        #expect(limit(third) == 3 * hour)
        #expect(third.pendingChanges(now: clock.wall).isEmpty)
    }

    @Test func anEditWhileStoppedIsComparedAtTheNextStart() throws {
        let box = try Sandbox()
        try write(box)
        let clock = Clock()
        let env = ["TZ": "UTC", "HOME": box.root]
        _ = try Daemon.reopened(options: box.options, log: MemoryLog(), environment: env, wall: clock.wall)
        try write(box, limit: "5h")
        let log = MemoryLog()
        let daemon = try Daemon.reopened(options: box.options, log: log, environment: env, wall: clock.wall + 1000)
        #expect(limit(daemon) == hour)
        #expect(daemon.pendingChanges(now: clock.wall + 1000).count == 1)
        #expect(log.events(.configPending).count == 1)
    }

    @Test func furtherEditsQueueAndAnEditBackDropsThem() throws {
        let box = try Sandbox()
        try write(box)
        var clock = Clock()
        let daemon = try Daemon.reopened(options: box.options, log: MemoryLog(), environment: ["TZ": "UTC", "HOME": box.root], wall: clock.wall)
        try write(box, limit: "2h")
        _ = daemon.reload(wall: clock.wall)
        clock.advance(60_000)
        try write(box, limit: "3h")
        _ = daemon.reload(wall: clock.wall)
        #expect(daemon.pendingChanges(now: clock.wall).map(\.applyAt) == [clock.wall - 60_000 + hour, clock.wall + hour])
        // The first applies at its own instant: 2h, not yet 3h.
        clock.advance(hour - 60_000)
        daemon.tick(clock)
        #expect(limit(daemon) == 2 * hour)
        // Back to 1h: a tightening, at once, and nothing is left waiting.
        try write(box, limit: "1h")
        _ = daemon.reload(wall: clock.wall)
        #expect(limit(daemon) == hour)
        #expect(daemon.pendingChanges(now: clock.wall).isEmpty)
        clock.advance(2 * hour)
        daemon.tick(clock)
        #expect(limit(daemon) == hour)
    }

    @Test func leavingStrictModeIsItselfDelayed() throws {
        let box = try Sandbox()
        try write(box)
        var clock = Clock()
        let daemon = try Daemon.reopened(options: box.options, log: MemoryLog(), environment: ["TZ": "UTC", "HOME": box.root], wall: clock.wall)
        try write(box, delay: nil, limit: "2h")
        _ = daemon.reload(wall: clock.wall)
        #expect(daemon.config.strict.delay == hour && limit(daemon) == hour)
        #expect(daemon.pendingChanges(now: clock.wall).first?.changes.sorted()
            == ["group \"social\".daily-limit: 1h 00m → 2h 00m", "strict.delay: 1h 00m → none"])
        clock.advance(hour)
        daemon.tick(clock)
        #expect(daemon.config.strict.delay == nil && limit(daemon) == 2 * hour)
        // Out of strict mode: a loosening applies at once.
        try write(box, delay: nil, limit: "4h")
        _ = daemon.reload(wall: clock.wall)
        #expect(limit(daemon) == 4 * hour)
    }

    @Test func cancelledChangesNeverApplyAndStayCancelledAcrossARestart() throws {
        let box = try Sandbox()
        try write(box)
        var clock = Clock()
        let env = ["TZ": "UTC", "HOME": box.root]
        do {
            let daemon = try Daemon.reopened(options: box.options, log: MemoryLog(), environment: env, wall: clock.wall)
            try write(box, limit: "2h", apps: "\"discord\", \"slack\"")
            _ = daemon.reload(wall: clock.wall)
            #expect(try daemon.cancelPendingConfig(wall: clock.wall) == 1)
            #expect(daemon.pendingChanges(now: clock.wall).isEmpty)
        }
        clock.advance(2 * hour)
        let daemon = try Daemon.reopened(options: box.options, log: MemoryLog(), environment: env, wall: clock.wall)
        daemon.tick(clock)
        #expect(limit(daemon) == hour)                                            // never applied
        #expect(daemon.config.group(named: "social")?.apps == ["discord", "slack"])   // the tightening stays
        #expect(daemon.pendingChanges(now: clock.wall).isEmpty)
    }

    /// A broken blocker.toml and a restart used to be exit 78, nothing
    /// enforced until fixed: in strict mode blockerd now runs on the version
    /// in force from the ledger, says so, and records the time it did.
    @Test func aBrokenFileAtStartRunsOnTheConfigInForce() throws {
        let box = try Sandbox()
        try write(box)
        var clock = Clock()
        let env = ["TZ": "UTC", "HOME": box.root]
        do {
            let first = try Daemon.reopened(options: box.options, log: MemoryLog(), environment: env, wall: clock.wall)
            first.shutdown(wall: clock.wall)
        }
        try box.write("[strict]\ndelay = \n", to: box.configPath)
        clock.advance(60_000)
        let log = MemoryLog()
        let daemon = try Daemon.reopened(options: box.options, log: log, environment: env, wall: clock.wall)
        #expect(limit(daemon) == hour)
        #expect(daemon.config.strict.delay == hour)
        let problem = try #require(daemon.configProblem)
        #expect(problem.hasPrefix("\(box.configPath) does not load (\(box.configPath):2:"), "\(problem)")
        #expect(daemon.statusLine == problem)
        let event = try #require(log.events(.configUnreadable).first)
        #expect(event.field("FROM_MS") == "\(clock.wall)")
        // Fixed and reloaded: the note ends then, and says how long it lasted.
        clock.advance(5 * 60_000)
        try write(box, limit: "30m")
        #expect(throws: Never.self) { try daemon.reload(wall: clock.wall).get() }
        #expect(daemon.configProblem == nil)
        #expect(limit(daemon) == hour / 2)
        let notes = try daemon.notes(since: 0)
        #expect(notes.map(\.kind) == [.configUnreadable])
        #expect(notes.first?.to == clock.wall && notes.first?.from == clock.wall - 5 * 60_000)
    }

    /// Another zone is another "today": in strict mode it waits like any loosening.
    @Test func aTimeZoneChangeWaits() throws {
        let box = try Sandbox()
        try write(box)
        let clock = Clock()
        let daemon = try Daemon.reopened(options: box.options, log: MemoryLog(), environment: ["TZ": "UTC", "HOME": box.root], wall: clock.wall)
        let text = try String(contentsOfFile: box.configPath, encoding: .utf8)
        try box.write(text.replacingOccurrences(of: "[daemon]\n", with: "[daemon]\ntime-zone = \"Etc/GMT-14\"\n"), to: box.configPath)
        #expect(throws: Never.self) { try daemon.reload(wall: clock.wall).get() }
        #expect(daemon.meter.zone.identifier == "UTC")
        #expect(daemon.pendingChanges(now: clock.wall).first?.changes == ["daemon.time-zone: the system's → \"Etc/GMT-14\""])
    }

    /// Outside strict mode a broken file is still exit 78 (fix it first).
    @Test func aBrokenFileOutsideStrictModeIsStillExit78() throws {
        let box = try Sandbox()
        try write(box, delay: nil)
        let clock = Clock()
        let env = ["TZ": "UTC", "HOME": box.root]
        _ = try Daemon.reopened(options: box.options, log: MemoryLog(), environment: env, wall: clock.wall)
        try box.write("[daemon]\nprobe = \n", to: box.configPath)
        let failure = #expect(throws: StartFailure.self) {
            try Daemon.reopened(options: box.options, log: MemoryLog(), environment: env, wall: clock.wall)
        }
        #expect(failure?.exitStatus == 78)
    }

    @Test func unblockAndAShorterBlockAreRefusedInStrictModeOnly() throws {
        let box = try Sandbox()
        try write(box)
        let clock = Clock()
        let daemon = try Daemon.reopened(options: box.options, log: MemoryLog(), environment: ["TZ": "UTC", "HOME": box.root], wall: clock.wall)
        _ = try daemon.block(target: "social", until: clock.wall + 2 * hour, wall: clock.wall)
        #expect(daemon.strictRefusal(unblock: "social")?.hasPrefix("strict mode ([strict] delay = 1h 00m) refuses unblock") == true)
        #expect(daemon.strictRefusal(block: "social", until: clock.wall + hour, wall: clock.wall)?
            .hasPrefix("strict mode refuses a shorter block: social is blocked until") == true)
        #expect(daemon.strictRefusal(block: "social", until: clock.wall + 3 * hour, wall: clock.wall) == nil)

        let relaxed = try Sandbox()
        try write(relaxed, delay: nil)
        let free = try Daemon.reopened(options: relaxed.options, log: MemoryLog(), environment: ["TZ": "UTC", "HOME": relaxed.root], wall: clock.wall)
        #expect(free.strictRefusal(unblock: "social") == nil)
    }
}

extension Daemon {
    /// A daemon on a state directory this process just let go of. Another
    /// test's fork may still hold a copy of the lock's fd for the instant
    /// before its exec closes it (O_CLOEXEC): wait up to a second for that,
    /// never longer, so a daemon really left running still fails the test.
    static func reopened(options: DaemonOptions, log: MemoryLog, environment: [String: String], wall: WallInstant = WallClock.now,
                         sessionStarts: SessionStarts? = nil, anchors: LedgerAnchorStore? = nil) throws -> Daemon {
        let deadline = Date().addingTimeInterval(1)
        while true {
            do {
                if let sessionStarts {
                    return try Daemon(options: options, log: log, environment: environment, wall: wall, sessionStarts: sessionStarts,
                                      anchors: anchors)
                }
                return try Daemon(options: options, log: log, environment: environment, wall: wall, anchors: anchors)
            } catch let failure {
                guard case .alreadyRunning = failure, Date() < deadline else { throw failure }
                usleep(10_000)
            }
        }
    }
}
