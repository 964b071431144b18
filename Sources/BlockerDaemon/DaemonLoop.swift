import BlockerBus
import BlockerConfig
import BlockerCore
import BlockerProbes
import BlockerStore
import BlockerSystem
import BlockerSystemd
import Glibc

/// Why the daemon could not start; each maps to an exit status systemd understands.
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

/// Drives a `Daemon` from one sd_event loop: a timer at `poll-interval`, the
/// probe's event fd, a wake-up at the instant the balance runs out or a rule
/// changes the answer, SIGTERM/SIGINT/SIGHUP, the session bus, and the probe's
/// logind/screen saver connections (a lock change ticks at once). WATCHDOG=1
/// follows only a completed tick.
public final class DaemonLoop {
    /// The exit status when the session bus went away: EX_UNAVAILABLE (69).
    /// Not 78, so `Restart=always` brings blockerd back.
    public static let busLostStatus: Int32 = 69
    public let daemon: Daemon
    public let loop: EventLoop
    /// The D-Bus API; nil when there is no session bus (the daemon still enforces).
    public private(set) var bus: DaemonEndpoint?
    private var pollTimer: EventTimer!
    private var wakeTimer: EventTimer!
    /// A tick on the next iteration, after the lock state changed or an
    /// earning or a block changed the ledger (from inside a bus dispatch).
    private var soonTimer: EventTimer!
    /// The probe's own question (KWin: does the script still run?), asked
    /// without a tick: only an answer that changes something ticks.
    private var checkTimer: EventTimer!
    private var probeSource: EventSource?
    /// The probe whose descriptor the loop watches. A reload opens a new
    /// probe, whose socket may get the old one's number and generation (and
    /// the old object's address): its serial tells them apart, since epoll
    /// dropped the old file with its close.
    private var watched: (probe: Int, fd: Int32?, generation: Int) = (-1, nil, 0)
    /// The `[sync]` folder's watch, and the link it belongs to (a reload opens a new one).
    private var syncSource: EventSource?
    private weak var watchedSync: SyncLink?
    /// The probe's session lock whose connections this loop processes.
    private weak var watchedSession: SessionLock?
    /// WATCHDOG=1 and STATUS=, as ticks complete.
    private var serviceNotes: ServiceNotes
    private var ignoredSignalsSaid: Set<Int32> = []
    /// Draws each poll's delay (`PollSchedule`): a switching loop cannot guess it.
    private var pollRandom = SystemRandomNumberGenerator()

    /// `server` has already taken the bus name; it joins this loop and
    /// answers from `daemon`.
    public init(daemon: Daemon, server: BlockerExport? = nil) throws(SystemdError) {
        self.daemon = daemon
        loop = try EventLoop()
        serviceNotes = ServiceNotes(watchdogUs: ServiceManager.watchdogInterval)
        pollTimer = try loop.timer { [unowned self] in self.tick() }
        wakeTimer = try loop.timer { [unowned self] in self.tick() }
        soonTimer = try loop.timer { [unowned self] in self.tick() }
        checkTimer = try loop.timer { [unowned self] in
            self.daemon.probe.check()
            self.armCheck()
        }
        try loop.onSignal(SIGTERM) { [unowned self] in self.loop.exit(code: 0) }
        try loop.onSignal(SIGINT) { [unowned self] in self.loop.exit(code: 0) }
        try loop.onSignal(SIGHUP) { [unowned self] in self.reload() }
        // Signals whose default would kill blockerd without its stopping line:
        // said once each, and otherwise ignored.
        for (signal, name) in [(SIGUSR1, "SIGUSR1"), (SIGUSR2, "SIGUSR2"), (SIGALRM, "SIGALRM")] {
            try loop.onSignal(signal) { [unowned self] in
                guard self.ignoredSignalsSaid.insert(signal).inserted else { return }
                self.daemon.logNotice("Ignoring \(name): SIGTERM stops blockerd, SIGHUP reloads its config")
            }
        }
        if let server {
            // An earning or a block re-decides the shield at once, for the
            // reply; the tick after it samples again and re-plans the timers
            // (asleep behind a shield, nothing would start charging the app
            // the earning uncovered, nor wake at the new zero instant).
            let service = DaemonEndpoint(daemon: daemon, export: server,
                                         reload: { [unowned self] in self.reload() },
                                         ledgerChanged: { [unowned self] in self.soonTimer.arm(afterMicroseconds: 0) })
            try server.attach(to: loop)
            try server.export(service)
            // Enforcing goes on without a bus, but nobody could reach us again
            // (a new bus is a new address): exit and let systemd start us on it.
            try server.onDisconnect { [unowned self] in
                self.daemon.logError("Lost the session bus; exiting (status \(Self.busLostStatus)) so that "
                    + "systemd starts blockerd again on the session's bus")
                self.loop.exit(code: Self.busLostStatus)
            }
            daemon.observer = service
            bus = service
            let notifications = server.notifications { [unowned daemon] why in
                daemon.logNotice(why)
            }
            daemon.notify = { notifications.send($0) }
        }
        watchSession()
    }

