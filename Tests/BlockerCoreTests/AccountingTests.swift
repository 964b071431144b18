import Testing
@testable import BlockerCore
import TestSupport

/// Drives a Meter the way the daemon does: one sample per call, the ledger
/// snapshot carried from tick to tick.
struct MeterHarness {
    var meter: Meter
    var ledger: LedgerSnapshot
    var monotonic: MonotonicInstant = 1_000_000
    var wall: WallInstant
    var debited: Milliseconds = 0

    init(config: Config, balance: Milliseconds, wall: WallInstant = utc("2026-11-30T12:00:00Z"), zone: TimeZoneRules = .utc) {
        meter = Meter(config: config, zone: zone)
        ledger = LedgerSnapshot(balance: balance)
        self.wall = wall
    }

    /// Set: the probe pushes every change, and the daemon samples at least this often while charging.
    var heartbeat: Milliseconds?
    /// Set: ticks carry CLOCK_BOOTTIME too (it runs with the monotonic clock, and on through `suspend`).
    var boottime: BoottimeInstant?

    /// The machine sleeps `ms`: only CLOCK_BOOTTIME and the wall clock move.
    mutating func suspend(_ ms: Milliseconds) {
        boottime = boottime.map { $0 + ms }
        wall += ms
    }

    @discardableResult
    mutating func tick(after ms: Milliseconds, _ reading: Result<Reading, ProbeFailure>) -> TickOutcome {
        monotonic += ms
        wall += ms
        boottime = boottime.map { $0 + ms }
        let out = meter.tick(TickInput(monotonic: monotonic, boottime: boottime, wall: wall, reading: reading,
                                       heartbeat: heartbeat),
                             ledger: ledger)
        ledger = out.ledger
        debited += out.debit
        return out
    }

    @discardableResult
    mutating func tick(after ms: Milliseconds, _ window: Window?, locked: Bool = false, idle: Milliseconds? = nil) -> TickOutcome {
        tick(after: ms, .success(Reading(window: window, locked: locked, idle: idle)))
    }
}

@Suite struct AccountingTests {
    let discord = Window(appID: "discord", title: "chat", pid: 42)
    let notes = Window(appID: "notes")
    let config = Config(daemon: DaemonSettings(pollInterval: 1000, idleAfter: .minutes(10)),
                        warnBefore: [.minutes(5), 60_000],
                        groups: [group("social", apps: ["discord"]),
                                 group("tools", apps: ["notes"], metered: false)])

    @Test func debitsOnlyWhileMeteredInFront() {
        var h = MeterHarness(config: config, balance: 60_000)
        h.tick(after: 0, discord)
        #expect(h.tick(after: 1000, discord).debit == 1000)
        #expect(h.tick(after: 1000, notes).debit == 1000)   // the second before was discord's
        #expect(h.tick(after: 1000, notes).debit == 0)
        #expect(h.ledger.balance == 58_000)
        #expect(h.ledger.used("tools") == 1000)              // unmetered use still counts toward limits
        #expect(h.ledger.used("social") == 2000)
    }

    @Test func aTenMinuteGapDebitsAtMostTheCap() {
        var h = MeterHarness(config: config, balance: 3_600_000)
        h.tick(after: 0, discord)
        let out = h.tick(after: .minutes(10), discord)
        #expect(out.debit == 2000)                           // max(2 × 1 s, 2 s)
        var slow = config
        slow.daemon.pollInterval = 5000
        var h2 = MeterHarness(config: slow, balance: 3_600_000)
        h2.tick(after: 0, discord)
        #expect(h2.tick(after: .minutes(10), discord).debit == 10_000)
    }

    /// An event-driven probe is sampled on every change and, while charging,
    /// at the daemon's heartbeat: the whole interval up to it is charged, and
    /// only a stall past it is capped.
    @Test func anEventDrivenProbeIsChargedUpToItsHeartbeatPlusTheCap() {
        var h = MeterHarness(config: config, balance: 3_600_000)
        h.heartbeat = 10_000
        h.tick(after: 0, discord)
        #expect(h.tick(after: 10_000, discord).debit == 10_000)
        #expect(h.tick(after: 7_300, notes).debit == 7_300)   // a focus change between heartbeats
        h.tick(after: 0, discord)
        #expect(h.tick(after: .minutes(10), discord).debit == 12_000)   // SIGSTOP: heartbeat + max(2 × 1 s, 2 s)
    }

    /// `kill -STOP` for 25 s, `-CONT` for 1 s, again and again: with both
    /// clocks running it is a stall, not a suspend, and with the same app in
    /// front before and after it is charged whole (it was capped at 2 s).
    @Test func aStallWithTheSameAppInFrontIsChargedWhole() {
        var h = MeterHarness(config: config, balance: 3_600_000)
        h.boottime = 5_000_000
        h.tick(after: 0, discord)
        for _ in 0..<3 {
            let out = h.tick(after: 25_000, discord)
            #expect(out.debit == 25_000)
            #expect(out.stall == Stall(ms: 23_000, charged: true, app: "discord"))
            #expect(h.tick(after: 1_000, discord).debit == 1_000)
        }
        #expect(h.debited == 78_000)
    }

