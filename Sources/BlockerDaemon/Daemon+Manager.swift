import Glibc
import BlockerSystem
import BlockerConfig
import BlockerCore
import BlockerProbes
import BlockerStore

/// The daemon's tick and commands: sample, charge, decide, write, tell; and
/// the earnings, blocks and the stop that change the ledger beside it.
extension Daemon {
    // MARK: ticking

    /// Samples the probe, charges the interval, decides the shield, and writes
    /// the ledger in one transaction.
    /// `boottime` (CLOCK_BOOTTIME) tells a stall from a suspend; nil (tests
    /// driving the clocks): every interval keeps its cap. `lock`: what the
    /// session says of the screen lock and idle now (the loop reads `session`,
    /// whose signals it follows; nil: read here), merged into an answering sample.
    public func tick(monotonic: MonotonicInstant = MonotonicClock.now, boottime: BoottimeInstant? = nil,
                     wall: WallInstant = WallClock.now, lock: SessionState? = nil) {
        applyDueConfigVersions(wall: wall)
        if monotonic.isDue(every: Self.ledgerCheckEveryMs, since: ledgerCheckedAt) {
            ledgerCheckedAt = monotonic
            checkLedgerIfChanged(wall: wall)
        }
        touchRun(wall: wall)
        noteLedgerEdits()
        let sample = probe.sample()
        // A failed sample debits nothing anyway: no need to ask the session.
        let merged = sample.map { reading in
            (lock ?? session?.read()).map { reading.merged(with: $0, inputIdle: probe.inputIdle) } ?? reading
        }
        let reading = withoutTheCover(merged).map {
            judgeLock(withTheTab(withoutTheHidden($0, wall: wall)), monotonic: monotonic, wall: wall)
        }
        let streakWasLogged = probeFailureLogged
        noteProbe(reading, monotonic: monotonic, wall: wall)
        let day = meter.zone.localDate(at: wall)
        // Opens first: a pause they start covers from this tick (a failed sample says nothing of them).
        if case let .success(sample) = reading { noteOpens(window: sample.isLooking(idleAfter: config.daemon.idleAfter) ? sample.window : nil, wall: wall, day: day) }
        let before = snapshot(at: wall, day: day)
        // A probe that pushes every change needs no poll while charging: the
        // loop samples again at the next commit at the latest (see DaemonLoop.tick).
        let heartbeat = probePushesChanges ? Self.commitEveryMs : nil
        let outcome = meter.tick(TickInput(monotonic: monotonic, boottime: boottime, wall: wall, reading: reading,
                                           heartbeat: heartbeat,
                                           covered: coveredIfShielded((try? reading.get())?.window, at: monotonic)),
                                 ledger: before)
        lastTick = outcome
        if let stall = outcome.stall { noteStall(stall, wall: wall) }
        var committing = false
        let record = TickRecord(debit: outcome.debit, spentDay: day, usage: outcome.usage)
        noteIntermittentFailures(outcome.blind, failure: reading.failureMessage, streakWasLogged: streakWasLogged,
                                 monotonic: monotonic)
        if outcome.debit > 0 || !outcome.usage.isEmpty || ledger.hasPending {
            let debit = ledger.pend(record, available: sync == nil ? nil : spendable)
            sync?.noteSpent(debit, usage: record.usage, day: day)
            // Batched (see `commitIsDue`), and at once where the ledger
            // decides something (a shield, a warning) or a write failed.
            let boundary = outcome.decision.shield != shield || !outcome.warnings.isEmpty || storageError != nil
            committing = boundary || commitIsDue()
            if committing {
                do {
                    try ledger.flushPending()
                    noteStorage(nil)
                } catch {
                    noteStorage(error)   // kept in memory by the ledger for the next tick
                }
            }
        }
        planCommit(at: monotonic)
        // The other machines hear this one's spending a minute at a time while
        // it spends, and the rest at the tick it stops (not at the next commit).
        sync?.flushSpending(at: wall, spending: meter.isSpending)
        // When spending starts or stops, and with each commit of what it
        // spent: listeners count down between (Status's `spending`), so a
        // focus change costs no signal, and no throttle timer after it.
        if isSpending != announced.spending || (committing && spendable != announced.balance) {
            announceBalance()
        }
        for threshold in outcome.warnings {
            log.write(LogEvent(.warning, "\(DurationText.format(threshold)) of earned time left",
                               fields: [("BALANCE_MS", "\(outcome.ledger.balance)"),
                                        ("APP", outcome.window?.app ?? "")]))
            observer?.warning(remaining: outcome.ledger.balance)
        }
        let shown = show(outcome.decision.shield, balance: outcome.ledger.balance)
        publish(wall: wall, day: day)
        if shown.changed { observer?.shieldChanged(state.shield, balance: outcome.ledger.balance) }
        superviseCover(outcome, monotonic: monotonic, wall: wall)
        sendNotifications(app: state.foreground?.app, crossed: outcome.warnings, raised: shown.raised, now: wall)
        anchorIfDue(wall: wall)
        // A note the cover's record or the anchor could not write is shown at once.
        if storageError != state.storageError { publish(wall: wall, day: day) }
    }

