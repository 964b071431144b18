import BlockerSystem
import BlockerBus
import BlockerCore
import BlockerStore
import BlockerMedia
import BlockerSystemd

/// blockerd's side of the D-Bus API: answers the calls `BlockerExport`
/// passes on from the daemon's state and turns the daemon's events into
/// signals. The export has checked the caller's uid and the declared bounds
/// already; what needs the config (exercise names, block targets) is resolved here.
public final class DaemonEndpoint: BlockerMethods, DaemonObserver {
    public let export: BlockerExport
    private let daemon: Daemon
    private let reloadConfig: () -> Result<Void, ConfigError>
    /// After an earning or a block: the loop samples and plans its timers again.
    private let ledgerChanged: () -> Void
    /// The app the shield covered last, so a shield that went down can name it.
    private var coveredApp = ""
    private lazy var media = CoverMediaGuard(
        players: MediaPlayers(connection: export.connection),
        settings: { [unowned self] in self.daemon.config.cover },
        log: { [unowned self] in self.daemon.logEvent($0) })

    /// Each checked blocker-overlay's connection, watched until it closes.
    private var coverClients: [String: BusSubscription] = [:]
    /// Each checked native messaging host's connection, watched until it closes.
    private var browserHosts: [String: BusSubscription] = [:]
    private var shellCoverWatch: BusSubscription?
    /// Callers refused as the cover, said once each.
    private var refusedCallers: Set<String> = []
    /// When blockerd last asked the user manager for blocker-overlay, and what failed then.
    private var overlayStart: (at: MonotonicInstant, failure: String?)?

    init(daemon: Daemon, export: BlockerExport, reload: @escaping () -> Result<Void, ConfigError>,
         ledgerChanged: @escaping () -> Void) {
        self.daemon = daemon
        self.export = export
        self.reloadConfig = reload
        self.ledgerChanged = ledgerChanged
        watchShellCover()
    }

    // MARK: methods

    /// From the daemon's published state alone, as of now: the balance less
    /// what the interval open since the last sample has spent.
    public func status() throws(MethodError) -> StatusReport {
        let state = daemon.state
        let monotonic = MonotonicClock.now
        let balance = state.balance(at: monotonic)
        let foreground = state.foreground.map {
            StatusReport.Foreground(app: $0.app, title: $0.title, pid: $0.pid, groups: state.decision.groups, tab: $0.tab)
        }
        var report = StatusReport(balanceMs: balance, metered: state.decision.metered, locked: state.locked,
                                  foreground: foreground, shield: shieldState(state.shield, balance: balance),
                                  todayUsedMs: state.usedToday(at: monotonic), todayEarnedMs: state.today.earnedMs,
                                  probeName: state.probe.name, probeOK: state.probe.error == nil,
                                  probeError: state.probe.error, exercises: state.exercises,
                                  spending: state.isSpending && balance > 0)
        report.strictDelayMs = state.strict.delayMs
        report.systemConfig = state.systemConfig
        let pending = state.pendingChanges(at: WallClock.now)
        report.pendingChanges = UInt32(clamping: pending.count)
        report.pendingNext = pending.first?.applyAt
        report.configProblem = state.strict.configProblem
        report.browsersWithoutExtension = state.browsersWithoutExtension
        report.sync = state.sync
        return report
    }

    public func earn(exercise: String, reps: UInt32) throws(MethodError) -> (earnedMs: Milliseconds, balanceMs: Milliseconds) {
        try earn(exercise: exercise, reps: reps, requestID: nil)
    }

    public func earnOnce(requestID: String, exercise: String, reps: UInt32) throws(MethodError) -> (earnedMs: Milliseconds, balanceMs: Milliseconds) {
        try earn(exercise: exercise, reps: reps, requestID: requestID)
    }

    private func earn(exercise: String, reps: UInt32, requestID: String?) throws(MethodError) -> (earnedMs: Milliseconds, balanceMs: Milliseconds) {
        // A retry is answered before anything else is looked at (a reload may have renamed the exercise since).
        if let requestID {
            let first: (earned: Milliseconds, balance: Milliseconds)?
            do { first = try daemon.earnedBefore(requestID: requestID) } catch { throw Self.methodError(error) }
            if let first { return (first.earned, first.balance) }
        }
        let chosen = try Self.resolveExercise(exercise, config: daemon.config, configPath: daemon.configFile.path)
        do {
            let result = try daemon.earn(exercise: chosen, reps: Int(reps), requestID: requestID)
            ledgerChanged()
            return (result.earned, result.balance)
        } catch {
            throw Self.methodError(error)
        }
    }

    private static func methodError(_ error: EarnFailure) -> MethodError {
        switch error {
        case let .refused(_, message): .refused(message)
        case let .storage(error): .storageError(tr("nothing was credited: {error}", ["error": "\(error)"]))
        }
    }