    /// Starts blockerd in the order its promises need: the bus name first (a
    /// second daemon leaves without touching the state lock or the ledger),
    /// then the config, the lock and the ledger, then the loop.
    /// `personLanguage`: what notifications and refusals are worded in (the
    /// journal and the ledger's notes stay English).
    public static func start(options: DaemonOptions, log: LogSink, environment: [String: String],
                             personLanguage: any TranslationCatalog = EnglishCatalog()) throws(StartFailure) -> DaemonLoop {
        var server: BlockerExport?
        do {
            server = try BlockerExport.claim(environment: environment)
            server?.callerLanguage = personLanguage
        } catch let failure {
            switch failure {
            case .nameTaken: throw .nameTaken(failure)
            case .noBus, .failed:
                // Enforcing matters more than being reachable: run, and say why nobody can talk to us.
                log.write(LogEvent(priority: .warning,
                                   "\(failure.description); blockerctl and the overlay cannot reach blockerd"))
            }
        }
        let daemon = try Daemon(options: options, log: log, environment: environment, anchors: JournalAnchorStore())
        daemon.personLanguage = personLanguage
        do { return try DaemonLoop(daemon: daemon, server: server) } catch { throw .system("\(error)") }
    }

    /// Ticks once, says READY=1, and runs until a stop signal; returns the exit status.
    public func run() -> Int32 {
        tick()
        ServiceManager.notify("READY=1\nSTATUS=\(daemon.statusLine)")
        // Started: the code that only starting needed need not stay resident.
        ResidentPages.releaseReadOnlyFileMappings()
        let code: Int32
        do { code = try loop.run() } catch {
            // EX_OSERR, with the reason: a non-zero exit never goes unexplained.
            daemon.logError("The event loop failed: \(error); exiting so that systemd restarts blockerd")
            code = 71
        }
        // The loop speaks the service manager's protocol; the daemon only stops.
        ServiceManager.notify("STOPPING=1")
        daemon.shutdown(reason: code == 0 ? "stopped"
                        : code == Self.busLostStatus ? "the session bus went away (exit 69)" : "the event loop failed (exit \(code))")
        bus?.export.flush()
        return code
    }

    /// SIGHUP and `Reload()`: a bad config is refused and the old one stays.
    @discardableResult
    public func reload() -> Result<Void, ConfigError> {
        ServiceManager.notify("RELOADING=1\nMONOTONIC_USEC=\(loop.now)")
        let result = daemon.reload()
        watchProbe()
        tick()
        ServiceManager.notify("READY=1\nSTATUS=\(daemon.statusLine)")
        return result
    }

    /// One tick, then the next one armed about a poll interval from now (at a
    /// random phase, see `PollSchedule`) when it is needed (see
    /// `needsPolling`); otherwise only for the watchdog.
    public func tick() {
        daemon.tick(monotonic: MonotonicClock.now, boottime: BoottimeClock.now, lock: daemon.session?.read())
        // A strict-mode change applies at its wall instant, as a rule would.
        let configAt = monotonic(wall: daemon.nextConfigApply)
        // A cover client's grace ends: if nothing is drawn by then, charging starts.
        // A pause out of front for its grace is left (recorded then, not at the next change).
        let pauseLeft = monotonic(wall: daemon.pauseLeaveDeadline)
        if let wakeAt = [daemon.lastTick?.wakeAt, configAt, daemon.coverDeadline, pauseLeft].compactMap({ $0 }).min() {
            // Sample again the moment the balance runs out or a rule starts or
            // ends (a schedule, a daily limit, a timed block), not up to a poll later.
            wakeTimer.arm(atMicroseconds: Self.microseconds(wakeAt))
        } else {
            wakeTimer.disarm()
        }
        watchProbe()
        watchSync()
        let polling = needsPolling
        if let notes = serviceNotes.afterTick(nowUs: loop.now, polling: polling, stateVersion: daemon.stateVersion,
                                              state: daemon.state) {
            ServiceManager.notify(notes)
        }
        armCheck()
        if polling {
            pollTimer.arm(atMicroseconds: loop.now + PollSchedule.nextDelayUs(pollInterval: daemon.config.daemon.pollInterval,
                                                                              using: &pollRandom))
        } else if let at = [nextCommitUs, nextPingUs, nextRunTouchUs].compactMap({ $0 }).min() {
            pollTimer.arm(atMicroseconds: at)
        } else {
            pollTimer.disarm()
        }
    }

