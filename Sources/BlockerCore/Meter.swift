/// Usage of one group by one app on one local day.
public struct UsageEntry: Equatable, Sendable {
    public var day: CivilDate
    public var group: String
    public var app: String
    public var ms: Milliseconds

    public init(day: CivilDate, group: String, app: String, ms: Milliseconds) {
        self.day = day
        self.group = group
        self.app = app
        self.ms = ms
    }
}

/// One tick's input: a probe sample stamped with both clocks.
public struct TickInput: Sendable {
    /// CLOCK_MONOTONIC: measures elapsed time (stops during suspend).
    public var monotonic: MonotonicInstant
    /// CLOCK_BOOTTIME (runs on during suspend): tells a stall from a
    /// suspend. nil: unknown, and every interval keeps its cap.
    public var boottime: BoottimeInstant?
    /// CLOCK_REALTIME: places the tick on the calendar.
    public var wall: WallInstant
    /// The probe's answer, or why it failed.
    public var reading: Result<Reading, ProbeFailure>
    /// Set when the probe pushes every change: the longest the daemon waits
    /// to sample again while something is charged (its heartbeat), so the
    /// interval this sample opens may be charged that long. Nil for a probe
    /// that is polled every poll interval.
    public var heartbeat: Milliseconds?
    /// Whether a shield, if one is up, has a cover drawn over it (or one
    /// within its grace: `CoverSupervisor`). A shield with none is no cover:
    /// the time until the next sample is charged as if it were down.
    public var covered: Bool

    public init(monotonic: MonotonicInstant, boottime: BoottimeInstant? = nil, wall: WallInstant, reading: Result<Reading, ProbeFailure>,
                heartbeat: Milliseconds? = nil, covered: Bool = true) {
        self.monotonic = monotonic
        self.boottime = boottime
        self.wall = wall
        self.reading = reading
        self.heartbeat = heartbeat
        self.covered = covered
    }
}

/// The part of a sample's interval the probe could not answer for (its
/// samples failed) while a metered app was last seen in front: `ms` of it,
/// `chargedMs` of which was charged to that app (see `Accountant`).
public struct BlindInterval: Equatable, Sendable {
    public var app: String
    public var ms: Milliseconds
    public var chargedMs: Milliseconds

    public init(app: String, ms: Milliseconds, chargedMs: Milliseconds) {
        self.app = app
        self.ms = ms
        self.chargedMs = chargedMs
    }
}

public struct ProbeFailure: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// What one tick decided; the daemon writes `debit` and `usage` to the ledger
/// in one transaction and shows `decision`.
public struct TickOutcome: Equatable, Sendable {
    public var debit: Milliseconds
    public var usage: [UsageEntry]
    /// Of the interval this tick closed, what was charged under a shield
    /// with no cover drawn (0 otherwise).
    public var uncoveredMs: Milliseconds = 0
    /// The part of the interval this sample closed that the probe could not
    /// answer for; nil when it answered throughout.
    public var blind: BlindInterval? = nil
    /// The foreground after this sample, or nil when the sample failed.
    public var window: Window?
    public var decision: Decision
    /// `[warn] before` thresholds the balance crossed during this tick.
    public var warnings: [Milliseconds]
    /// When the balance runs out if nothing changes.
    public var zeroAt: MonotonicInstant?
    /// The next instant where a rule changes the answer for what is
    /// in front if nothing else changes: a schedule starts, a daily limit is
    /// reached, a timed block or schedule ends. The daemon wakes up then
    /// instead of at the next poll.
    public var nextRuleChange: WallInstant? = nil
    /// The earlier of `zeroAt` and `nextRuleChange`: when to
    /// sample again without waiting for the next poll.
    public var wakeAt: MonotonicInstant? = nil
    /// The ledger as the policy saw it after this tick.
    public var ledger: LedgerSnapshot
    /// The interval this sample closed was a stall (see `Accountant`).
    public var stall: Stall? = nil
}

/// The per-tick engine: accountant → policy, pure. The daemon owns the clocks,
/// the probe and the ledger; this owns the arithmetic.
public struct Meter: Sendable {
    public private(set) var config: Config
    public var zone: TimeZoneRules
    public private(set) var matcher: Matcher
    private var accountant: Accountant
    /// The last decision shown; a failed sample keeps it (the shield does not drop on a probe hiccup).
    public private(set) var lastDecision: Decision = .nothingInFront
    public private(set) var lastWindow: Window?

    public init(config: Config, zone: TimeZoneRules) {
        self.config = config
        self.zone = zone
        matcher = Matcher(groups: config.groups)
        accountant = Accountant(cap: config.daemon.sampleGapCap)
    }