    public func blockFor(target: String, seconds: UInt64) throws(MethodError) -> WallInstant {
        let key = try Self.resolveTarget(target, config: daemon.config, configPath: daemon.configFile.path)
        let wall = WallClock.now
        let end = wall + .seconds(Int64(seconds))
        if let refusal = daemon.strictRefusal(block: key, until: end, wall: wall) {
            throw .refused(refusal)
        }
        let until: WallInstant
        do { until = try daemon.block(target: key, until: end, wall: wall) } catch {
            throw .storageError(tr("nothing was blocked: {error}", ["error": "\(error)"]))
        }
        ledgerChanged()
        return until
    }

    public func unblock(target: String) throws(MethodError) {
        let key = try Self.resolveTarget(target, config: daemon.config, configPath: daemon.configFile.path)
        if let refusal = daemon.strictRefusal(unblock: key) { throw .refused(refusal) }
        let lifted: Bool
        do { lifted = try daemon.unblock(target: key) } catch { throw .storageError(tr("the block stays: {error}", ["error": "\(error)"])) }
        if lifted { ledgerChanged() }
        guard lifted else {
            throw .invalidArgument(tr("no timed block on {key}; unblock lifts only timed blocks (schedules and daily limits come from the config)", ["key": "\(key)"]))
        }
    }

    public func history(days: UInt32) throws(MethodError) -> [HistoryRow] {
        let today = daemon.meter.zone.localDate(at: WallClock.now)
        let first = today.adding(days: -(Int(days) - 1))
        let summaries: [DaySummary]
        do { summaries = try daemon.ledger.history(fromDay: first, toDay: today) } catch {
            throw .storageError("\(error)")
        }
        return Self.historyRows(summaries, from: first, to: today)
    }

    public func reload() throws(MethodError) {
        if case let .failure(error) = reloadConfig() {
            throw .configError(tr("{error} (the previous configuration stays in force)", ["error": "\(error)"]))
        }
    }

    public func pendingChanges() throws(MethodError) -> [PendingChange] {
        daemon.pendingChanges()
    }

    public func cancelPending() throws(MethodError) -> UInt32 {
        do { return UInt32(clamping: try daemon.cancelPendingConfig()) } catch {
            throw .storageError(tr("the pending changes stay: {error}", ["error": "\(error)"]))
        }
    }

    public func gaps(days: UInt32) throws(MethodError) -> [Gap] {
        do { return try daemon.gaps(since: startOfDays(days)) } catch { throw .storageError("\(error)") }
    }

    public func usePass(group: String) throws(MethodError) -> WallInstant {
        let pass: PassRecord
        do { pass = try daemon.usePass(group: group) } catch {
            switch error {
            case let .unknownGroup(message): throw .unknownTarget(message)
            case let .refused(message): throw .refused(message)
            case let .storage(error): throw .storageError(tr("no pass was used: {error}", ["error": "\(error)"]))
            }
        }
        ledgerChanged()
        return pass.until
    }

    public func answerPause(group: String, open: Bool, reason: String) throws(MethodError) {
        do { try daemon.answerPause(group: group, open: open, reason: reason) } catch {
            switch error {
            case let .noPause(message): throw .invalidArgument(message)
            case let .tooSoon(message): throw .refused(message)
            case let .storage(error): throw .storageError(tr("the pause stays: {error}", ["error": "\(error)"]))
            }
        }
        ledgerChanged()
    }

    public func opens(days: UInt32) throws(MethodError) -> [OpenDaySummary] {
        let today = daemon.meter.zone.localDate(at: WallClock.now)
        do { return try daemon.ledger.opensHistory(fromDay: today.adding(days: -(Int(days) - 1)), toDay: today) } catch {
            throw .storageError("\(error)")
        }
    }

    public func notes(days: UInt32) throws(MethodError) -> [IntegrityNote] {
        do { return try daemon.notes(since: startOfDays(days)) } catch { throw .storageError("\(error)") }
    }

    /// The start of the local day `days - 1` days before today.
    private func startOfDays(_ days: UInt32) -> WallInstant {
        let zone = daemon.meter.zone
        return zone.startOfDay(zone.localDate(at: WallClock.now).adding(days: -(Int(days) - 1)))
    }

