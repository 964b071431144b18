import BlockerSystem
import Foundation
import Glibc
import Testing
@testable import BlockerDaemon
import BlockerCore
import BlockerProbes
import BlockerStore

@Suite struct DaemonTests {
    let pushups = Exercise(name: "pushups", perRep: 30_000)

    @Test func debitsOnlyWhileAMeteredAppIsInFront() throws {
        let box = try Sandbox()
        let daemon = try box.daemon()
        var clock = Clock()
        _ = try daemon.earn(exercise: pushups, reps: 4, wall: clock.wall)       // 2 minutes
        box.front("discord")
        daemon.tick(clock)
        for _ in 0..<3 { clock.advance(1000); daemon.tick(clock) }
        #expect(daemon.ledger.balance == (120_000 - 3000) as Milliseconds)
        box.front("notes")                                                       // unmetered
        clock.advance(1000); daemon.tick(clock)                                  // the second before was discord's
        for _ in 0..<5 { clock.advance(1000); daemon.tick(clock) }
        #expect(daemon.ledger.balance == (120_000 - 4000) as Milliseconds)
        #expect(daemon.statusLine == "Balance 1m 56s · front: notes (tools)")
    }

    @Test func theZeroCrossingRaisesTheShield() throws {
        let box = try Sandbox()
        let log = MemoryLog()
        let daemon = try box.daemon(log: log)
        var clock = Clock()
        _ = try daemon.earn(exercise: Exercise(name: "pushups", perRep: 1500), reps: 1, wall: clock.wall)
        box.front("discord")
        daemon.tick(clock)
        #expect(daemon.lastTick?.zeroAt == clock.monotonic + 1500)
        clock.advance(1000); daemon.tick(clock)
        #expect(daemon.shield == nil)
        clock.advance(1000); daemon.tick(clock)
        #expect(daemon.ledger.balance == 0)
        #expect(daemon.shield?.reason == .balance)
        #expect(daemon.statusLine == "Shield up: discord (balance)")
        let up = try #require(log.events(.shieldUp).first)
        #expect(up.field("APP") == "discord" && up.field("REASON") == "balance" && up.field("BALANCE_MS") == "0")
        // Earning lifts it at once, without waiting for a tick.
        _ = try daemon.earn(exercise: pushups, reps: 1, wall: clock.wall)
        #expect(daemon.shield == nil)
        #expect(log.events(.shieldDown).count == 1)
    }

    @Test func restartingRecoversTheCommittedLedgerAndRaisesNothing() throws {
        let box = try Sandbox()
        var clock = Clock()
        do {
            let first = try box.daemon()
            _ = try first.earn(exercise: pushups, reps: 2, wall: clock.wall)
            box.front("discord")
            first.tick(clock)
            for _ in 0..<12 { clock.advance(1000); first.tick(clock) }
            #expect(first.ledger.balance == (60_000 - 12_000) as Milliseconds)
            // Dropped without shutdown(), as after kill -9: spending is committed
            // every 10 s, so the last 2 s are lost (in the user's favour).
        }
        let second = try box.daemon()
        #expect(second.ledger.balance == (60_000 - 10_000) as Milliseconds)
        clock.advance(60_000)
        second.tick(clock)                                                       // first sample: charges nothing
        #expect(second.ledger.balance == 50_000)
        #expect(second.shield == nil)
    }

    /// Issue 20, row 12: a clean stop gave back the open interval (up to a
    /// poll) that `status` had already shown as spent.
    @Test func aStopKeepsEveryMillisecondStatusShowed() throws {
        let box = try Sandbox()
        var clock = Clock()
        let shown: (balance: Milliseconds, used: Milliseconds)
        do {
            let daemon = try box.daemon()
            _ = try daemon.earn(exercise: pushups, reps: 2, wall: clock.wall)     // 1 minute
            box.front("discord")
            daemon.tick(clock)
            for _ in 0..<3 { clock.advance(1000); daemon.tick(clock) }
            clock.advance(730)                                                   // between two samples
            shown = (daemon.balance(at: clock.monotonic), 60_000 - daemon.balance(at: clock.monotonic))
            #expect(shown.used == 3730)
            clock.advance(5)
            daemon.shutdown(monotonic: clock.monotonic, wall: clock.wall)
        }
        let ledger = try Ledger.open(stateDirectory: box.stateDirectory)
        defer { ledger.close() }
        #expect(ledger.balance <= shown.balance)
        #expect(ledger.balance == (60_000 - 3735) as Milliseconds)
        let today = try ledger.history(fromDay: "2026-11-30", toDay: "2026-12-31")
        #expect(today.map(\.spentMs).reduce(0, +) == 3735)
        #expect(today.flatMap { $0.usedByGroup.values }.reduce(0, +) == 3735)
    }