    /// Event probes sleep up to the heartbeat while charging: 12 s was the
    /// most a stall cost; now the whole of it.
    @Test func aStallOfAnEventDrivenProbeIsChargedWhole() {
        var h = MeterHarness(config: config, balance: 3_600_000)
        h.heartbeat = 10_000
        h.boottime = 5_000_000
        h.tick(after: 0, discord)
        #expect(h.tick(after: 25_000, discord).debit == 25_000)
    }

    /// Another window in front after the stall: what was used during it is
    /// unknown, so the cap holds, and the stall is returned to be recorded.
    @Test func aStallAcrossAWindowChangeKeepsTheCapAndIsReported() {
        var h = MeterHarness(config: config, balance: 3_600_000)
        h.boottime = 5_000_000
        h.tick(after: 0, discord)
        let out = h.tick(after: 25_000, notes)
        #expect(out.debit == 2_000)
        #expect(out.stall == Stall(ms: 23_000, charged: false, app: "discord"))
        h.tick(after: 0, discord)
        #expect(h.tick(after: 25_000, discord, locked: true).stall?.charged == false)
    }

    /// A suspend (CLOCK_BOOTTIME ran on, CLOCK_MONOTONIC did not) keeps the
    /// cap, even with a long monotonic interval around it: usage cannot
    /// outrun what the probe could see.
    @Test func aSuspendKeepsTheCap() {
        var h = MeterHarness(config: config, balance: 3_600_000)
        h.boottime = 5_000_000
        h.tick(after: 0, discord)
        h.suspend(3_600_000)
        let out = h.tick(after: 25_000, discord)
        #expect(out.debit == 2_000)
        #expect(out.stall == nil)
        h.suspend(3_600_000)
        #expect(h.tick(after: 1_000, discord).debit == 1_000)
    }

    /// A wall-clock jump is no stall: the monotonic time is what is charged.
    @Test func aWallClockJumpNeverDebits() {
        var h = MeterHarness(config: config, balance: 3_600_000)
        h.boottime = 5_000_000
        h.tick(after: 0, discord)
        h.wall += 3_600_000
        let out = h.tick(after: 1_000, discord)
        #expect(out.debit == 1_000)
        #expect(out.stall == nil)
    }

    @Test func aStatusBetweenSamplesSeesWhatTheOpenIntervalSpent() {
        var h = MeterHarness(config: config, balance: 5_000)
        h.heartbeat = 10_000
        h.tick(after: 0, discord)
        #expect(h.meter.pendingDebit(at: h.monotonic + 3_000, balance: h.ledger.balance) == 3_000)
        #expect(h.meter.pendingDebit(at: h.monotonic + 9_000, balance: h.ledger.balance) == 5_000)   // not below zero
        h.tick(after: 1_000, notes)                          // unmetered: nothing pending
        #expect(h.meter.pendingDebit(at: h.monotonic + 3_000, balance: h.ledger.balance) == 0)
    }

    /// However far apart the samples, each warning comes at its instant, and
    /// under the last threshold the countdown wants every poll.
    @Test func theNextWarningIsAWakeUpAndTheCountdownPolls() {
        var h = MeterHarness(config: config, balance: .minutes(5) + 8_000)   // warn at 5 min and 1 min
        h.heartbeat = 10_000
        #expect(h.tick(after: 0, discord).wakeAt == h.monotonic + 8_000)
        let crossed = h.tick(after: 8_000, discord)
        #expect(crossed.warnings == [.minutes(5)])
        #expect(crossed.wakeAt == h.monotonic + .minutes(4))
        var last = MeterHarness(config: config, balance: 61_000)
        last.heartbeat = 10_000
        last.tick(after: 0, discord)
        #expect(!last.meter.isCountingDown(balance: last.ledger.balance))
        last.tick(after: 2_000, discord)
        #expect(last.meter.isCountingDown(balance: last.ledger.balance))
        last.tick(after: 0, notes)
        #expect(!last.meter.isCountingDown(balance: last.ledger.balance))   // not spending: no countdown
    }

    @Test func lockedIdleAndNoWindowDebitNothing() {
        var h = MeterHarness(config: config, balance: 60_000)
        h.tick(after: 0, discord, locked: true)
        #expect(h.tick(after: 1000, discord).debit == 0)      // the second before was locked
        h.tick(after: 0, discord, idle: .minutes(10))
        #expect(h.tick(after: 1000, discord).debit == 0)      // idle past idle-after
        h.tick(after: 0, nil)
        #expect(h.tick(after: 1000, discord).debit == 0)      // nothing was in front
        #expect(h.tick(after: 1000, discord).debit == 1000)
        #expect(h.ledger.balance == 59_000)
    }