    /// Whether the batch is written now: once it holds `commitEveryMs` of
    /// time in front (what a kill -9 may lose), or nearly, at a tick that
    /// runs anyway (`coalescing`). Time in front, not time passed: a metered
    /// app in front for 2 s of every 6 is written every 30 s, not every 10.
    /// An open's last_seen moves only while its app is charged, so the same
    /// bound holds it.
    func commitIsDue() -> Bool {
        ledger.pendingChargedMs >= Self.commitEveryMs - coalescing
    }

    /// When the loop must tick for the batch at the latest (`nextCommit`):
    /// while something is charged, when the batch will hold `commitEveryMs`;
    /// nil while nothing is (what waits does not grow). A write that failed
    /// is retried by every tick, and by this one `commitEveryMs` later.
    func planCommit(at monotonic: MonotonicInstant) {
        let left = Self.commitEveryMs - ledger.pendingChargedMs
        nextCommit = meter.isCharging ? monotonic + (left > 0 ? left : Self.commitEveryMs) : nil
    }

    /// The desktop notifications this state calls for (the snapshot's view of it).
    func sendNotifications(app: String?, crossed: [Milliseconds], raised: Shield?, now: WallInstant) {
        guard let notify else { return }
        let requests = Translations.$scoped.withValue(personLanguage) {
            let text = raised.map {
                ShieldText.reason($0.reason, group: $0.group, until: $0.until, now: now, zone: meter.zone)
            }
            let tick = NotificationPlan.Tick(app: app, metered: state.decision.metered, locked: state.locked,
                                             balance: state.balanceMs, crossed: crossed, shieldRaised: raised, shieldText: text)
            return notificationPlan.plan(tick)
        }
        for request in requests { notify(request) }
    }

    /// The balance as of `monotonic`: the ledger's, less what the interval
    /// open since the last sample has spent (a status between samples).
    public func balance(at monotonic: MonotonicInstant = MonotonicClock.now) -> Milliseconds {
        state.balance(at: monotonic)
    }

    func announceBalance() {
        announced = (spendable, isSpending)
        observer?.balanceChanged(spendable)
    }

    /// Whether the balance is being spent now (Status's `spending`).
    public var isSpending: Bool { meter.isSpending && spendable > 0 }

    /// The ledger as the policy needs it at `wall` (on the local `day` of it).
    public func snapshot(at wall: WallInstant, day: CivilDate? = nil) -> LedgerSnapshot {
        let today = day ?? meter.zone.localDate(at: wall)
        var snapshot = withSync(LedgerSnapshot(balance: ledger.balance, usedToday: ledger.usedToday(day: today),
                                               timedBlocks: ledger.timedBlocks(activeAt: wall)), today: today, wall: wall)
        if tracksOpens || config.pass != nil { snapshot.opens = openBook(at: wall, day: today) }
        return snapshot
    }

    /// Re-decides the shield now without sampling (after an earning or a block).
    public func redecide(wall: WallInstant = WallClock.now, afterEarning: Bool = false) {
        guard lastTick != nil else { return publish(wall: wall, afterEarning: afterEarning) }
        let day = meter.zone.localDate(at: wall)
        let snapshot = snapshot(at: wall, day: day)
        let decision = meter.decide(window: meter.lastWindow, ledger: snapshot, now: wall)
        let shown = show(decision.shield, balance: snapshot.balance)
        publish(wall: wall, day: day, afterEarning: afterEarning)
        if shown.changed { observer?.shieldChanged(state.shield, balance: snapshot.balance) }
        covers.shieldChanged(up: windowCoverWanted, at: MonotonicClock.now)
        if shown.raised != nil {
            sendNotifications(app: state.front?.app, crossed: [], raised: shown.raised, now: wall)
        }
    }