    @Test func aSecondDaemonOnTheSameStateDirIsRefused() throws {
        let box = try Sandbox()
        let first = try box.daemon()
        #expect(first.ledger.balance == 0)
        let failure = #expect(throws: StartFailure.self) { try box.daemon() }
        #expect(failure?.exitStatus == 75)
        #expect(failure?.description.contains("already running (pid \(getpid()))") == true)
    }

    @Test func aBadConfigAtStartIsExit78WithLineAndColumn() throws {
        let box = try Sandbox()
        try box.write("[daemon]\nprobe = \n", to: box.configPath)
        let failure = #expect(throws: StartFailure.self) { try box.daemon() }
        #expect(failure?.exitStatus == 78)
        #expect(failure?.description.hasPrefix(box.configPath + ":2:") == true)
        // Nothing was created for a daemon that never started.
        #expect(!FileManager.default.fileExists(atPath: box.stateDirectory + "/blocker.db"))
    }

    @Test func reloadWithABadConfigKeepsTheOld() throws {
        let box = try Sandbox()
        let log = MemoryLog()
        let daemon = try box.daemon(log: log)
        let good = try String(contentsOfFile: box.configPath, encoding: .utf8)
        try box.write(good.replacingOccurrences(of: "pushups = 0.5", with: "pushups = 0.5\nsquats = 1"), to: box.configPath)
        #expect(throws: Never.self) { try daemon.reload().get() }
        #expect(daemon.config.exercise(named: "squats") != nil)
        try box.write(good + "\nbogus-key = 1\n", to: box.configPath)
        #expect(throws: ConfigError.self) { try daemon.reload().get() }
        #expect(daemon.config.exercise(named: "squats") != nil)                  // the previous one stays
        let event = try #require(log.events(.configError).last)
        #expect(event.message.contains("bogus-key"))
        #expect(event.priority == .error)
    }

    @Test func aHungProbeIsKilledAndItsTickDebitsNothing() throws {
        let box = try Sandbox(pollInterval: "200ms", probeCommand: ["/bin/sleep", "30"])
        let log = MemoryLog()
        let daemon = try box.daemon(log: log)
        let started = MonotonicClock.now
        daemon.tick()
        let took = MonotonicClock.now - started
        #expect(took >= 400 && took < 3000)                                      // killed at 2 × poll-interval
        #expect(daemon.probeError?.contains("did not answer within 400 ms") == true)
        daemon.tick(monotonic: started + Daemon.probeFailureLogAfterMs)
        daemon.tick(monotonic: started + Daemon.probeFailureLogAfterMs + 1000)
        #expect(log.events(.probeError).count == 1)                              // once per streak
        #expect(daemon.statusLine.hasPrefix("Probe command failing:"))
    }

    @Test func garbageIsAFailedSampleLoggedOncePerStreak() throws {
        let box = try Sandbox()
        let log = MemoryLog()
        let daemon = try box.daemon(log: log)
        var clock = Clock()
        _ = try daemon.earn(exercise: pushups, reps: 2, wall: clock.wall)
        box.front("discord")
        daemon.tick(clock)
        box.frontRaw("this is not json")
        for _ in 0..<4 { clock.advance(1000); daemon.tick(clock) }
        #expect(daemon.ledger.balance == 60_000)                                 // nothing debited while it fails
        #expect(log.events(.probeError).count == 1)
        box.front("discord")
        clock.advance(1000); daemon.tick(clock)
        #expect(log.events(.probeRecovered).count == 1)
        #expect(daemon.ledger.balance == 55_000)            // settled: the 5 s since discord's last good sample
        clock.advance(1000); daemon.tick(clock)
        #expect(daemon.ledger.balance == 54_000)
        box.frontRaw("{\"oops\"")
        for _ in 0..<3 { clock.advance(1000); daemon.tick(clock) }
        #expect(log.events(.probeError).count == 2)                              // a new streak
    }

    /// A probe that pushes its changes (an event descriptor): the loop does
    /// not poll it, so ticks come only with its events.
    final class PushingProbe: ForegroundProbe {
        let name = "pushing"
        var app = "discord"
        private var pipe: [Int32] = [-1, -1]
        init() { _ = Glibc.pipe(&pipe) }
        deinit { pipe.forEach { close($0) } }
        var eventDescriptor: Int32? { pipe[0] }
        func sample() -> Result<Reading, ProbeFailure> { .success(Reading(window: Window(appID: app))) }
    }