    /// A reload: new rules from the next sample on. The interval open since
    /// the last sample is carried over and charged, at the next sample, to
    /// what the previous config saw: reloading neither costs nor frees time
    /// (a reload every 0.3 s must not make a metered app free).
    public mutating func reconfigure(_ config: Config) {
        self.config = config
        matcher = Matcher(groups: config.groups)
        accountant = accountant.withCap(config.daemon.sampleGapCap)
    }

    /// Whether the time until the next sample counts for something (spending or
    /// a group's use): only then must an event-driven daemon sample on a timer.
    public var isCharging: Bool { accountant.openCharge != nil }

    /// Whether the interval open since the last sample spends the balance.
    public var isSpending: Bool { accountant.openCharge?.metered == true }

    /// Whether the balance is under the last `[warn] before` threshold while
    /// it is being spent: the countdown notification then changes with every
    /// second, so even an event-driven daemon samples every poll interval.
    public func isCountingDown(balance: Milliseconds) -> Bool {
        guard let last = config.warnBefore.min(), accountant.openCharge?.metered == true else { return false }
        return balance <= last
    }

    /// What the interval open since the last sample would debit if it ended at
    /// `monotonic`: a status asked between samples shows the balance as of now.
    public func pendingDebit(at monotonic: MonotonicInstant, balance: Milliseconds) -> Milliseconds {
        openSpend?.debit(at: monotonic, balance: balance) ?? 0
    }

    /// The interval open since the last sample, while it spends the balance.
    public var openSpend: OpenSpend? {
        guard isSpending, let open = accountant.openSince else { return nil }
        return OpenSpend(since: open.monotonic, cap: open.cap)
    }

    /// Ends the interval open since the last sample at `monotonic` and
    /// returns what it spent and used: at a sample, and at a stop, which
    /// charges exactly what `pendingDebit` (a status) showed up to then.
    /// `uncovered`: how much of it a shield was up with no cover drawn;
    /// `blind`: what of it the probe could not answer for (a failure streak it settles);
    /// `boottime` and `stillInFront`: see `Accountant.sample`; `stall`: the
    /// interval was a stall (charged whole when still in front).
    public mutating func closeInterval(at monotonic: MonotonicInstant, boottime: BoottimeInstant? = nil, wall: WallInstant, balance: Milliseconds,
                                       failed: Bool = false, stillInFront: Bool = false)
        -> (debit: Milliseconds, usage: [UsageEntry], uncovered: Milliseconds, blind: BlindInterval?, stall: Stall?) {
        guard let charged = accountant.sample(at: monotonic, boottime: boottime, failed: failed, stillInFront: stillInFront)
        else { return (0, [], 0, nil, nil) }
        let charge = charged.charge, elapsed = charged.elapsed
        let blind = charged.blindMs > 0 && charge.metered
            ? BlindInterval(app: charge.app, ms: charged.blindMs, chargedMs: elapsed) : nil
        return (charge.metered ? min(elapsed, max(balance, 0)) : 0, usageEntries(charge, elapsed: elapsed, endingAt: wall),
                charge.uncovered ? elapsed : 0, blind, charged.stall)
    }

    public func decide(window: Window?, ledger: LedgerSnapshot, now: WallInstant) -> Decision {
        Policy.decide(config: config, zone: zone, matcher: matcher, window: window, ledger: ledger, now: now)
    }

    public mutating func tick(_ input: TickInput, ledger before: LedgerSnapshot) -> TickOutcome {
        var ledger = before
        let reading = try? input.reading.get()

        // Charge the interval since the previous sample to what it saw.
        let stillInFront = reading.map { stillSees(accountant.openCharge, $0) } ?? false
        let (debit, usage, uncovered, blind, stall) = closeInterval(at: input.monotonic, boottime: input.boottime, wall: input.wall,
                                                                    balance: ledger.balance, failed: reading == nil,
                                                                    stillInFront: stillInFront)
        ledger.balance -= debit
        let today = zone.localDate(at: input.wall)
        for entry in usage where entry.day == today {
            ledger.usedToday[entry.group.lowercased(), default: 0] += entry.ms
        }

        guard let reading else {
            // Don't trust a burst: keep showing what we had; the streak is settled when the probe answers.
            return TickOutcome(debit: debit, usage: usage, uncoveredMs: uncovered, blind: blind, window: nil, decision: lastDecision,
                               warnings: [], zeroAt: nil, nextRuleChange: nil, wakeAt: nil, ledger: ledger)
        }
        let decision = decide(window: reading.window, ledger: ledger, now: input.wall)
        // A shielded app is covered: the time until the next sample is not
        // its use — unless no cover is drawn over it.
        accountant.charge(chargeIfLooking(reading, decision: decision, covered: input.covered),
                          cap: input.heartbeat.map { config.daemon.sampleGapCap + $0 })
        lastDecision = decision
        lastWindow = reading.window
        let zeroAt = accountant.zeroInstant(balance: ledger.balance)
        // The next `[warn] before` threshold, so its warning comes on time
        // however far apart the samples are.
        let warnAt = config.warnBefore.filter { $0 > 0 && $0 < ledger.balance }.max()
            .flatMap { accountant.instant(balance: ledger.balance, reaches: $0) }
        let ruleChange = nextRuleChange(window: reading.window, decision: decision, ledger: ledger, now: input.wall)
        return TickOutcome(
            debit: debit, usage: usage, uncoveredMs: uncovered, blind: blind, window: reading.window, decision: decision,
            warnings: thresholdsCrossed(from: before.balance, to: ledger.balance, thresholds: config.warnBefore),
            zeroAt: zeroAt, nextRuleChange: ruleChange,
            wakeAt: [zeroAt, warnAt, ruleChange.map { input.monotonic + ($0 - input.wall) }].compactMap { $0 }.min(),
            ledger: ledger, stall: stall)
    }