    /// The probe's own check comes on time, whether or not the loop polls.
    private func armCheck() {
        if let at = daemon.probe.nextCheck {
            checkTimer.arm(atMicroseconds: Self.microseconds(at))
        } else {
            checkTimer.disarm()
        }
    }

    /// The instant what is being spent must be committed (the bound on what a
    /// kill -9 can lose): with an event-driven probe, the heartbeat while charging.
    private var nextCommitUs: UInt64? {
        daemon.nextCommit.map(Self.microseconds)
    }

    /// The run's row says it is alive at least once a minute (the bound on a
    /// kill -9 gap), watchdog or not.
    private var nextRunTouchUs: UInt64? {
        monotonic(wall: daemon.nextRunTouch).map(Self.microseconds)
    }

    /// A wall instant as the monotonic instant it falls at, from now.
    private func monotonic(wall: WallInstant?) -> MonotonicInstant? {
        wall.map { MonotonicClock.now + max($0 - WallClock.now, 0) }
    }

    /// An instant as sd-event's timers take it: CLOCK_MONOTONIC µs.
    private static func microseconds(_ instant: MonotonicInstant) -> UInt64 {
        UInt64(max(instant.ms, 0)) * 1000
    }

    private var nextPingUs: UInt64? { serviceNotes.nextPingUs }

    /// Whether the next sample must come from the poll timer. An event-driven
    /// probe wakes us on every change, and lock changes come as signals, so
    /// the loop sleeps until an event, a call, a rule's instant, a warning's,
    /// the next commit of what is being spent, or the watchdog. Idle time, a
    /// failing probe or ledger, the last seconds' countdown and a screen lock
    /// being checked (input is evidence against it) have no events: they poll.
    private var needsPolling: Bool {
        !daemon.probePushesChanges || daemon.probeError != nil || daemon.storageError != nil
            || daemon.config.daemon.idleAfter != nil || daemon.lockCheck.isChecking
            || daemon.meter.isCountingDown(balance: daemon.spendable)
    }

    /// Event-driven probes: a focus change is handled at once (or when its
    /// burst of events is over), not on the next poll.
    ///
    /// A burst is waited out in place, not with a timer: the rest of it
    /// arrives in the socket meanwhile, waking nobody, and the loop runs one
    /// iteration per focus change instead of two, without the timer's four
    /// syscalls (disable, arm, enable, re-arm). A call on the bus waits
    /// those 2 ms at most.
    private func watchProbe() {
        watchSession()
        let probe = daemon.probesOpened
        let fd = daemon.probe.eventDescriptor, generation = daemon.probe.eventGeneration
        guard probe != watched.probe || fd != watched.fd || generation != watched.generation else { return }
        if let probeSource { loop.remove(probeSource) }
        probeSource = nil
        watched = (probe, fd, generation)
        if let fd {
            probeSource = try? loop.onReadable(fd) { [unowned self] in
                let burstUs = self.daemon.probe.eventBurstUs
                if burstUs > 0 { usleep(UInt32(clamping: burstUs)) }
                self.readProbeEvents()
            }
        }
    }

    /// Another machine's log changed in the `[sync]` folder: a tick when the
    /// balance, the day's use or the blocks did.
    private func watchSync() {
        guard daemon.sync !== watchedSync || (daemon.sync == nil && syncSource != nil) else { return }
        if let syncSource { loop.remove(syncSource) }
        syncSource = nil
        watchedSync = daemon.sync
        guard let fd = daemon.sync?.reader.eventDescriptor else { return }
        syncSource = try? loop.onReadable(fd) { [unowned self] in
            if self.daemon.readSync() { self.tick() }
        }
    }

    /// A tick when what arrived may change the answer (or the connection went).
    private func readProbeEvents() {
        if daemon.probe.drainEventsMayHaveChanged() { tick() }
    }

    /// A display probe's logind and screen saver connections join this loop,
    /// so their signals keep its answers current; a lock change ticks at once
    /// (from a timer: the change arrives inside the bus's own dispatch).
    private func watchSession() {
        guard let session = daemon.session, session !== watchedSession else { return }
        watchedSession = session
        // On failure the session reads its buses itself on each sample, as outside a loop.
        try? session.attach(to: loop)
        session.onChange = { [weak self] in self?.soonTimer.arm(afterMicroseconds: 0) }
    }
}