    /// With a probe that pushes its changes, a tick that comes within
    /// `coalesceMs` of the commit commits: while focus moves every couple of
    /// seconds, the heartbeat's own wake-up is saved (before: only at 10 s).
    @Test func aTickNearTheCommitCommitsWithAPushingProbe() throws {
        let box = try Sandbox()
        let daemon = try box.daemon()
        var clock = Clock()
        _ = try daemon.earn(exercise: pushups, reps: 20, wall: clock.wall)
        daemon.use(probe: PushingProbe())
        daemon.tick(clock)
        let started = clock.monotonic
        #expect(daemon.nextCommit == started + Daemon.commitEveryMs)
        for _ in 0..<3 { clock.advance(2000); daemon.tick(clock) }          // focus moving: 6 s pending
        #expect(try Ledger.open(stateDirectory: box.stateDirectory).balance == 600_000)
        clock.advance(2000); daemon.tick(clock)                              // 8 s: within 2 s of the commit
        let committed = try Ledger.open(stateDirectory: box.stateDirectory).balance
        #expect(committed == (600_000 - 8_000) as Milliseconds, "\(committed) committed, \(daemon.ledger.balance) in memory")
        #expect(daemon.nextCommit == clock.monotonic + Daemon.commitEveryMs)
    }

    /// What is spent is committed once 10 s of it wait: the instant the loop
    /// wakes for when no probe event comes (the bound on a kill -9's loss).
    @Test func spendingIsDueForACommitTenSecondsAfterItStarts() throws {
        let box = try Sandbox()
        let daemon = try box.daemon()
        var clock = Clock()
        _ = try daemon.earn(exercise: pushups, reps: 20, wall: clock.wall)
        box.front("firefox")
        daemon.tick(clock)
        clock.advance(1000); daemon.tick(clock)
        #expect(daemon.nextCommit == nil)                                   // nothing charged, nothing pending
        box.front("discord")
        clock.advance(1000); daemon.tick(clock)
        let started = clock.monotonic
        #expect(daemon.nextCommit == started + Daemon.commitEveryMs)
        for _ in 0..<9 { clock.advance(1000); daemon.tick(clock) }           // still the same batch
        #expect(daemon.nextCommit == started + Daemon.commitEveryMs)
        clock.advance(1000); daemon.tick(clock)                              // committed; a new batch opens
        #expect(daemon.nextCommit == clock.monotonic + Daemon.commitEveryMs)
        let committed = try Ledger.open(stateDirectory: box.stateDirectory).balance
        #expect(committed == (600_000 - 10_000) as Milliseconds, "\(committed) committed, \(daemon.ledger.balance) in memory")
        box.front("firefox")
        clock.advance(1000); daemon.tick(clock)                              // 1 s pending, uncommitted
        #expect(daemon.nextCommit == nil)                                   // and it does not grow: no wake-up for it
    }

    /// The batch is written once it holds 10 s of time in front, not 10 s
    /// after it began: a metered app in front for 2 s of every 6 (the
    /// benchmark's switching) is written every 30 s, and a kill -9 still loses
    /// at most 10 s of debit. (Before: a commit 10 s after the first 2 s.)
    @Test func aBatchIsWrittenOnceItHoldsTenSecondsOfSpending() throws {
        let box = try Sandbox()
        let daemon = try box.daemon()
        var clock = Clock()
        _ = try daemon.earn(exercise: pushups, reps: 20, wall: clock.wall)
        let committed = { try Ledger.open(stateDirectory: box.stateDirectory).balance }
        box.front("firefox")
        daemon.tick(clock)
        // An interval is charged to what the sample before it saw: 2 s of discord a round of 6.
        for rounds in 1...5 {
            box.front("discord")
            clock.advance(1000); daemon.tick(clock)
            clock.advance(1000); daemon.tick(clock)                          // 1 s of this round's 2
            let pending = Milliseconds.seconds(Int64(2 * rounds - 1))
            #expect(daemon.nextCommit == clock.monotonic + (Daemon.commitEveryMs - pending))
            box.front("firefox")
            clock.advance(1000); daemon.tick(clock)
            #expect(daemon.nextCommit == nil)                               // not charging: nothing grows
            clock.advance(3000); daemon.tick(clock)
            if rounds == 4 {
                #expect(try committed() == 600_000, "24 s passed, 8 s spent: nothing written yet")
                #expect(daemon.ledger.balance == (600_000 - 8_000) as Milliseconds)
            }
        }
        #expect(try committed() == (600_000 - 10_000) as Milliseconds)     // 10 s spent: written
    }

