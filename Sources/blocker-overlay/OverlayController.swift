import BlockerBus
import BlockerCore
import BlockerSystem
import BlockerTimeZone
import Glibc

/// Follows blockerd on the session bus and keeps one cover per monitor in
/// step with `OverlayModel`: shown over an active shield, gone within the
/// signal's delivery when it lifts, re-synced from `Status` after a restart.
/// Everything it shows comes from blockerd (the shield with its group, the
/// exercises); only the time zone is read here.
final class OverlayController {
    private let client: BlockerClient
    private let display: Display
    private let environment: [String: String]
    private let log: OverlayLog

    private var model = OverlayModel()
    private var monitors = MonitorCovers<Monitor>()
    private var covers: [Monitor: (window: CoverWindow, card: CoverCard)] = [:]
    private var formMonitor: Monitor?
    private var subscriptions: [BlockerSubscription] = []
    private var zone: TimeZoneRules = .utc
    private var exercises: [Exercise] = []
    private var selectedExercise: String?
    /// The request id of an earning not answered yet (a retry keeps it).
    private var retry = EarnRetry()
    /// When the shown cover was asked for (CLOCK_MONOTONIC ns), to log how long it took to appear.
    private var showRequestedAt: Int64?
    /// What blockerd was last told (`CoverShown`): it supervises the cover,
    /// and charges the app under a shield while none is drawn.
    private var toldDrawn: Bool?

    // The bus connection on GLib's loop.
    private var readWatch: LoopSource?
    private var writeWatch: LoopSource?
    private var deadlineTimer: LoopSource?
    /// Redraws the pause's countdown when its number changes; only while one runs.
    private var countdownTimer: LoopSource?

    init(client: BlockerClient, display: Display, environment: [String: String], log: OverlayLog) {
        self.client = client
        self.display = display
        self.environment = environment
        self.log = log
        // A call out while the UI waits: short, so a stuck daemon freezes nothing for long.
        client.callTimeoutMicroseconds = 3_000_000
    }

    /// Subscribes, builds the covers, and syncs from `Status` when blockerd runs.
    func start() throws(BusFailure) {
        subscriptions = [
            try client.onShieldChanged { [unowned self] shield in
                self.render(self.model.shieldChanged(shield))
            },
            try client.onBalanceChanged { [unowned self] balance in
                self.render(self.model.balanceChanged(balance))
            },
            try client.onDaemonRunningChanged { [unowned self] running in
                if running {
                    self.log.info("blockerd is on the bus: re-syncing from Status")
                    self.syncFromStatus()
                } else {
                    self.log.info("blockerd left the bus: the cover goes until it is back")
                    self.toldDrawn = false   // nobody to tell; said again to the next blockerd
                    self.render(self.model.daemonStopped())
                }
            },
            try client.onShellCoverChanged { [unowned self] owner in
                self.shellCoverChanged(owner)
            },
        ]
        display.onMonitorsChanged { [unowned self] in self.reconcileMonitors() }
        reconcileMonitors()
        readWatch = LoopSource.watch(fd: client.fileDescriptor) { [unowned self] in
            self.pump()
            return true
        }
        if let owner = try client.shellCoverOwner() { shellCoverChanged(owner) }
        if try client.isDaemonRunning() { syncFromStatus() }
        pump()
    }

    /// GNOME Shell's blocker extension covers (a GTK window can be switched
    /// away from there): ours stays hidden while the shell owns the name. Any
    /// other owner (a script taking the name first) is ignored: we cover.
    private func shellCoverChanged(_ owner: CoverClaim?) {
        var present = false
        switch owner?.program {
        case nil:
            log.info("\(BusNames.shellCover) has no owner: covering")
        case let .shell(name)?:
            present = true
            log.info("\(BusNames.shellCover) is owned by \(name) (blocker's shell extension draws the cover): "
                + "staying hidden while it does")
        case .overlay?, .unexpected?:
            log.warning("\(BusNames.shellCover) is owned by \(owner!), which is no desktop shell: ignored, covering")
        }
        render(model.shellCoverChanged(present))
    }