    /// blocker-overlay drew or hid its cover. Only the program installed
    /// beside blockerd is believed; its connection is watched, so a stopped
    /// or killed overlay is known at once.
    public func coverShown(_ shown: Bool, caller: String) throws(MethodError) {
        let connection = export.connection
        let claim = CoverClaim.check(caller, on: connection, overlayPath: daemon.options.overlayExecutable)
        guard claim.program == .overlay, let pid = claim.pid else {
            if refusedCallers.count < 64, refusedCallers.insert(caller).inserted {
                daemon.coverRefused("CoverShown(\(shown)) from \(claim)")
            }
            throw MethodError(.accessDenied, tr("only {program} draws blocker's cover; {claim} is not it", ["program": daemon.options.overlayExecutable ?? OverlayIdentity.name, "claim": "\(claim)"]))
        }
        if coverClients[caller] == nil {
            coverClients[caller] = try? connection.watchOwner(of: caller) { [unowned self] owner in
                if owner.isEmpty { self.coverClientLeft(caller) }
            }
        }
        // What it records (an uncovered stretch's note) is kept in English, whoever asks.
        Translations.$scoped.withValue(EnglishCatalog()) { daemon.coverReported(client: caller, pid: pid, drawn: shown) }
        // It may have closed before the watch was in place.
        if connection.ownerPID(of: caller) == nil { coverClientLeft(caller) }
        ledgerChanged()
    }

    /// blocker's native messaging host says what the browser that started it
    /// shows. Only the blockerctl installed beside blockerd is believed, and
    /// the browser is its parent process, read by blockerd: a program cannot
    /// speak for a browser it did not come from.
    public func reportTab(_ tab: BrowserTab, focused: Bool, caller: String) throws(MethodError) {
        let connection = export.connection
        let pid = connection.ownerPID(of: caller)
        let exe = pid.flatMap(ProcessExecutable.of(pid:))
        guard let pid, let expected = daemon.options.browserHostExecutable, exe?.path == expected,
              let browser = ProcessExecutable.parent(of: pid) else {
            let who = "pid \(pid.map(String.init) ?? "unknown") (\(exe?.path ?? "an unreadable executable")) on \(caller)"
            if refusedCallers.count < 64, refusedCallers.insert(caller).inserted {
                daemon.logNotice("Refused a browser tab report from \(who): only \(daemon.options.browserHostExecutable ?? "blockerctl") browser-host, started by the browser, reports tabs")
            }
            throw MethodError(.accessDenied, tr("only blocker's native messaging host ({program} browser-host, started by the browser) reports a browser's tab; {who} is not it", ["program": daemon.options.browserHostExecutable ?? "blockerctl", "who": "\(who)"]))
        }
        if browserHosts[caller] == nil {
            browserHosts[caller] = try? connection.watchOwner(of: caller) { [unowned self] owner in
                if owner.isEmpty { self.browserHostLeft(caller) }
            }
        }
        daemon.browserReported(tab, focused: focused, browser: browser, host: caller)
        if connection.ownerPID(of: caller) == nil { browserHostLeft(caller) }
        // A tab switch decides at once: the charge stops within the loop's next turn.
        ledgerChanged()
    }

    private func browserHostLeft(_ host: String) {
        browserHosts[host] = nil
        daemon.browserHostLeft(host)
        ledgerChanged()
    }

    private func coverClientLeft(_ client: String) {
        coverClients[client] = nil
        daemon.coverClientLeft(client)
        ledgerChanged()
    }

    /// Follows `io.github.blockerd.Cover`: a shell's plugin that owns it
    /// draws the cover; any other owner is said and ignored.
    private func watchShellCover() {
        let connection = export.connection
        shellCoverWatch = try? connection.watchOwner(of: BusNames.shellCover) { [unowned self] owner in
            self.shellCoverOwned(by: owner.isEmpty ? nil : owner)
        }
        if let owner = try? connection.owner(of: BusNames.shellCover) { shellCoverOwned(by: owner.uniqueName) }
    }

    private func shellCoverOwned(by owner: String?) {
        var shell: String?
        if let owner {
            let claim = CoverClaim.check(owner, on: export.connection, overlayPath: nil)
            if case let .shell(name) = claim.program {
                shell = name
            } else {
                daemon.coverRefused("\(BusNames.shellCover) owned by \(claim), no desktop shell")
            }
        }
        daemon.shellCoverChanged(shell)
        ledgerChanged()
    }

