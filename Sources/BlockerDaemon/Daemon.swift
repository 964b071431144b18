import Glibc
import BlockerSystem
import BlockerBus
import BlockerConfig
import BlockerCore
import BlockerProbes
import BlockerStore
import BlockerSystemd

/// Why the daemon could not start; each maps to an exit status systemd understands.
/// Why `Daemon.earn` credited nothing.
public enum EarnFailure: Error, CustomStringConvertible {
    /// `[earn] max-per-day` or `min-gap`; `message` says when it is possible again.
    case refused(EarnLimits.Refusal, message: String)
    case storage(StoreError)

    public var description: String {
        switch self {
        case let .refused(_, message): message
        case let .storage(error): "\(error)"
        }
    }
}

public enum StartFailure: Error, CustomStringConvertible {
    case config(ConfigError)
    case timeZone(TimeZoneError)
    case alreadyRunning(StateLockError)
    /// Another process owns the bus name (its pid when the bus daemon knows it).
    case nameTaken(BlockerExport.ClaimFailure)
    case storage(StoreError)
    /// The event loop or the bus could not be set up.
    case system(String)

    public var description: String {
        switch self {
        case let .config(e): e.description
        case let .timeZone(e): e.description
        case let .alreadyRunning(e): e.description
        case let .nameTaken(e): e.description
        case let .storage(e): e.description
        case let .system(why): why
        }
    }

    /// sysexits: 78 EX_CONFIG (RestartPreventExitStatus), 75 EX_TEMPFAIL, 73 EX_CANTCREAT, 71 EX_OSERR.
    public var exitStatus: Int32 {
        switch self {
        case .config, .timeZone: 78
        case .alreadyRunning(.held), .nameTaken: 75
        case .alreadyRunning(.failed): 73
        case .storage: 73
        case .system: 71
        }
    }
}

/// What the rest of the world hears about: the bus turns these into signals.
public protocol DaemonObserver: AnyObject {
    func shieldChanged(_ shield: Shield?, balance: Milliseconds)
    func balanceChanged(_ balance: Milliseconds)
    func warning(remaining: Milliseconds)
    /// A shield is up, nothing covers it, and no blocker-overlay is on the bus.
    func coverMissing()
}

extension DaemonObserver {
    public func coverMissing() {}
}

/// The daemon without its loop: config, ledger, probe and meter, one tick at a
/// time. `DaemonLoop` drives it from sd_event; tests drive it directly.
public final class Daemon {
    public let options: DaemonOptions
    public private(set) var config: Config
    /// The file `config` came from, and whether it is the system's default
    /// (the user has none of their own): then the meter runs it observing only.
    public private(set) var configFile: (path: String, systemDefault: Bool)
    public private(set) var meter: Meter
    public private(set) var probe: ForegroundProbe {
        didSet { probesOpened += 1 }
    }
    /// How many probes a reload has put in place of the first: the loop
    /// watches a new probe's descriptor even when it got the old one's number.
    public private(set) var probesOpened = 0
    /// The session's screen lock beside a display probe (logind, the screen
    /// saver); nil for the command probe. The loop follows its signals and
    /// gives its state to each tick.
    public private(set) var session: SessionLock?
    public let ledger: Ledger
    public weak var observer: DaemonObserver?
    private let lock: StateLock
    let log: LogSink
    let environment: [String: String]
    /// Runs the command probe's program, so a tick does not fork (see ProbeLauncher).
    private let launcher: ProbeLauncher?