    /// Shows `new` and logs a change: `changed` when it differs from the
    /// shield shown (the caller signals it, once the state is published);
    /// `raised` when it is a shield that just went up (or changed).
    func show(_ new: Shield?, balance: Milliseconds) -> (changed: Bool, raised: Shield?) {
        let old = shield
        shield = new
        guard old?.app != new?.app || old?.reason != new?.reason || old?.site != new?.site
                || (old == nil) != (new == nil) else { return (false, nil) }
        if let new {
            var fields = [("APP", new.app), ("REASON", new.reason.rawValue), ("BALANCE_MS", "\(balance)")]
            if let group = new.group { fields.append(("GROUP", group)) }
            if let site = new.site { fields.append(("SITE", site)) }
            let what = new.site.map { "\(new.app), tab on \($0)" } ?? new.app
            log.write(LogEvent(.shieldUp, "Shield up: \(what) (\(new.reason.rawValue))", fields: fields))
        } else if let old {
            log.write(LogEvent(.shieldDown, "Shield down: \(old.app)",
                               fields: [("APP", old.app), ("BALANCE_MS", "\(balance)")]))
        }
        return (true, new)
    }

    /// A failure that heals within this long is no warning for the journal: a
    /// shell's first report racing the first sample, a window closing under an
    /// X11 query. `status` shows it at once all the same.
    static let probeFailureLogAfterMs: Milliseconds = .seconds(2)

    /// Logs a failing probe once per streak that lasts, and its recovery; such
    /// a streak is blind time, recorded in the ledger from its first failure.
    func noteProbe(_ reading: Result<Reading, ProbeFailure>, monotonic: MonotonicInstant, wall: WallInstant) {
        switch reading {
        case let .failure(failure):
            probeError = failure.message
            let since = probeFailingSince ?? (monotonic, wall)
            probeFailingSince = since
            if !probeFailureLogged, monotonic - since.monotonic >= Self.probeFailureLogAfterMs {
                probeFailureLogged = true
                log.write(LogEvent(.probeError, "Probe \(probe.name) failing: \(failure.message)",
                                   fields: [("PROBE", probe.name)]))
                if let runID {
                    do throws(StoreError) {
                        blindID = try ledger.beginBlind(runID: runID, from: since.wall, reason: "\(probe.name): \(failure.message)")
                    } catch { noteStorage(error) }
                }
            }
        case let .success(sample):
            locked = sample.locked
            if probeFailureLogged {
                log.write(LogEvent(.probeRecovered, "Probe \(probe.name) answers again", fields: [("PROBE", probe.name)]))
            } else if let since = probeFailingSince, monotonic - since.monotonic >= Self.probeFailureLogAfterMs {
                // One or two hung samples: the streak lasted, though no failed sample saw it last.
                recordShortStreak(from: since.wall, to: wall, why: probeError ?? "failing")
            }
            endBlind(wall: wall)
            probeError = nil
            probeFailingSince = nil
            probeFailureLogged = false
        }
    }

    /// A probe that fails now and then (a command that hangs every third
    /// call) makes streaks too short to be logged as they run. Each that
    /// lasted is blind time all the same: stretches less than
    /// `intermittentEveryMs` apart are one row of `blind`, made longer.
    static let intermittentEveryMs: Milliseconds = .minutes(1)

    func recordShortStreak(from: WallInstant, to: WallInstant, why: String) {
        guard let runID else { return }
        do throws(StoreError) {
            if let last = intermittentBlind, from - last.to <= Self.intermittentEveryMs, from >= last.to {
                try ledger.extendBlind(last.id, to: to)
                intermittentBlind = (last.id, to)
            } else {
                let id = try ledger.beginBlind(runID: runID, from: from, reason: "\(probe.name): \(why) (now and then)")
                try ledger.endBlind(id, to: to)
                intermittentBlind = (id, to)
            }
        } catch { noteStorage(error) }
    }


