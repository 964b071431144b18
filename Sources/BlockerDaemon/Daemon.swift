import Glibc
import BlockerSystem
import BlockerConfig
import BlockerCore
import BlockerProbes
import BlockerStore

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
    public internal(set) var config: Config
    /// The file `config` came from, and whether it is the system's default
    /// (the user has none of their own): then the meter runs it observing only.
    public internal(set) var configFile: (path: String, systemDefault: Bool)
    public internal(set) var meter: Meter
    public internal(set) var probe: ForegroundProbe {
        didSet { probesOpened += 1 }
    }
    /// How many probes a reload has put in place of the first: the loop
    /// watches a new probe's descriptor even when it got the old one's number.
    public internal(set) var probesOpened = 0
    /// The session's screen lock beside a display probe (logind, the screen
    /// saver); nil for the command probe. The loop follows its signals and
    /// gives its state to each tick.
    public internal(set) var session: SessionLock?
    public let ledger: Ledger
    public weak var observer: DaemonObserver?
    let lock: StateLock
    let log: LogSink
    let environment: [String: String]
    /// Runs the command probe's program, so a tick does not fork (see ProbeLauncher).
    let launcher: ProbeLauncher?

    /// The last tick's result (nil before the first).
    public internal(set) var lastTick: TickOutcome?
    /// What the rest of blockerd reads of the daemon (see DaemonSnapshot.swift).
    public internal(set) var state = DaemonSnapshot.none
    /// Bumped each time `state` changes: a reader redoes its work only then.
    public internal(set) var stateVersion = 0
    /// Today's committed totals as last read from the ledger (see `todayTotals`).
    var todayRead: TodayRead?
    /// Spending is written once this much of it waits (and at a shield or
    /// warning, an earning and at stop): a kill -9 may lose up to this much
    /// *debit*, in the user's favour, and never an earning, which is
    /// committed on its own.
    public static let commitEveryMs: Milliseconds = .seconds(10)
    /// With a probe that pushes its changes, a write due within this long (a
    /// commit, the run's sign of life) is made by a tick that runs anyway:
    /// while focus moves, a tick every couple of seconds, the heartbeat
    /// costs no wake-up of its own. A polled probe ticks on time anyway.
    static let coalesceMs: Milliseconds = .seconds(2)
    var coalescing: Milliseconds { probePushesChanges ? Self.coalesceMs : 0 }
    /// The probe wakes the loop on every change (an event descriptor): the
    /// loop does not poll it, so ticks come only with its events.
    var probePushesChanges: Bool { probe.eventDescriptor != nil }
    /// A tick looks for another connection's commit (a hand edit) at most
    /// this often; an earning and every write of blocker's own look at
    /// once. A focus change does not touch SQLite (its read lock was a
    /// tenth of the CPU of one).
    static let ledgerCheckEveryMs: Milliseconds = .seconds(10)
    /// When a tick last looked (`ledgerCheckEveryMs`).
    var ledgerCheckedAt: MonotonicInstant?
    /// What the last BalanceChanged said (and whether spending went on then).
    var announced = (balance: Milliseconds(0), spending: false)
    /// When what is being spent must be committed, so a kill -9 loses at most
    /// `commitEveryMs` of it: a daemon that samples only on events ticks then
    /// (see `planCommit`). nil: nothing grows that must be written.
    public internal(set) var nextCommit: MonotonicInstant?
    /// The shield as last shown (changes are logged and signalled).
    public internal(set) var shield: Shield?
    /// The current probe failure streak's message, nil while the probe answers.
    public internal(set) var probeError: String?
    /// When the current streak of failed samples began, and whether it made the journal.
    var probeFailingSince: (monotonic: MonotonicInstant, wall: WallInstant)?
    var probeFailureLogged = false
    /// The ledger's row for the blind stretch a logged streak is (`Ledger.beginBlind`).
    var blindID: Int64?
    /// The current storage failure, nil while the ledger writes.
    public internal(set) var storageError: String?
    /// Whether the last answering probe said the screen is locked.
    public internal(set) var locked = false
    /// Where desktop notifications go (the session bus); nil: none are sent.
    public var notify: ((NotificationRequest) -> Void)?
    /// The language notifications are worded in (the session's); English until set.
    public var personLanguage: any TranslationCatalog = EnglishCatalog()
    var notificationPlan: NotificationPlan
    /// A reload storm logs one line per 10 s, not one per reload.
    var reloadLines = LogRateLimit<Monotonic>(interval: .seconds(10))

    /// When each graphical session of a user began, from logind; a parameter
    /// so in-process tests need no system bus.
    public typealias SessionStarts = (_ uid: UInt32, _ environment: [String: String])
        -> Result<[WallInstant], GraphicalSessions.Unavailable>

    /// `anchors`: where the ledger's anchors go and are read back (the
    /// journal in blockerd; nil: none, as in tests that do not ask for them).
    public init(options: DaemonOptions, log: LogSink, environment: [String: String],
                wall: WallInstant = WallClock.now, monotonic: MonotonicInstant = MonotonicClock.now,
                sessionStarts: SessionStarts = GraphicalSessions.starts,
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
            configUnreadable = ConfigUnreadable(error: error.description, since: wall)
        }
        configVersions = versions
        let zone: TimeZoneRules
        do { zone = try TimeZoneRules.chosen(config.daemon.timeZone, environment: environment) } catch {
            ledger.close()
            throw .timeZone(error)
        }
        let previousRun: RunRecord?
        do { (runID, previousRun) = try ledger.beginRun(pid: getpid(), now: wall) } catch { throw .storage(error) }
        // A pause the last run left unanswered is over: the next appearance is a new open.
        do { _ = try ledger.interruptPausing() } catch { throw .storage(error) }
        lastRunTouch = wall
        meter = Meter(config: Self.metering(config, systemDefault: configFile.systemDefault), zone: zone)
        covers = CoverSupervisor(startedAt: monotonic)
        notificationPlan = NotificationPlan(thresholds: config.warnBefore)
        launcher = options.probeLauncher.map(ProbeLauncher.init(executable:))
        (probe, session) = Self.selectProbe(config: config, override: options.probe, environment: environment,
                                            launcher: launcher, log: log)
        logAdoption(adoption)
        logObservingOnly()
        let unguardedSince = noteUnguarded(previous: previousRun, now: wall, sessionStarts: sessionStarts)
        if let gap = Self.gapEvent(previous: previousRun, now: wall, zone: meter.zone, unguardedSince: unguardedSince) {
            log.write(gap)
        }
        recordStartFindings(start.found, anchor: start.anchor, wall: wall)
        noteLedgerEdits()
        anchorLedger(wall: wall)
        noteConfigUnreadable(wall: wall)
        noteEnvironment(wall: wall)
        openSync(wall: wall)
        publish(wall: wall)
    }

    /// Replaces the probe the config chose (tests: a probe no config names).
    func use(probe: ForegroundProbe) {
        self.probe.shutdown()
        self.probe = probe
        session = nil
        overlayFilter = OverlayFilter()
        publish(wall: WallClock.now)
    }

    /// Who draws the cover, and whether one is drawn (see CoverWatch.swift).
    public internal(set) var covers: CoverSupervisor
    /// The stretch of time a shield has had no cover drawn, while it lasts.
    var uncovered: UncoveredStretch?
    /// Keeps the window beneath blocker's cover in front (the cover known by its process).
    var overlayFilter = OverlayFilter()
    /// What each browser's extension last said of its active tab, by the
    /// browser's pid (BrowserTabs.swift).
    var browserTabs: [Int32: BrowserReport] = [:]
    /// Browsers (their app names) seen in front without a report while the config names sites.
    var browsersWithoutExtension: Set<String> = []

    /// Hand edits the ledger found so far, as last said in the journal.
    var announcedLedgerEdits = 0
    /// Where the ledger's anchors go (LedgerAnchors.swift); nil: nowhere.
    let anchors: LedgerAnchorStore?
    /// The first earning not following from the one before, as last checked.
    var knownBrokenEarning: Int64?
    /// When the last anchor went out, and the ledger's commit count then.
    var lastAnchor: (at: WallInstant, commits: Int) = (WallInstant(ms: 0), -1)
    /// The ledger's opens and passes of a day, as last read (Daemon+Opens.swift); nil: read again.
    var cachedOpenBook: OpenBook?
    /// The groups (lowercased) in front at the last tick that noted opens: one in front then and now continues its open.
    var previousOpensFront: Set<String> = []
    /// A "Not now" the probe could not carry out: its pause stays until the window leaves the front.
    var notNowWaiting: (id: Int64, reason: String?)?
    /// A window "Not now" hid, until when the probe may still say it is in
    /// front (the window manager moves the focus a moment later): no new open.
    var hiddenByNotNow: (window: Window, until: WallInstant)?
    /// Pauses whose group went out of front, and since when: left only once
    /// another window has held the front for `leaveGrace` (Daemon+Opens.swift).
    var pauseAwaySince: [Int64: WallInstant] = [:]
    /// `[sync]`: this device's log and the others' (Daemon+Sync.swift); nil: no
    /// [sync], or its folder cannot be used (`syncProblem` says why).
    var sync: SyncLink?
    var syncProblem: String?
    /// Refused records already said in the journal (file and line), so a bad line is said once.
    var syncRefusalsSaid: Set<String> = []
    /// What blockerd itself knows was earned on `day` (see `earningHistory`).
    var earnedFloor: (day: CivilDate, history: EarnLimits.History)?

    /// Says in the journal, once each, that the ledger was edited outside
    /// blocker: what the seal found, or `found` (an anchor, the earnings chain).
    func noteLedgerEdits(_ found: [String] = []) {
        guard ledger.editsFound > announcedLedgerEdits || !found.isEmpty else { return }
        announcedLedgerEdits = ledger.editsFound
        let what = found.isEmpty ? " since its last write" : ": " + found.joined(separator: "; ")
        log.write(LogEvent(.ledgerEdited, "The ledger \(ledger.path) was edited outside blocker\(what); "
                           + "noted in its ledger_edits table (blockerctl doctor shows it), running on",
                           fields: [("LEDGER", ledger.path), ("FOUND", found.joined(separator: "\n"))]))
        let now = WallClock.now
        keep(IntegrityNote(kind: .ledgerEdited, from: now, to: now, text: "the ledger was edited outside blocker\(what)"))
    }

    /// This run's row in the ledger (`runs`), and when it last noted it was alive.
    var runID: Int64?
    var lastRunTouch = WallInstant(ms: 0)

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
    var stallLines = LogRateLimit<Wall>(interval: .minutes(1))


    // MARK: probe failure streaks (see Daemon+Manager.swift)

    /// The row of `blind` that short streaks less than `intermittentEveryMs` apart extend.
    var intermittentBlind: (id: Int64, to: WallInstant)?
    /// Blind time of streaks too short for their own line, said once it adds
    /// up to `probeFailureLogAfterMs`, then at most every `intermittentEveryMs`.
    var unsaidBlind: (ms: Milliseconds, chargedMs: Milliseconds, failures: Int, app: String, why: String)?
    var blindSaidAt: MonotonicInstant?
    /// The running streak's failed samples, and the last one's why.
    var streakFailures = (count: 0, why: "")

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

    // MARK: status

    /// One human line for `systemctl status` (sd_notify STATUS=).
    public var statusLine: String { state.statusLine }
}