    /// The last tick's result (nil before the first).
    public private(set) var lastTick: TickOutcome?
    /// What the rest of blockerd reads of the daemon (see DaemonSnapshot.swift).
    public internal(set) var state = DaemonSnapshot.none
    /// Bumped each time `state` changes: a reader redoes its work only then.
    public internal(set) var stateVersion = 0
    /// Today's committed totals as last read from the ledger (see `todayTotals`).
    var todayRead: TodayRead?
    /// Spending is written at most this often (and at a shield or warning, an
    /// earning and at stop): a kill -9 may lose up to this much *debit*, in the
    /// user's favour, and never an earning, which is committed on its own.
    public static let commitEveryMs: Int64 = 10_000
    /// Since when spending has gone uncommitted (CLOCK_MONOTONIC ms); the
    /// interval open while something is charged counts from its start.
    private var uncommittedSinceMs: Int64?
    /// What the last BalanceChanged said (and whether spending went on then).
    private var announced = (balance: Milliseconds(0), spending: false)
    /// When what is being spent must be committed, so a kill -9 loses at most
    /// `commitEveryMs` of it: a daemon that samples only on events ticks then.
    public var nextCommitMs: Int64? { uncommittedSinceMs.map { $0 + Self.commitEveryMs } }
    /// The shield as last shown (changes are logged and signalled).
    public private(set) var shield: Shield?
    /// The current probe failure streak's message, nil while the probe answers.
    public private(set) var probeError: String?
    /// When the current streak of failed samples began, and whether it made the journal.
    private var probeFailingSince: (monotonic: Int64, wall: Int64)?
    private var probeFailureLogged = false
    /// The ledger's row for the blind stretch a logged streak is (`Ledger.beginBlind`).
    private var blindID: Int64?
    /// The current storage failure, nil while the ledger writes.
    public private(set) var storageError: String?
    /// Whether the last answering probe said the screen is locked.
    public private(set) var locked = false
    /// Where desktop notifications go (the session bus); nil: none are sent.
    public var notify: ((NotificationRequest) -> Void)?
    private var notificationPlan: NotificationPlan
    /// A reload storm logs one line per 10 s, not one per reload.
    private var reloadLines = LogRateLimit(intervalMs: 10_000)

    /// When each graphical session of a user began, from logind; a parameter
    /// so in-process tests need no system bus.
    public typealias SessionStarts = (_ uid: UInt32, _ environment: [String: String])
        -> Result<[Int64], GraphicalSessions.Unavailable>

    /// `anchors`: where the ledger's anchors go and are read back (the
    /// journal in blockerd; nil: none, as in tests that do not ask for them).
    public init(options: DaemonOptions, log: LogSink, environment: [String: String],
                wall: Int64 = WallClock.nowMs, monotonic: Int64 = MonotonicClock.nowMs,
                sessionStarts: SessionStarts = GraphicalSessions.startsMs,
                anchors: LedgerAnchorStore? = nil) throws(StartFailure) {
        self.options = options
        self.log = log
        self.environment = environment
        self.anchors = anchors
        configFile = options.configSource(environment: environment)
        // A file that does not load is fatal (exit 78) only outside strict
        // mode: in it, the ledger's version in force runs until it is fixed.
        let file: Result<(config: Config, text: String), ConfigError>
        do { file = .success(try Config.loadWithText(path: configFile.path)) } catch { file = .failure(error) }
        // Without a ledger there is no config in force to fall back on: nothing is created for it.
        if case let .failure(error) = file,
           access(options.stateDirectory + "/" + BlockerPaths.ledgerFileName, F_OK) != 0 { throw .config(error) }
        // The lock comes first: a second daemon must not touch the ledger at all.
        do { lock = try StateLock(directory: options.stateDirectory) } catch { throw .alreadyRunning(error) }
        do { ledger = try Ledger.open(stateDirectory: options.stateDirectory) } catch { throw .storage(error) }
        // Before anything writes: a restored or rewritten file is told from the last anchor.
        let start = Self.checkLedgerAtStart(ledger, anchors: anchors, wall: wall, log: log)
        knownBrokenEarning = start.broken
        // Strict mode: the config in force is the ledger's, and the file is
        // compared with it (it may have been edited while blockerd was stopped).
        var versions: [LoadedConfigVersion]
        let adoption: ConfigAdoption
        do { versions = try Self.loadVersions(ledger, log: log) } catch { throw .storage(error) }
        let running = Self.inForce(versions, now: wall)
        switch file {
        case let .success(file):
            do {
                (config, adoption) = try Self.adopt(text: file.text, fresh: file.config, running: running,
                                                    versions: &versions, ledger: ledger, wall: wall)
            } catch { throw .storage(error) }
        case let .failure(error):
            guard let running, running.strict.delay != nil else {
                ledger.close()
                throw .config(error)
            }
            (config, adoption) = (running, .unchanged)
            configUnreadable = ConfigUnreadable(error: error.description, sinceMs: wall)
        }
        configVersions = versions
        let zone: TimeZoneRules
        do { zone = try TimeZoneRules.chosen(config.daemon.timeZone, environment: environment) } catch {
            ledger.close()
            throw .timeZone(error)
        }
        let previousRun: RunRecord?
        do { (runID, previousRun) = try ledger.beginRun(pid: getpid(), nowMs: wall) } catch { throw .storage(error) }
        lastRunTouchMs = wall
        meter = Meter(config: Self.metering(config, systemDefault: configFile.systemDefault), zone: zone)
        covers = CoverSupervisor(startedAt: monotonic)
        notificationPlan = NotificationPlan(thresholds: config.warnBefore)
        launcher = options.probeLauncher.map(ProbeLauncher.init(executable:))
        (probe, session) = Self.selectProbe(config: config, override: options.probe, environment: environment,
                                            launcher: launcher, log: log)
        logAdoption(adoption)
        logObservingOnly()
        let unguardedSince = noteUnguarded(previous: previousRun, now: wall, sessionStarts: sessionStarts)
        if let gap = Self.gapEvent(previous: previousRun, now: wall, zone: meter.zone, unguardedSinceMs: unguardedSince) {
            log.write(gap)
        }
        recordStartFindings(start.found, anchor: start.anchor, wall: wall)
        noteLedgerEdits()
        anchorLedger(wall: wall)
        noteConfigUnreadable(wall: wall)
        noteEnvironment(wall: wall)
        publish(wall: wall)
    }