    /// No cover under a shield and no blocker-overlay on the bus: asks the
    /// user manager to start it (`systemctl --user stop` is no crash, so
    /// `Restart=` does not), at most every 10 s; a failure is said once.
    public func coverMissing() {
        let now = MonotonicClock.now
        if let last = overlayStart, now - last.at < .seconds(10) { return }
        overlayStart = (now, overlayStart?.failure)
        let connection = export.connection
        do {
            let call = try connection.methodCall(destination: "org.freedesktop.systemd1", path: "/org/freedesktop/systemd1",
                                                 interface: "org.freedesktop.systemd1.Manager", member: "StartUnit")
            do throws(SystemdError) {
                try call.append(OverlayIdentity.unit)
                try call.append("replace")
            } catch { throw BusCallError.system(error) }
            try connection.callAsync(call, timeoutMicroseconds: 5_000_000) { [weak self] result in
                guard let self else { return }
                switch result {
                case .success:
                    self.overlayStart?.failure = nil
                    self.daemon.logNotice("Asked the user manager to start \(OverlayIdentity.unit): no cover was drawn")
                case let .failure(error):
                    let why = "\(error.name): \(error.message)"
                    guard self.overlayStart?.failure != why else { return }
                    self.overlayStart?.failure = why
                    self.daemon.logNotice("Cannot start \(OverlayIdentity.unit) through the user manager (\(why)); "
                        + "the time under the shield is charged until a cover is drawn")
                }
            }
        } catch {
            daemon.logNotice("Cannot ask the user manager for \(OverlayIdentity.unit): \(error)")
        }
    }

    // MARK: signals

    public func shieldChanged(_ shield: Shield?, balance: Milliseconds) {
        export.shieldChanged(shieldState(shield, balance: balance))
        let state = daemon.state
        // A site shield covers one tab: the extension's page stops its media;
        // pausing or muting the browser would reach every other tab.
        media.shieldChanged(shield?.site == nil ? shield : nil, window: state.front, liftedByEarning: state.afterEarning)
    }

    public func balanceChanged(_ balance: Milliseconds) {
        export.balanceChanged(balance)
    }

    public func warning(remaining: Milliseconds) {
        export.warning(remainingMs: remaining)
    }

    /// The one shield state `Status` and `ShieldChanged` both send.
    private func shieldState(_ shield: Shield?, balance: Milliseconds) -> ShieldState {
        if let shield { coveredApp = shield.app }
        var state = ShieldState(shield, coveredApp: coveredApp, balanceMs: balance)
        (state.askReason, state.passesLeft) = daemon.coverExtras(shield)
        return state
    }

    // MARK: resolving names (pure)

    /// `[earn]` lookup, case-insensitive; "" means the only exercise when exactly one is configured.
    static func resolveExercise(_ name: String, config: Config, configPath: String) throws(MethodError) -> Exercise {
        let names = config.exercises.map(\.name)
        guard !names.isEmpty else {
            throw .unknownExercise(tr("no exercises are configured; add one under [earn] in {file} (for example: pushups = 0.5) and run: blockerctl reload", ["file": "\(configPath)"]))
        }
        if name.isEmpty {
            if config.exercises.count == 1 { return config.exercises[0] }
            throw .unknownExercise(tr("say which exercise: one of {exercises}", ["exercises": names.joined(separator: ", ")]))
        }
        if let exercise = config.exercise(named: name) { return exercise }
        throw .unknownExercise(tr("unknown exercise {name}; configured: {exercises} (add it under [earn] in {file})", ["name": BlockerLimits.quoted(name), "exercises": names.joined(separator: ", "), "file": "\(configPath)"]))
    }

    /// A block target: a group's name, or an app listed in some group's `apps`.
    /// Returns the stored form (lowercase).
    static func resolveTarget(_ target: String, config: Config, configPath: String) throws(MethodError) -> String {
        let key = target.lowercased()
        if !key.isEmpty, config.groups.contains(where: { $0.name.lowercased() == key || $0.apps.contains(key) }) {
            return key
        }
        let groups = config.groups.map(\.name)
        let known = groups.isEmpty ? tr("no groups are configured in {file}", ["file": configPath])
            : tr("groups: {groups}", ["groups": groups.joined(separator: ", ")])
        let shown = target.isEmpty ? tr("an empty name") : BlockerLimits.quoted(target)
        throw .unknownTarget(tr("{shown} is neither a group nor an app listed in one; {known}", ["shown": "\(shown)", "known": "\(known)"]))
    }

    /// One totals row (group "") per day from `first` to `last`, oldest first,
    /// each followed by that day's groups in name order. Days without activity
    /// get a zero totals row, so a chart has every day.
    static func historyRows(_ summaries: [DaySummary], from first: CivilDate, to last: CivilDate) -> [HistoryRow] {
        let byDay = Dictionary(summaries.map { ($0.day, $0) }, uniquingKeysWith: { a, _ in a })
        var rows: [HistoryRow] = []
        var day = first
        while day <= last {
            let text = day.description
            let summary = byDay[day]
            rows.append(HistoryRow(day: text, group: "", usedMs: summary?.spentMs ?? 0, earnedMs: summary?.earnedMs ?? 0))
            for (group, used) in (summary?.usedByGroup ?? [:]).sorted(by: { $0.key < $1.key }) {
                rows.append(HistoryRow(day: text, group: group, usedMs: used, earnedMs: 0))
            }
            day = day.adding(days: 1)
        }
        return rows
    }
}