    func noteIntermittentFailures(_ blind: BlindInterval?, failure: String?, streakWasLogged: Bool,
                                          monotonic: MonotonicInstant) {
        if let failure {
            streakFailures = (streakFailures.count + 1, failure)
            return
        }
        defer { streakFailures = (0, "") }
        // A streak that lasted as it ran has had its own line.
        guard let blind, !streakWasLogged else { return }
        var unsaid = unsaidBlind ?? (0, 0, 0, blind.app, "")
        unsaid.ms += blind.ms
        unsaid.chargedMs += blind.chargedMs
        unsaid.failures += streakFailures.count
        unsaid.app = blind.app
        unsaid.why = streakFailures.why
        unsaidBlind = unsaid
        guard unsaid.ms >= Self.probeFailureLogAfterMs,
              monotonic.isDue(every: Self.intermittentEveryMs, since: blindSaidAt) else { return }
        blindSaidAt = monotonic
        unsaidBlind = nil
        let failures = unsaid.failures == 1 ? "1 failed sample" : "\(unsaid.failures) failed samples"
        log.write(LogEvent(.probeError, "Probe \(probe.name) fails now and then: it could not answer for "
                           + "\(DurationText.format(unsaid.ms)) while \(unsaid.app) (metered) was last in front, "
                           + "\(DurationText.format(unsaid.chargedMs)) of it charged (\(failures)"
                           + (unsaid.why.isEmpty ? "" : "; the last: \(unsaid.why)") + ")",
                           fields: [("PROBE", probe.name), ("APP", unsaid.app), ("BLIND_MS", "\(unsaid.ms)"),
                                    ("CHARGED_MS", "\(unsaid.chargedMs)")]))
    }

    func endBlind(wall: WallInstant) {
        guard let id = blindID else { return }
        blindID = nil
        do throws(StoreError) { try ledger.endBlind(id, to: wall) } catch { noteStorage(error) }
    }

    /// `EarnOnce` called again with `requestID` (its client timed out, then
    /// retried): what the first call earned and the balance now; nil when
    /// the id is new (or too old to be known).
    public func earnedBefore(requestID: String) throws(EarnFailure) -> (earned: Milliseconds, balance: Milliseconds)? {
        let earned: Milliseconds?
        do { earned = try ledger.earning(requestID: requestID) } catch { throw .storage(error) }
        guard let earned else { return nil }
        log.write(LogEvent(priority: .info, "Earning request \(requestID) came again: answered with its first earning "
                           + "(\(DurationText.format(earned))), not credited twice"))
        return (earned, spendable)
    }

    /// Credits `reps` of `exercise`; committed to disk before it returns.
    /// Beyond `[earn] max-per-day` or `min-gap` nothing is credited.
    /// `requestID`: the client's id for it (`earnedBefore(requestID:)`).
    public func earn(exercise: Exercise, reps: Int, requestID: String? = nil, wall: WallInstant = WallClock.now) throws(EarnFailure)
        -> (earned: Milliseconds, balance: Milliseconds) {
        let today = meter.zone.localDate(at: wall)
        let limits = config.earnLimits
        // An edit made since the last tick is seen before the limits are checked.
        checkLedgerIfChanged(wall: wall)
        let history: EarnLimits.History
        do { history = try earningHistory(day: today) } catch { throw .storage(error) }
        if limits != EarnLimits() {
            let (earning, overflow) = Int64(reps).multipliedReportingOverflow(by: exercise.perRep.ms)
            if let refusal = limits.refusal(earning: overflow ? .max : Milliseconds(ms: earning), now: wall, history: history,
                                            nextDay: meter.zone.startOfDay(today.adding(days: 1))) {
                let message = refusal.message(now: wall, zone: meter.zone)
                log.write(LogEvent(.earnRefused, "Earning refused: \(reps) \(exercise.name): \(message)",
                                   fields: [("EXERCISE", exercise.name), ("REPS", "\(reps)")]))
                throw .refused(refusal, message: message)
            }
        }
        // The spending before it first, so the ledger's rows stay in order;
        // a failure here is retried at the next tick and does not stop the earning.
        try? ledger.flushPending()
        let result: (earned: Milliseconds, balance: Milliseconds)
        do {
            result = try ledger.earn(exercise: exercise.name, reps: reps, perRep: exercise.perRep, at: wall,
                                     day: today, requestID: requestID)
        } catch { throw .storage(error) }
        noteEarned(result.earned, day: today, before: history, wall: wall)
        sync?.note(.earn(result.earned, exercise: exercise.name, reps: reps), day: today, at: wall)
        anchorLedger(wall: wall)
        log.write(LogEvent(.earn, "Earned \(DurationText.format(result.earned)) for \(reps) \(exercise.name)",
                           fields: [("EXERCISE", exercise.name), ("REPS", "\(reps)"),
                                    ("EARNED_MS", "\(result.earned)"), ("BALANCE_MS", "\(spendable)")]))
        announceBalance()
        redecide(wall: wall, afterEarning: true)
        return (result.earned, spendable)
    }