    /// Replaces the probe the config chose (tests: a probe no config names).
    func use(probe: ForegroundProbe) {
        self.probe.shutdown()
        self.probe = probe
        session = nil
        overlayFilter = OverlayFilter()
        publish(wall: WallClock.nowMs)
    }

    /// Who draws the cover, and whether one is drawn (see CoverWatch.swift).
    public internal(set) var covers: CoverSupervisor
    /// The stretch of time a shield has had no cover drawn, while it lasts.
    var uncovered: UncoveredStretch?
    /// Keeps the window beneath blocker's cover in front (the cover known by its process).
    var overlayFilter = OverlayFilter()

    /// Hand edits the ledger found so far, as last said in the journal.
    private var announcedLedgerEdits = 0
    /// Where the ledger's anchors go (LedgerAnchors.swift); nil: nowhere.
    let anchors: LedgerAnchorStore?
    /// The first earning not following from the one before, as last checked.
    var knownBrokenEarning: Int64?
    /// When the last anchor went out, and the ledger's commit count then.
    var lastAnchor: (ms: Int64, commits: Int) = (0, -1)
    /// What blockerd itself knows was earned on `day` (see `earningHistory`).
    var earnedFloor: (day: String, history: EarnLimits.History)?

    /// Says in the journal, once each, that the ledger was edited outside
    /// blocker: what the seal found, or `found` (an anchor, the earnings chain).
    func noteLedgerEdits(_ found: [String] = []) {
        guard ledger.editsFound > announcedLedgerEdits || !found.isEmpty else { return }
        announcedLedgerEdits = ledger.editsFound
        let what = found.isEmpty ? " since its last write" : ": " + found.joined(separator: "; ")
        log.write(LogEvent(.ledgerEdited, "The ledger \(ledger.path) was edited outside blocker\(what); "
                           + "noted in its ledger_edits table (blockerctl doctor shows it), running on",
                           fields: [("LEDGER", ledger.path), ("FOUND", found.joined(separator: "\n"))]))
        let now = WallClock.nowMs
        keep(IntegrityNote(kind: .ledgerEdited, fromMs: now, toMs: now, text: "the ledger was edited outside blocker\(what)"))
    }

    /// This run's row in the ledger (`runs`), and when it last noted it was alive.
    var runID: Int64?
    var lastRunTouchMs: Int64 = 0

    /// Strict mode's stored config versions, oldest first (see StrictConfig.swift).
    var configVersions: [LoadedConfigVersion] = []
    /// Strict mode started without a loadable blocker.toml (see StrictConfig.swift).
    var configUnreadable: ConfigUnreadable?
    /// Screen locks nothing vouches for, checked against the evidence.
    public internal(set) var lockCheck = LockClaimCheck()
    /// The note of the lock claim not honoured now.
    var lockNote: (id: Int64?, text: String)?
    /// The stalls of the last minutes, one note (see IntegrityNotes.swift).
    var stallRun: StallRun?
    /// A stop/continue loop logs one stall line a minute.
    var stallLines = LogRateLimit(intervalMs: 60_000)

    /// What the meter runs: the config, or on the system's default file only
    /// what observes (`SystemDefaultConfig`).
    static func metering(_ config: Config, systemDefault: Bool) -> Config {
        systemDefault ? SystemDefaultConfig.observing(config) : config
    }

    /// Says that blocker meters nothing on the system's default config, and how to start.
    private func logObservingOnly() {
        guard configFile.systemDefault else { return }
        let userFile = BlockerPaths.userConfigFile(environment: environment)
        log.write(LogEvent(priority: .notice, "No config of your own (\(userFile)): running on the system's default "
                           + "\(configFile.path), which meters nothing (blocker observes and records only); "
                           + SystemDefaultConfig.howToStart(systemFile: configFile.path, userFile: userFile)))
    }