    /// Row 11 of issue 20: a failed sample changes nothing. Nothing is spent
    /// while the probe fails; when it answers again the streak is charged to
    /// what the last good sample saw (up to the blind limit) and is blind
    /// time. Before any good sample nothing is charged.
    @Test func aFailureStreakIsSettledWhenTheProbeAnswersAgain() {
        var h = MeterHarness(config: config, balance: 60_000)
        #expect(h.tick(after: 0, .failure(ProbeFailure("garbage"))).blind == nil)   // nothing seen yet
        h.tick(after: 1000, discord)
        let failed = h.tick(after: 1000, .failure(ProbeFailure("garbage")))
        #expect(failed.debit == 0 && failed.blind == nil && !h.meter.isSpending)
        let back = h.tick(after: 1000, notes)                 // answers again: both seconds were discord's
        #expect(back.debit == 2000 && back.blind == BlindInterval(app: "discord", ms: 2000, chargedMs: 2000))
        #expect(h.tick(after: 1000, notes).debit == 0)        // notes from its own sample on
        h.tick(after: 1000, .failure(ProbeFailure("x")))
        #expect(h.tick(after: 1000, notes).blind == nil)      // notes counts, unmetered: no blind time
        #expect(h.ledger.balance == 58_000)
        #expect(h.ledger.used("tools") == 3000)
    }

    @Test func aLongOutageIsChargedOnlyItsFirstTenSecondsAndRecordedWhole() {
        var h = MeterHarness(config: config, balance: 3_600_000)
        h.tick(after: 0, discord)
        for _ in 0..<60 { #expect(h.tick(after: 1000, .failure(ProbeFailure("X server gone"))).debit == 0) }
        let back = h.tick(after: 1000, discord)
        #expect(back.blind == BlindInterval(app: "discord", ms: 61_000, chargedMs: Accountant.blindChargeLimit))
        #expect(h.debited == Accountant.blindChargeLimit)
        #expect(h.tick(after: 1000, discord).debit == 1000)    // from the good sample on, as ever
    }

    /// The probe: it hangs every third call and is killed after 2 s.
    /// The samples are stamped when they start, so a hung one ends 2 s later.
    @Test func aProbeThatHangsEveryThirdCallIsChargedInFull() {
        var h = MeterHarness(config: config, balance: 3_600_000)
        h.tick(after: 0, discord)
        var elapsed: Milliseconds = 0, blind: Milliseconds = 0
        for call in 1...301 {
            let hung = call % 3 == 0
            let after: Milliseconds = call % 3 == 1 && call > 1 ? 3000 : 1000   // a hang's 2 s, then the poll
            elapsed += after
            blind += h.tick(after: after, hung ? .failure(ProbeFailure("probe command timed out after 2000 ms"))
                                                : .success(Reading(window: discord))).blind?.ms ?? 0
        }
        #expect(h.debited == elapsed)                // was a fifth: the hung call, the second before it and the one after went free
        #expect(blind == Milliseconds(ms: 100 * 4000))                 // each hang: the second before it, its 2 s, the poll after
    }

    @Test func idleIsIgnoredUnlessConfigured() {
        var noIdle = config
        noIdle.daemon.idleAfter = nil
        var h = MeterHarness(config: noIdle, balance: 60_000)
        h.tick(after: 0, discord, idle: 3_600_000)
        #expect(h.tick(after: 1000, discord, idle: 3_601_000).debit == 1000)
    }

    @Test func aFailedSampleKeepsTheShieldShown() {
        var h = MeterHarness(config: config, balance: 0)
        #expect(h.tick(after: 0, discord).decision.shield?.reason == .balance)
        let out = h.tick(after: 1000, .failure(ProbeFailure("timeout")))
        #expect(out.decision.shield?.reason == .balance)
        #expect(out.window == nil)
    }

    @Test func zeroCrossingIsExactAndRaisesTheShield() {
        var h = MeterHarness(config: config, balance: 1500)
        let first = h.tick(after: 0, discord)
        #expect(first.zeroAt == h.monotonic + 1500)
        #expect(first.decision.shield == nil)
        #expect(h.tick(after: 1000, discord).debit == 1000)
        let last = h.tick(after: 1000, discord)
        #expect(last.debit == 500)                           // never below zero
        #expect(last.ledger.balance == 0)
        #expect(last.decision.shield?.reason == .balance)
        #expect(last.zeroAt == nil)
        // Shielded: the covered app spends nothing, not even usage.
        let covered = h.tick(after: 1000, discord)
        #expect(covered.debit == 0 && covered.usage.isEmpty)
        #expect(h.debited == 1500)
    }

    @Test func warningThresholdsFireOnceWhenCrossed() {
        var h = MeterHarness(config: config, balance: 61_500)
        h.tick(after: 0, discord)
        #expect(h.tick(after: 1000, discord).warnings.isEmpty)       // 60.5 s left
        #expect(h.tick(after: 1000, discord).warnings == [60_000])   // 59.5 s left
        #expect(h.tick(after: 1000, discord).warnings.isEmpty)
        #expect(thresholdsCrossed(from: 400_000, to: 30_000, thresholds: [60_000, 300_000]) == [300_000, 60_000])
        #expect(thresholdsCrossed(from: 30_000, to: 400_000, thresholds: [60_000]).isEmpty)
    }

    @Test func usageOfOneDayDoesNotLeakIntoTheNext() {
        let paris = zone("Europe/Paris")
        var h = MeterHarness(config: config, balance: 3_600_000,
                             wall: at(paris, "2026-11-30", "23:59", seconds: 59) + 500, zone: paris)
        h.tick(after: 0, discord)
        let out = h.tick(after: 1000, discord)                     // 23:59:59.5 → 00:00:00.5
        #expect(out.usage == [UsageEntry(day: "2026-11-30", group: "social", app: "discord", ms: 500),
                              UsageEntry(day: "2026-12-01", group: "social", app: "discord", ms: 500)])
        #expect(out.ledger.used("social") == 500)                  // only today's half counts today
    }

    /// The interval open at a reload belongs to what the previous config saw:
    /// reloading neither costs nor frees time.
    @Test func aReloadCarriesTheOpenIntervalOver() {
        var h = MeterHarness(config: config, balance: 60_000)
        h.tick(after: 0, discord)
        h.meter.reconfigure(config)
        #expect(h.tick(after: 1000, discord).debit == 1000)
        h.meter.reconfigure(config)
        h.meter.reconfigure(config)
        #expect(h.tick(after: 300, discord).debit == 300)
    }
}