    /// Blocks `target` (a group name or an app, already resolved) until
    /// `until`, durably; a running block is only ever extended. Returns
    /// the block's end and re-decides the shield at once.
    public func block(target: String, until: WallInstant, wall: WallInstant = WallClock.now) throws(StoreError) -> WallInstant {
        let end = try ledger.setTimedBlock(target: target, until: until)
        sync?.note(.block(target: target.lowercased(), until: end), day: meter.zone.localDate(at: wall), at: wall)
        log.write(LogEvent(priority: .info, "Timed block on \(target) until \(until) (Unix ms), "
                           + "\(DurationText.format(max(end - wall, 0))) from now"))
        redecide(wall: wall)
        return end
    }

    /// Ends the timed block on `target`; false when none was running (nothing
    /// is written then). Schedules and daily limits are untouched: the shield
    /// is recomputed from whatever rules remain.
    public func unblock(target: String, wall: WallInstant = WallClock.now) throws(StoreError) -> Bool {
        let key = target.lowercased()
        let here = ledger.timedBlocks(activeAt: wall).contains { $0.target == key }
        // With [sync], a block another machine set is lifted by this machine's word too.
        let elsewhere = snapshot(at: wall).timedBlocks.contains { $0.target == key }
        guard here || elsewhere else { return false }
        if here { _ = try ledger.removeTimedBlock(target: key) }
        sync?.note(.unblock(target: key), day: meter.zone.localDate(at: wall), at: wall)
        log.write(LogEvent(priority: .info, "Timed block on \(key) lifted"))
        redecide(wall: wall)
        return true
    }

    /// Charges the interval open since the last sample up to this instant
    /// (what `status` showed), flushes the ledger; never raises a shield
    /// (stopping must not block).
    public func shutdown(reason: String = "stopped", monotonic: MonotonicInstant = MonotonicClock.now,
                         wall: WallInstant = WallClock.now) {
        // A failure streak still open stays unsettled, as `status` showed it.
        let last = meter.closeInterval(at: monotonic, wall: wall, balance: spendable,
                                        failed: probeError != nil)
        uncovered?.chargedMs += last.uncovered
        endUncovered(wall: wall)
        probe.shutdown()
        launcher?.stop()
        endBlind(wall: wall)
        let record = TickRecord(debit: last.debit, spentDay: meter.zone.localDate(at: wall), usage: last.usage)
        do {
            let debit = try ledger.record(record, available: sync == nil ? nil : spendable)
            sync?.noteSpent(debit, usage: record.usage, day: record.spentDay ?? meter.zone.localDate(at: wall))
        } catch { log.write(LogEvent(.storageError, "Cannot flush the ledger: \(error)")) }
        sync?.flushSpending(at: wall, now: true)
        extendConfigUnreadable(wall: wall)
        if let runID {
            do { try ledger.endRun(runID, now: wall, reason: reason) } catch {
                log.write(LogEvent(.storageError, "Cannot record the stop: \(error)"))
            }
        }
        anchorLedger(final: true, wall: wall)
        log.write(LogEvent(.stop, "blockerd stopping", fields: [("BALANCE_MS", "\(spendable)")]))
        ledger.close()
    }
}

extension Result where Success == Reading, Failure == ProbeFailure {
    /// Why the sample failed; nil when it answered.
    var failureMessage: String? {
        if case let .failure(failure) = self { failure.message } else { nil }
    }
}