    /// Puts `fresh` in force: the meter, the warnings and (when [daemon] changed) the probe.
    private func install(_ fresh: Config) {
        let previous = config
        let zoneChanged = fresh.daemon.timeZone != previous.daemon.timeZone
        var probeSettings = fresh.daemon
        probeSettings.timeZone = previous.daemon.timeZone   // the zone is no reason to open the probe again
        config = fresh
        if zoneChanged { rereadTimeZone() }
        meter.reconfigure(Self.metering(fresh, systemDefault: configFile.systemDefault))
        notificationPlan = NotificationPlan(thresholds: fresh.warnBefore)
        if probeSettings != previous.daemon { reopenProbe(fresh, previous: previous) }
    }

    /// A new probe for changed [daemon] settings. The old one is closed first:
    /// the gnome and kde probes own io.github.blockerd.Focus, which a second
    /// probe cannot take while the first holds it (it would stay blind, or
    /// `auto` would fall back to X11, until a restart). If none can run with
    /// the new settings, one as before is opened again: blockerd keeps seeing.
    private func reopenProbe(_ fresh: Config, previous: Config) {
        probe.shutdown()
        overlayFilter = OverlayFilter()
        let selected = Self.selectProbe(config: fresh, override: options.probe, environment: environment,
                                        launcher: launcher, log: log)
        guard let unavailable = selected.probe as? UnavailableProbe else { return (probe, session) = selected }
        let restored = Self.selectProbe(config: previous, override: options.probe, environment: environment,
                                        launcher: launcher, log: log)
        guard !(restored.probe is UnavailableProbe) else { return (probe, session) = selected }
        log.write(LogEvent(priority: .warning, "Keeping the \(restored.probe.name) probe as before the reload: the new "
                           + "[daemon] settings' probe cannot run: \(unavailable.reason)"))
        (probe, session) = restored
    }

    private func logAdoption(_ adoption: ConfigAdoption) {
        guard case let .pending(applyMs, changes) = adoption else { return }
        let when = ShieldText.clock(applyMs, now: WallClock.nowMs, zone: meter.zone)
        log.write(LogEvent(.configPending, "Strict mode: \(changes.count) loosening \(changes.count == 1 ? "change waits" : "changes wait") "
                           + "until \(when) (\(applyMs) Unix ms): \(changes.joined(separator: "; ")); what tightens applies now",
                           fields: [("APPLY_MS", "\(applyMs)"), ("CHANGES", changes.joined(separator: "\n"))]))
    }

    /// Puts in force every waiting change whose instant has come (each tick).
    func applyDueConfigVersions(wall: Int64) {
        // One version (no strict change waiting), as almost always: nothing
        // to copy every tick.
        guard configVersions.count > 1 else { return }
        let base = StrictHistory.baseIndex(configVersions.map(\.version), now: wall)
        guard base > 0 else { return }
        let applied = configVersions[1...base].filter { !$0.stored.cancelled }
        do { try ledger.pruneConfigVersions(before: configVersions[base].stored.id) } catch {
            noteStorage(error)   // in memory it applies anyway; the prune is retried at the next one
        }
        configVersions.removeFirst(base)
        if let fresh = Self.inForce(configVersions, now: wall) { install(fresh) }
        let changes = applied.flatMap(\.stored.changes)
        log.write(LogEvent(.configApplied, "Strict mode: the delay passed; now in force: \(changes.joined(separator: "; "))",
                           fields: [("CHANGES", changes.joined(separator: "\n"))]))
    }

    /// `blockerctl config cancel`: the waiting loosenings never apply (the
    /// tightenings stay). Returns how many versions were cancelled.
    public func cancelPendingConfig(wall: Int64 = WallClock.nowMs) throws(StoreError) -> Int {
        let count = try ledger.cancelPendingConfigVersions(nowMs: wall)
        for index in configVersions.indices where configVersions[index].stored.applyMs > wall {
            configVersions[index].stored.cancelled = true
        }
        if count > 0 {
            log.write(LogEvent(.configCancelled, "Strict mode: \(count) pending config \(count == 1 ? "change" : "changes") cancelled; "
                               + "the config in force stays"))
        }
        publish(wall: wall)
        return count
    }