    /// Tells blockerd whether our cover is on screen, without waiting (the
    /// call goes out before any later one, so blockerd knows our process
    /// before a `Status` reply makes us show). Said again after blockerd restarts.
    private func tellDaemon(drawn: Bool, force: Bool = false) {
        guard force || toldDrawn != drawn else { return }
        toldDrawn = drawn
        client.callAsync(BlockerInterface.coverShown, (drawn, "")) { [weak self] result in
            if case let .failure(error) = result {
                self?.log.warning("blockerd did not take CoverShown(\(drawn)): \(error)")
            }
        }
        schedulePump()
    }

    // MARK: blockerd

    /// At start and when blockerd (re)appears: the shield and the exercises as it has them now.
    private func syncFromStatus() {
        tellDaemon(drawn: false, force: true)
        do {
            let status = try client.status()
            setExercises(status.exercises)
            render(model.shieldChanged(status.shield))
        } catch {
            log.warning("cannot read blockerd's Status: \(error)")
        }
        schedulePump()
    }

    // MARK: covers

    private func render(_ change: OverlayModel.Change) {
        switch change {
        case .none:
            return
        case .hide:
            for cover in covers.values { cover.window.hide() }
            stopCountdown()
            showRequestedAt = nil
            log.info("hidden")
            tellDaemon(drawn: false)
        case .show:
            showRequestedAt = MonotonicClock.nowNs
            refreshExercises()
            zone = (try? TimeZoneRules.system(environment: environment)) ?? .utc
            fill()
            // Reset after showing: a window shown with no focused widget focuses its first one.
            for cover in covers.values {
                cover.window.show()
                cover.card.reset()
            }
        case .update:
            fill()
        }
    }

    /// Writes the model's card into every cover, and times the countdown's next number.
    private func fill() {
        let now = WallClock.now
        stopCountdown()
        guard let card = model.card(now: now, zone: zone) else { return }
        for (monitor, cover) in covers {
            cover.card.show(card, withForm: monitor == formMonitor)
        }
        guard let wait = model.nextTick(now: now) else { return }
        countdownTimer = LoopSource.timer(milliseconds: UInt32(clamping: wait.ms)) { [unowned self] in
            self.countdownTimer = nil
            self.fill()
            return false
        }
    }

    private func stopCountdown() {
        countdownTimer?.cancel()
        countdownTimer = nil
    }

    private func reconcileMonitors() {
        let change = monitors.reconcile(display.monitors)
        for monitor in change.removed { covers[monitor] = nil }
        for monitor in change.added {
            let card = CoverCard()
            let window = CoverWindow(display: display, monitor: monitor, content: card.root)
            card.onLog = { [unowned self, unowned card] in self.logReps(from: card) }
            card.onEdit = { [unowned self, unowned card] in self.updatePreview(card) }
            card.pause.onAnswer = { [unowned self, unowned card] open in self.answerPause(open: open, from: card) }
            card.pause.onReasonEdited = { [unowned card] in Self.fitReason(card.pause) }
            card.pass.onUse = { [unowned self, unowned card] in self.usePass(from: card) }
            window.onFirstFrame = { [unowned self] in self.firstFrame(on: monitor) }
            covers[monitor] = (window, card)
            card.setExercises(exerciseItems, keeping: selectedExercise)
        }
        formMonitor = monitors.formMonitor(primary: display.primaryMonitor)
        for (monitor, cover) in covers { cover.window.setTakesKeyboard(monitor == formMonitor) }
        if !change.added.isEmpty || !change.removed.isEmpty {
            log.info("covering \(monitors.monitors.count) monitor(s) on \(display.kind): "
                + monitors.monitors.map(\.description).joined(separator: ", "))
        }
        guard model.isShown else { return }
        fill()
        for monitor in change.added {
            covers[monitor]?.window.show()
            covers[monitor]?.card.reset()
        }
    }