    /// A status bar counts the balance down between signals; it must hear when
    /// spending starts (nothing is debited yet) and when it stops, and it is
    /// set right at each commit; the samples in between signal nothing.
    @Test func balanceChangedIsSignalledWhenSpendingStartsStopsAndIsCommitted() throws {
        final class Heard: DaemonObserver {
            var balances: [Milliseconds] = []
            func shieldChanged(_ shield: Shield?, balance: Milliseconds) {}
            func balanceChanged(_ balance: Milliseconds) { balances.append(balance) }
            func warning(remaining: Milliseconds) {}
        }
        let box = try Sandbox()
        let daemon = try box.daemon()
        let heard = Heard()
        daemon.observer = heard
        var clock = Clock()
        _ = try daemon.earn(exercise: pushups, reps: 2, wall: clock.wall)
        #expect(heard.balances == [60_000])
        box.front("firefox")
        daemon.tick(clock)
        clock.advance(1000); daemon.tick(clock)
        #expect(heard.balances == [60_000] && !daemon.isSpending)             // nothing spent, nothing said
        box.front("discord")
        clock.advance(1000); daemon.tick(clock)
        #expect(daemon.isSpending)
        #expect(heard.balances == [60_000, 60_000], "spending started: \(heard.balances)")
        for _ in 0..<9 { clock.advance(1000); daemon.tick(clock) }
        #expect(heard.balances == [60_000, 60_000], "samples between commits: \(heard.balances)")
        clock.advance(1000); daemon.tick(clock)                              // 10 s: committed
        #expect(heard.balances == [60_000, 60_000, 50_000], "at the commit: \(heard.balances)")
        box.front("firefox")
        clock.advance(2000); daemon.tick(clock)
        #expect(!daemon.isSpending)
        #expect(heard.balances == [60_000, 60_000, 50_000, 48_000], "spending stopped: \(heard.balances)")
    }

    /// A shell's first report can come a moment after blockerd's first sample
    /// (KWin runs the script from its own loop): that is no warning.
    @Test func aFailureThatHealsWithinTwoSecondsStaysOutOfTheJournal() throws {
        let box = try Sandbox()
        let log = MemoryLog()
        let daemon = try box.daemon(log: log)
        var clock = Clock()
        box.frontRaw("not yet")
        daemon.tick(clock)
        #expect(daemon.probeError != nil)                                        // status says so at once
        clock.advance(1000); daemon.tick(clock)
        box.front("discord")
        clock.advance(900); daemon.tick(clock)
        #expect(daemon.probeError == nil)
        #expect(log.events(.probeError).isEmpty && log.events(.probeRecovered).isEmpty)
    }

    @Test func aLockedScreenDebitsNothing() throws {
        let box = try Sandbox()
        let daemon = try box.daemon()
        var clock = Clock()
        _ = try daemon.earn(exercise: pushups, reps: 2, wall: clock.wall)
        box.front("discord", locked: true)
        daemon.tick(clock)
        for _ in 0..<3 { clock.advance(1000); daemon.tick(clock) }
        #expect(daemon.ledger.balance == 60_000)
    }
}

@Suite("Reloading in a storm")
struct ReloadStormTests {
    @Test func aReloadEvery300msStillChargesTheMeteredApp() throws {
        let box = try Sandbox()
        let log = MemoryLog()
        let daemon = try box.daemon(log: log)
        var clock = Clock()
        _ = try daemon.earn(exercise: Exercise(name: "pushups", perRep: 30_000), reps: 4, wall: clock.wall)
        box.front("discord")
        daemon.tick(clock)
        // blockerctl reload every 0.3 s for 15 s, each followed by its tick (as DaemonLoop.reload does).
        for _ in 0..<50 {
            clock.advance(300)
            _ = daemon.reload(monotonic: clock.monotonic)
            daemon.tick(clock)
        }
        #expect(daemon.ledger.balance == (120_000 - 50 * 300) as Milliseconds)
        // One journal line per 10 s of storm, the second saying how many it stands for.
        let lines = log.events(.reload)
        #expect(lines.count == 2, "\(lines.map(\.message))")
        #expect(lines.last?.message.contains("(and 33 more reloads in the 10 s before)") == true,
                "\(lines.map(\.message))")
    }

    @Test func theDailyLimitIsReachedThroughAReloadStorm() throws {
        let box = try Sandbox(config: """
            [daemon]
            probe = "command"
            probe-command = ["/bin/cat", "FRONT"]
            [[group]]
            name = "social"
            apps = ["discord"]
            metered = false
            daily-limit = "1m"
            """)
        try box.write(try String(contentsOfFile: box.configPath, encoding: .utf8)
                        .replacingOccurrences(of: "FRONT", with: box.frontPath), to: box.configPath)
        let daemon = try box.daemon()
        var clock = Clock()
        box.front("discord")
        daemon.tick(clock)
        for _ in 0..<250 {
            clock.advance(300)
            _ = daemon.reload(monotonic: clock.monotonic)
            daemon.tick(clock)
        }
        #expect(daemon.shield?.reason == .dailyLimit)
    }
}