    /// The probe the settings choose, and the session lock beside it (display probes).
    private static func selectProbe(config: Config, override: ProbeChoice?, environment: [String: String],
                                    launcher: ProbeLauncher?,
                                    log: LogSink) -> (probe: ForegroundProbe, session: SessionLock?) {
        let selection = ProbeSelection.select(override ?? config.daemon.probe, settings: config.daemon,
                                              environment: environment, launcher: launcher)
        for reason in selection.passedOver { log.write(LogEvent(priority: .info, "probe \(reason)")) }
        return (selection.display, selection.session)
    }

    // MARK: ticking

    /// Samples the probe, charges the interval, decides the shield, and writes
    /// the ledger in one transaction.
    /// `boottime` (CLOCK_BOOTTIME ms) tells a stall from a suspend; nil (tests
    /// driving the clocks): every interval keeps its cap. `lock`: what the
    /// session says of the screen lock and idle now (the loop reads `session`,
    /// whose signals it follows; nil: read here), merged into an answering sample.
    public func tick(monotonic: Int64 = MonotonicClock.nowMs, boottime: Int64? = nil, wall: Int64 = WallClock.nowMs,
                     lock: SessionState? = nil) {
        applyDueConfigVersions(wall: wall)
        checkLedgerIfChanged(wall: wall)
        touchRun(wall: wall)
        noteLedgerEdits()
        let sample = probe.sample()
        // A failed sample debits nothing anyway: no need to ask the session.
        let merged = sample.map { reading in
            (lock ?? session?.read()).map { reading.merged(with: $0, inputIdle: probe.inputIdle) } ?? reading
        }
        let reading = withoutTheCover(merged).map { judgeLock($0, monotonic: monotonic, wall: wall) }
        let streakWasLogged = probeFailureLogged
        noteProbe(reading, monotonic: monotonic, wall: wall)
        let day = meter.zone.localDate(atMs: wall)
        let before = snapshot(at: wall, day: day)
        // A probe that pushes every change needs no poll while charging: the
        // loop samples again at the next commit at the latest (see DaemonLoop.tick).
        let heartbeat = probe.eventDescriptor != nil ? Self.commitEveryMs : nil
        let outcome = meter.tick(TickInput(monotonic: monotonic, boottime: boottime, wall: wall, reading: reading,
                                           heartbeat: heartbeat, covered: coveredIfShielded(at: monotonic)),
                                 ledger: before)
        lastTick = outcome
        if let stall = outcome.stall { noteStall(stall, wall: wall) }
        var committing = false
        let record = TickRecord(debit: outcome.debit, spentDay: day.description, usage: outcome.usage)
        noteIntermittentFailures(outcome.blind, failure: reading.failureMessage, streakWasLogged: streakWasLogged,
                                 monotonic: monotonic)
        if outcome.debit > 0 || !outcome.usage.isEmpty || ledger.hasPending {
            // Batched: a transaction once spending has gone uncommitted for
            // commitEveryMs, and at once where the ledger decides something (a
            // shield, a warning) or a write failed.
            let boundary = outcome.decision.shield != shield || !outcome.warnings.isEmpty || storageError != nil
            let since = uncommittedSinceMs ?? monotonic
            let due = boundary || monotonic - since >= Self.commitEveryMs || monotonic < since
            committing = due
            do {
                try ledger.record(record, commit: due)
                if due {
                    uncommittedSinceMs = nil
                    noteStorage(nil)
                }
            } catch {
                noteStorage(error)   // kept in memory by the ledger for the next tick
            }
        }
        if uncommittedSinceMs == nil, meter.isCharging || ledger.hasPending { uncommittedSinceMs = monotonic }
        // When spending starts or stops, and with each commit of what it
        // spent: listeners count down between (Status's `spending`), so a
        // focus change costs no signal, and no throttle timer after it.
        if isSpending != announced.spending || (committing && ledger.balance != announced.balance) {
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

    /// The desktop notifications this state calls for (the snapshot's view of it).
    private func sendNotifications(app: String?, crossed: [Milliseconds], raised: Shield?, now: Int64) {
        guard let notify else { return }
        let text = raised.map {
            ShieldText.reason($0.reason, group: $0.group, until: $0.until, now: now, zone: meter.zone)
        }
        let tick = NotificationPlan.Tick(app: app, metered: state.decision.metered, locked: state.locked,
                                         balance: state.balanceMs, crossed: crossed, shieldRaised: raised, shieldText: text)
        for request in notificationPlan.plan(tick) { notify(request) }
    }

    /// The balance as of `monotonic`: the ledger's, less what the interval
    /// open since the last sample has spent (a status between samples).
    public func balance(at monotonic: Int64 = MonotonicClock.nowMs) -> Milliseconds {
        state.balance(at: monotonic)
    }

    private func announceBalance() {
        announced = (ledger.balance, isSpending)
        observer?.balanceChanged(ledger.balance)
    }

    /// Whether the balance is being spent now (Status's `spending`).
    public var isSpending: Bool { meter.isSpending && ledger.balance > 0 }

    /// The ledger as the policy needs it at `wall` (on the local `day` of it).
    public func snapshot(at wall: Int64, day: CivilDate? = nil) -> LedgerSnapshot {
        let today = (day ?? meter.zone.localDate(atMs: wall)).description
        return LedgerSnapshot(balance: ledger.balance, usedToday: ledger.usedToday(day: today),
                              timedBlocks: ledger.timedBlocks(activeAtMs: wall))
    }

    /// Re-decides the shield now without sampling (after an earning or a block).
    public func redecide(wall: Int64 = WallClock.nowMs, afterEarning: Bool = false) {
        guard lastTick != nil else { return publish(wall: wall, afterEarning: afterEarning) }
        let day = meter.zone.localDate(atMs: wall)
        let snapshot = snapshot(at: wall, day: day)
        let decision = meter.decide(window: meter.lastWindow, ledger: snapshot, now: wall)
        let shown = show(decision.shield, balance: snapshot.balance)
        publish(wall: wall, day: day, afterEarning: afterEarning)
        if shown.changed { observer?.shieldChanged(state.shield, balance: snapshot.balance) }
        covers.shieldChanged(up: shield != nil, at: MonotonicClock.nowMs)
        if shown.raised != nil {
            sendNotifications(app: state.front?.app, crossed: [], raised: shown.raised, now: wall)
        }
    }

    /// Shows `new` and logs a change: `changed` when it differs from the
    /// shield shown (the caller signals it, once the state is published);
    /// `raised` when it is a shield that just went up (or changed).
    private func show(_ new: Shield?, balance: Milliseconds) -> (changed: Bool, raised: Shield?) {
        let old = shield
        shield = new
        guard old?.app != new?.app || old?.reason != new?.reason || (old == nil) != (new == nil) else { return (false, nil) }
        if let new {
            var fields = [("APP", new.app), ("REASON", new.reason.rawValue), ("BALANCE_MS", "\(balance)")]
            if let group = new.group { fields.append(("GROUP", group)) }
            log.write(LogEvent(.shieldUp, "Shield up: \(new.app) (\(new.reason.rawValue))", fields: fields))
        } else if let old {
            log.write(LogEvent(.shieldDown, "Shield down: \(old.app)",
                               fields: [("APP", old.app), ("BALANCE_MS", "\(balance)")]))
        }
        return (true, new)
    }

    /// A failure that heals within this long is no warning for the journal: a
    /// shell's first report racing the first sample, a window closing under an
    /// X11 query. `status` shows it at once all the same.
    static let probeFailureLogAfterMs: Int64 = 2_000

    /// Logs a failing probe once per streak that lasts, and its recovery; such
    /// a streak is blind time, recorded in the ledger from its first failure.
    private func noteProbe(_ reading: Result<Reading, ProbeFailure>, monotonic: Int64, wall: Int64) {
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
                        blindID = try ledger.beginBlind(runID: runID, fromMs: since.wall, reason: "\(probe.name): \(failure.message)")
                    } catch { noteStorage(error) }
                }
            }
        case let .success(sample):
            locked = sample.locked
            if probeFailureLogged {
                log.write(LogEvent(.probeRecovered, "Probe \(probe.name) answers again", fields: [("PROBE", probe.name)]))
            } else if let since = probeFailingSince, monotonic - since.monotonic >= Self.probeFailureLogAfterMs {
                // One or two hung samples: the streak lasted, though no failed sample saw it last.
                recordShortStreak(fromMs: since.wall, toMs: wall, why: probeError ?? "failing")
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
    static let intermittentEveryMs: Int64 = 60_000
    private var intermittentBlind: (id: Int64, toMs: Int64)?

    private func recordShortStreak(fromMs: Int64, toMs: Int64, why: String) {
        guard let runID else { return }
        do throws(StoreError) {
            if let last = intermittentBlind, fromMs - last.toMs <= Self.intermittentEveryMs, fromMs >= last.toMs {
                try ledger.extendBlind(last.id, toMs: toMs)
                intermittentBlind = (last.id, toMs)
            } else {
                let id = try ledger.beginBlind(runID: runID, fromMs: fromMs, reason: "\(probe.name): \(why) (now and then)")
                try ledger.endBlind(id, toMs: toMs)
                intermittentBlind = (id, toMs)
            }
        } catch { noteStorage(error) }
    }

    /// Blind time of streaks too short for the line above is said at once
    /// once it adds up to `probeFailureLogAfterMs`, then at most every
    /// `intermittentEveryMs`, with what accumulated and how much was charged.
    private var unsaidBlind: (ms: Milliseconds, chargedMs: Milliseconds, failures: Int, app: String, why: String)?
    private var blindSaidAt: Int64?
    /// The running streak's failed samples, and the last one's why.
    private var streakFailures = (count: 0, why: "")

    private func noteIntermittentFailures(_ blind: BlindInterval?, failure: String?, streakWasLogged: Bool,
                                          monotonic: Int64) {
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
              blindSaidAt.map({ monotonic - $0 >= Self.intermittentEveryMs || monotonic < $0 }) ?? true else { return }
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

    private func endBlind(wall: Int64) {
        guard let id = blindID else { return }
        blindID = nil
        do throws(StoreError) { try ledger.endBlind(id, toMs: wall) } catch { noteStorage(error) }
    }

    /// An event from a part of blockerd beside the tick (the cover's media).
    public func logEvent(_ event: LogEvent) {
        log.write(event)
    }

    /// A line for the journal that is no event of its own (notifications unavailable…).
    public func logNotice(_ message: String) {
        log.write(LogEvent(priority: .notice, message))
    }

    /// Why blockerd is about to exit with a failure status.
    public func logError(_ message: String) {
        log.write(LogEvent(priority: .error, message))
    }

    func noteStorage(_ error: StoreError?) {
        if let error, storageError == nil {
            log.write(LogEvent(.storageError, "Cannot write the ledger: \(error)"))
        } else if error == nil, storageError != nil {
            log.write(LogEvent(priority: .info, "The ledger is writable again"))
        }
        storageError = error.map { "\($0)" }
    }

    // MARK: commands

    /// Re-reads the config and the time zone. A bad config is logged and the
    /// old one stays in force; so does the old zone when the new one cannot be read.
    @discardableResult
    public func reload(monotonic: Int64 = MonotonicClock.nowMs, wall: Int64 = WallClock.nowMs) -> Result<Void, ConfigError> {
        rereadTimeZone()
        let source = options.configSource(environment: environment)
        do throws(ConfigError) {
            let file = try Config.loadWithText(path: source.path)
            var versions = configVersions
            let (fresh, adoption): (Config, ConfigAdoption)
            do throws(StoreError) {
                (fresh, adoption) = try Self.adopt(text: file.text, fresh: file.config, running: config,
                                                   versions: &versions, ledger: ledger, wall: wall)
            } catch {
                throw ConfigError(file: source.path, message: "cannot record the new config in the ledger: \(error)")
            }
            configVersions = versions
            let wasSystemDefault = configFile.systemDefault
            configFile = source
            install(fresh)
            if source.systemDefault != wasSystemDefault {
                if source.systemDefault { logObservingOnly() } else {
                    log.write(LogEvent(priority: .notice, "Metering from your own config \(source.path)"))
                }
            }
            logAdoption(adoption)
            endConfigUnreadable(wall: wall)
            publish(wall: wall)
            if let folded = reloadLines.admit(at: monotonic) {
                let more = folded > 0 ? " (and \(folded) more reloads in the \(reloadLines.interval / 1000) s before)" : ""
                log.write(LogEvent(.reload, "Configuration reloaded from \(source.path)\(more)"))
            }
            return .success(())
        } catch {
            log.write(LogEvent(.configError, "Keeping the previous configuration: \(error)"))
            return .failure(error)
        }
    }

    /// The zone schedules and days are counted in, read again (the user may
    /// have moved: `timedatectl set-timezone`, then `blockerctl reload`).
    private func rereadTimeZone() {
        do {
            let fresh = try TimeZoneRules.chosen(config.daemon.timeZone, environment: environment)
            if fresh.identifier != meter.zone.identifier {
                log.write(LogEvent(priority: .info, "Time zone now \(fresh.identifier) (was \(meter.zone.identifier))"))
            }
            meter.zone = fresh
        } catch {
            log.write(LogEvent(priority: .warning,
                               "Keeping the time zone \(meter.zone.identifier): cannot read the new one: \(error)"))
        }
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
        return (earned, ledger.balance)
    }

    /// Credits `reps` of `exercise`; committed to disk before it returns.
    /// Beyond `[earn] max-per-day` or `min-gap` nothing is credited.
    /// `requestID`: the client's id for it (`earnedBefore(requestID:)`).
    public func earn(exercise: Exercise, reps: Int, requestID: String? = nil, wall: Int64 = WallClock.nowMs) throws(EarnFailure)
        -> (earned: Milliseconds, balance: Milliseconds) {
        let today = meter.zone.localDate(atMs: wall)
        let limits = config.earnLimits
        // An edit made since the last tick is seen before the limits are checked.
        checkLedgerIfChanged(wall: wall)
        let history: EarnLimits.History
        do { history = try earningHistory(day: today.description) } catch { throw .storage(error) }
        if limits != EarnLimits() {
            let (earning, overflow) = Int64(reps).multipliedReportingOverflow(by: exercise.perRep)
            if let refusal = limits.refusal(earning: overflow ? .max : earning, now: wall, history: history,
                                            nextDayMs: meter.zone.startOfDay(today.adding(days: 1))) {
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
            result = try ledger.earn(exercise: exercise.name, reps: reps, perRep: exercise.perRep, atMs: wall,
                                     day: today.description, requestID: requestID)
        } catch { throw .storage(error) }
        noteEarned(result.earned, day: today.description, before: history, wall: wall)
        anchorLedger(wall: wall)
        log.write(LogEvent(.earn, "Earned \(DurationText.format(result.earned)) for \(reps) \(exercise.name)",
                           fields: [("EXERCISE", exercise.name), ("REPS", "\(reps)"),
                                    ("EARNED_MS", "\(result.earned)"), ("BALANCE_MS", "\(result.balance)")]))
        announceBalance()
        redecide(wall: wall, afterEarning: true)
        return result
    }

    /// Blocks `target` (a group name or an app, already resolved) until
    /// `untilMs`, durably; a running block is only ever extended. Returns
    /// the block's end and re-decides the shield at once.
    public func block(target: String, untilMs: Int64, wall: Int64 = WallClock.nowMs) throws(StoreError) -> Int64 {
        let end = try ledger.setTimedBlock(target: target, untilMs: untilMs)
        log.write(LogEvent(priority: .info, "Timed block on \(target) until \(untilMs) (Unix ms), "
                           + "\(DurationText.format(max(end - wall, 0))) from now"))
        redecide(wall: wall)
        return end
    }

    /// Ends the timed block on `target`; false when none was running (nothing
    /// is written then). Schedules and daily limits are untouched: the shield
    /// is recomputed from whatever rules remain.
    public func unblock(target: String, wall: Int64 = WallClock.nowMs) throws(StoreError) -> Bool {
        let key = target.lowercased()
        guard ledger.timedBlocks(activeAtMs: wall).contains(where: { $0.target == key }) else { return false }
        _ = try ledger.removeTimedBlock(target: key)
        log.write(LogEvent(priority: .info, "Timed block on \(key) lifted"))
        redecide(wall: wall)
        return true
    }

    /// Charges the interval open since the last sample up to this instant
    /// (what `status` showed), flushes the ledger; never raises a shield
    /// (stopping must not block).
    public func shutdown(reason: String = "stopped", monotonic: Int64 = MonotonicClock.nowMs,
                         wall: Int64 = WallClock.nowMs) {
        ServiceManager.notify("STOPPING=1")
        // A failure streak still open stays unsettled, as `status` showed it.
        let last = meter.closeInterval(at: monotonic, wall: wall, balance: ledger.balance, failed: probeError != nil)
        uncovered?.chargedMs += last.uncovered
        endUncovered(wall: wall)
        probe.shutdown()
        launcher?.stop()
        endBlind(wall: wall)
        let record = TickRecord(debit: last.debit, spentDay: meter.zone.localDate(atMs: wall).description, usage: last.usage)
        do { try ledger.record(record) } catch { log.write(LogEvent(.storageError, "Cannot flush the ledger: \(error)")) }
        extendConfigUnreadable(wall: wall)
        if let runID {
            do { try ledger.endRun(runID, nowMs: wall, reason: reason) } catch {
                log.write(LogEvent(.storageError, "Cannot record the stop: \(error)"))
            }
        }
        anchorLedger(final: true, wall: wall)
        log.write(LogEvent(.stop, "blockerd stopping", fields: [("BALANCE_MS", "\(ledger.balance)")]))
        ledger.close()
    }

    // MARK: status

    /// One human line for `systemctl status` (sd_notify STATUS=).
    public var statusLine: String { state.statusLine }
}

extension Result where Success == Reading, Failure == ProbeFailure {
    /// Why the sample failed; nil when it answered.
    var failureMessage: String? {
        if case let .failure(failure) = self { failure.message } else { nil }
    }
}