    private func firstFrame(on monitor: Monitor) {
        if model.isShown { tellDaemon(drawn: true) }
        guard monitor == formMonitor || formMonitor == nil, let started = showRequestedAt, let shield = model.shield else {
            return
        }
        showRequestedAt = nil
        let ms = Double(MonotonicClock.nowNs - started) / 1_000_000
        log.info("shown over \(shield.app) (\(shield.reason?.rawValue ?? "unknown reason")) \(Int(ms.rounded())) ms after the signal")
        // The words on the card, in the session's language: what a test reads back (there is no screen reader here).
        if let card = model.card(now: WallClock.now, zone: zone) { log.info("says: \(card.headline) | \(card.reason)") }
    }

    // MARK: the form

    private var exerciseItems: [(id: String, label: String)] {
        exercises.map { (id: $0.name, label: RepsInput.label($0)) }
    }

    /// `[earn]` as blockerd has it now (a reload may have changed it since the
    /// last cover), asked without waiting: the cover is up meanwhile with the
    /// exercises it had.
    private func refreshExercises() {
        client.statusAsync { [weak self] result in
            guard let self else { return }
            switch result {
            case let .success(status): self.setExercises(status.exercises)
            case let .failure(error): self.log.warning("cannot refresh the exercises from blockerd: \(error)")
            }
        }
        schedulePump()
    }

    private func setExercises(_ fresh: [Exercise]) {
        guard fresh != exercises else { return }
        exercises = fresh
        log.info("exercises from blockerd: "
            + (fresh.isEmpty ? "none" : fresh.map { "\($0.name) \(DurationText.format($0.perRep))" }.joined(separator: ", ")))
        for cover in covers.values { cover.card.setExercises(exerciseItems, keeping: selectedExercise) }
    }

    private func chosenExercise(_ card: CoverCard) -> Exercise? {
        guard let id = card.exercises.selectedID ?? exercises.first?.name else { return nil }
        return exercises.first { $0.name == id }
    }

    private func updatePreview(_ card: CoverCard) {
        selectedExercise = card.exercises.selectedID ?? selectedExercise
        card.setPreview(RepsInput.preview(card.reps.text, exercise: chosenExercise(card), allowed: BlockerLimits.reps))
    }

    private func logReps(from card: CoverCard) {
        let reps: UInt32
        switch RepsInput.parse(card.reps.text, allowed: BlockerLimits.reps) {
        case let .success(count):
            reps = count
        case let .failure(problem):
            card.setMessage(problem.description)
            card.selectReps()
            return
        }
        let exercise = chosenExercise(card)?.name ?? ""
        card.setBusy(true)
        defer { schedulePump() }
        let requestID = retry.id(for: EarnRequest(exercise: exercise, reps: reps), new: EarnRequestID.make)
        do {
            let result = try client.earnOnce(requestID: requestID, exercise: exercise, reps: reps)
            retry.answered()
            log.info("logged \(reps) \(exercise.isEmpty ? "reps" : exercise): earned \(result.earnedMs) ms")
            card.setBusy(false)
            card.setMessage(LogExercise.earned(earnedMs: result.earnedMs, balanceMs: result.balanceMs), tone: .success)
        } catch {
            // A timeout may have been credited: the same reps again keep the request id.
            if case .refused = error { retry.answered() }
            card.setBusy(false)
            card.setMessage(error.description)
            card.selectReps()
        }
    }

    // MARK: the pause and the pass