/// The daemon wakes up at the instant a rule changes the answer, not at the next poll.
@Suite("The next rule change")
struct NextRuleChangeTests {
    let discord = Window(appID: "discord", title: "chat", pid: 42)
    let poll = DaemonSettings(pollInterval: 10_000)

    @Test func aScheduleStartIsTheNextWakeUp() {
        // 2026-11-30 is a Monday; bedtime starts at 22:30.
        let config = Config(daemon: poll, groups: [group("social", apps: ["discord"], schedules: [schedule("Mon-Fri", "22:30", "07:00")])])
        var h = MeterHarness(config: config, balance: 3_600_000, wall: utc("2026-11-30T22:29:55Z"))
        let out = h.tick(after: 0, discord)
        #expect(out.decision.shield == nil)
        #expect(out.nextRuleChange == utc("2026-11-30T22:30:00Z"))
        #expect(out.wakeAt == h.monotonic + 5_000)
        // At that instant the schedule covers the app, until the morning.
        let then = h.tick(after: 5_000, discord)
        #expect(then.decision.shield?.reason == .schedule)
        #expect(then.nextRuleChange == utc("2026-12-01T07:00:00Z"))
    }

    @Test func aDailyLimitIsReachedAtItsInstantWhileCharged() {
        let config = Config(daemon: poll, groups: [group("social", apps: ["discord"], metered: false, dailyLimit: 60_000)])
        var h = MeterHarness(config: config, balance: 0)
        h.ledger.usedToday = ["social": 57_500]
        let out = h.tick(after: 0, discord)
        #expect(out.nextRuleChange == h.wall + 2_500)
        // Locked: nothing is charged, so no limit is coming.
        let locked = h.tick(after: 1_000, discord, locked: true)
        #expect(locked.nextRuleChange == nil)
    }

    @Test func aTimedBlockEndingIsTheNextWakeUp() {
        let config = Config(daemon: poll, groups: [group("social", apps: ["discord"])])
        var h = MeterHarness(config: config, balance: 3_600_000)
        h.ledger.timedBlocks = [TimedBlock(target: "social", until: h.wall + 4_000)]
        let out = h.tick(after: 0, discord)
        #expect(out.decision.shield?.reason == .timedBlock)
        #expect(out.wakeAt == h.monotonic + 4_000)
    }

    @Test func theEarlierOfZeroAndARuleWins() {
        let config = Config(daemon: poll, groups: [group("social", apps: ["discord"], dailyLimit: 60_000)])
        var h = MeterHarness(config: config, balance: 2_000)
        h.ledger.usedToday = ["social": 50_000]
        h.tick(after: 0, discord)
        #expect(h.tick(after: 1_000, discord).wakeAt == h.monotonic + 1_000)   // balance 1 s, limit 9 s away
    }
}