    /// Whether `reading` still sees what `charge` was for: the same app, with
    /// someone looking (a stall between the two was that app's use).
    private func stillSees(_ charge: Charge?, _ reading: Reading) -> Bool {
        guard let charge, let window = reading.window, window.app == charge.app, !reading.locked else { return false }
        if let idleAfter = config.daemon.idleAfter, let idle = reading.idle, idle >= idleAfter { return false }
        return true
    }

    /// See `TickOutcome.nextRuleChange`. A daily limit is reached only while
    /// its group is being charged (someone looking, not shielded); a running
    /// pass ends at its `until`.
    public func nextRuleChange(window: Window?, decision: Decision, ledger: LedgerSnapshot, now wallNow: WallInstant) -> WallInstant? {
        guard let window else { return nil }
        if let shield = decision.shield { return shield.until }
        let now = wallNow
        let groups = matcher.groups(for: window)
        var candidates: [WallInstant] = []
        for group in groups {
            candidates += group.schedules.compactMap { $0.nextStart(after: now, in: zone) }
            // A pass's end brings back whatever it lifted, on time.
            if let pass = ledger.opens.runningPass(group.name.lowercased(), at: now) { candidates.append(pass.until) }
        }
        if let charged = accountant.openCharge {
            for group in groups where charged.groups.contains(group.name) {
                if let limit = group.dailyLimit {
                    candidates.append(now + max(limit - ledger.used(group.name), 0))
                }
            }
        }
        return candidates.filter { $0 > now }.min()
    }

    /// What the coming interval belongs to, or nil when nobody is using a grouped app.
    private func chargeIfLooking(_ reading: Reading, decision: Decision, covered: Bool) -> Charge? {
        guard let window = reading.window, reading.isLooking(idleAfter: config.daemon.idleAfter),
              decision.shield == nil || !covered else { return nil }
        let groups = matcher.groups(for: window)
        guard !groups.isEmpty else { return nil }
        return Charge(app: window.app, groups: groups.map(\.name), metered: groups.contains { $0.metered },
                      uncovered: decision.shield != nil)
    }

    /// Splits [end − elapsed, end) at local midnight so one day's usage never leaks into the next.
    private func usageEntries(_ charge: Charge, elapsed: Milliseconds, endingAt end: WallInstant) -> [UsageEntry] {
        let start = end - elapsed
        let endDay = zone.localDate(at: end)
        let midnight = zone.startOfDay(endDay)
        var pieces: [(CivilDate, Milliseconds)] = [(endDay, end - max(start, midnight))]
        if start < midnight { pieces.insert((zone.localDate(at: start), midnight - start), at: 0) }
        return pieces.filter { $0.1 > 0 }.flatMap { day, ms in
            charge.groups.map { UsageEntry(day: day, group: $0, app: charge.app, ms: ms) }
        }
    }
}

/// The interval open since the last sample while it spends the balance: a
/// status between samples shows the balance less what it has spent so far.
public struct OpenSpend: Equatable, Sendable {
    public var since: MonotonicInstant
    public var cap: Milliseconds

    public init(since: MonotonicInstant, cap: Milliseconds) {
        self.since = since
        self.cap = cap
    }

    /// What it would debit if it ended at `monotonic` (never below a zero balance).
    public func debit(at monotonic: MonotonicInstant, balance: Milliseconds) -> Milliseconds {
        min(min(max(monotonic - since, 0), cap), max(balance, 0))
    }
}