    /// "Not now" or "Open" (with the "why now?" line when asked). On success
    /// the buttons stay off: blockerd's ShieldChanged takes the pause away.
    private func answerPause(open: Bool, from card: CoverCard) {
        guard let pause = model.card(now: WallClock.now, zone: zone)?.pause else { return }
        let reason = pause.asksReason ? PauseReasonInput.fitted(card.pause.reason, limitBytes: BlockerLimits.reasonBytes) : ""
        card.pause.setBusy(true)
        defer { schedulePump() }
        do {
            try client.answerPause(group: pause.group, open: open, reason: reason)
            log.info("pause of \(pause.group) answered: \(open ? "open" : "not now")")
        } catch {
            card.pause.setBusy(false)
            card.pause.setMessage(error.description)
        }
    }

    /// The "why now?" line never holds more than blockerd records (a paste may bring more).
    private static func fitReason(_ view: PauseView) {
        func fitted() -> String? {
            let fitted = PauseReasonInput.fitted(view.reason, limitBytes: BlockerLimits.reasonBytes)
            return fitted == view.reason ? nil : fitted
        }
        guard fitted() != nil else { return }
        // Not from inside the entry's own "changed": on the next turn of the loop.
        _ = LoopSource.timer(milliseconds: 0) {
            if let text = fitted() { view.reason = text }
            return false
        }
    }

    /// The pass's button: blockerd's answer under it, the time it runs until or why not.
    private func usePass(from card: CoverCard) {
        guard let offer = model.card(now: WallClock.now, zone: zone)?.pass else { return }
        card.pass.setBusy(true)
        defer { schedulePump() }
        do {
            let until = try client.usePass(group: offer.group)
            log.info("pass used for \(offer.group) until \(until)")
            card.pass.setMessage(PassText.used(until: until, now: WallClock.now, zone: zone), tone: .success)
        } catch {
            card.pass.setBusy(false)
            card.pass.setMessage(error.description, tone: .error)
        }
    }

    // MARK: the bus on GLib's loop

    /// Runs what arrived, then re-arms for what sd-bus wants next (output to
    /// flush, a timeout). A lost connection ends the program: systemd restarts it.
    private func pump() {
        do {
            try client.dispatchPending()
        } catch {
            log.error("\(error); exiting so systemd restarts the overlay")
            Gtk.quit()
            exitStatus = 1
            return
        }
        rearm()
    }

    /// A blocking call (Status, Earn) may have read signals into sd-bus's
    /// queue with nothing left on the fd: process them from the loop soon.
    private func schedulePump() {
        deadlineTimer?.cancel()
        deadlineTimer = LoopSource.timer(milliseconds: 0) { [unowned self] in
            self.deadlineTimer = nil
            self.pump()
            return false
        }
    }

    private func rearm() {
        if client.pollEvents & Int16(POLLOUT) != 0 {
            if writeWatch?.isActive != true {
                writeWatch = LoopSource.watch(fd: client.fileDescriptor, forWriting: true) { [unowned self] in
                    self.writeWatch = nil
                    self.pump()
                    return false
                }
            }
        }
        deadlineTimer?.cancel()
        deadlineTimer = nil
        if let deadline = client.deadlineMicroseconds {
            let now = UInt64(MonotonicClock.nowUs)
            let wait = deadline > now ? min((deadline - now + 999) / 1000, 60_000) : 0
            deadlineTimer = LoopSource.timer(milliseconds: UInt32(wait)) { [unowned self] in
                self.deadlineTimer = nil
                self.pump()
                return false
            }
        }
    }

    /// What `main` exits with after the loop ends.
    private(set) var exitStatus: Int32 = 0
}

/// Lines on stderr (the journal under systemd), with sd-daemon priority prefixes.
struct OverlayLog {
    func info(_ message: String) { write(6, message) }
    func warning(_ message: String) { write(4, message) }
    func error(_ message: String) { write(3, message) }

    private func write(_ priority: Int, _ message: String) {
        var line = Array("<\(priority)>\(OverlayIdentity.name): \(message)\n".utf8)
        _ = Glibc.write(2, &line, line.count)
    }
}
