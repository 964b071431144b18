import BlockerCore
import BlockerSystem
import BlockerSystemd
import Glibc

/// What differs between the desktops whose shell pushes focus reports
/// (`FocusReport`): GNOME Shell with blocker's extension, KWin with blocker's
/// script. One small file each.
public protocol ReportingShell {
    /// `gnome`, `kde`: the probe's name.
    var probeName: String { get }
    /// "GNOME Shell", "KWin": in messages.
    var displayName: String { get }
    /// The shell's well-known name on the session bus. Only its owner's
    /// reports count: another program of the user cannot fake the front window.
    var busName: String { get }
    /// Nil when the shell's plugin is installed and running, else why not and
    /// how to fix it (asked when the probe opens and while no report came).
    func pluginProblem(on connection: BusConnection) -> String?
    /// Asks the plugin to report now, when the probe (re)connects to the bus;
    /// the GNOME extension needs nothing, as it watches for
    /// `io.github.blockerd.Focus` itself. A shell that restarts loads its
    /// plugin, which reports at its start.
    func requestReport(on connection: BusConnection)
    /// Whether the probe opens while the plugin is missing or off, failing
    /// each sample with `pluginProblem` until the plugin reports: right where
    /// the shell loads the plugin by itself once the user enables it (KWin
    /// runs an enabled script at once, and the script reports as it starts).
    var opensWithoutPlugin: Bool { get }
    /// Follows the plugin while the shell runs, for the shell that signals
    /// its plugins' changes (GNOME); nil: it says nothing, and the probe asks
    /// (`askPlugin`) every `pluginCheckEveryMs`. Without either, a plugin
    /// switched off would leave its last report standing for good.
    func followPlugin(on connection: BusConnection, changed: @escaping (PluginState) -> Void)
        throws(SystemdError) -> BusSubscription?
    /// How often to ask whether the plugin runs; nil: the shell signals it.
    var pluginCheckEveryMs: Milliseconds? { get }
    /// Asks whether the plugin runs, without waiting: `answer` is called as
    /// the probe's connection is processed (a loop never waits on the shell).
    func askPlugin(on connection: BusConnection, answer: @escaping (PluginState) -> Void)
    /// Hides `window` for "Not now" through the shell (`ForegroundProbe.hide`).
    func hide(_ window: Window, on connection: BusConnection) -> HideResult
}

/// What the shell says of its plugin.
public enum PluginState: Equatable, Sendable {
    case running
    /// Why it is not running and how to fix it.
    case stopped(String)
    /// The shell did not answer: nothing changes.
    case unknown
}

extension ReportingShell {
    public var opensWithoutPlugin: Bool { false }
    public func followPlugin(on connection: BusConnection, changed: @escaping (PluginState) -> Void)
        throws(SystemdError) -> BusSubscription? { nil }
    public var pluginCheckEveryMs: Milliseconds? { nil }
    public func askPlugin(on connection: BusConnection, answer: @escaping (PluginState) -> Void) {}
}

/// `probe = "gnome"` and `probe = "kde"`: owns `io.github.blockerd.Focus` on
/// its own session-bus connection and keeps the last report of the shell.
/// Exact and event-driven: the connection's descriptor wakes the daemon on
/// each report, and a sample makes no round trip.
public final class ShellReportProbe: ForegroundProbe {
    public let shell: ReportingShell
    public var name: String { shell.probeName }
    public var eventGeneration: Int { link.generation }
    public var eventDescriptor: Int32? { session?.connection.fileDescriptor }

    private let address: String
    private let link = Reconnecting<Session>(initial: 100, cap: 2_000)
    private var session: Session? { link.connection }
    /// The last accepted report; nil before the first, after the shell left
    /// and while its plugin is off.
    private(set) var latest: Reading? {
        didSet {
            latestSampled = false
            if latest == nil { skippedFocus = [] }
        }
    }
    /// Whether `sample()` has given `latest` (else a newer report skips it).
    private var latestSampled = false
    /// Windows reported and replaced before a sample read them (`takeSkippedFocus`).
    private var skippedFocus: [Window?] = []
    /// More than a burst's worth is no burst: only the newest are kept.
    static let skippedFocusLimit = 8
    /// Why the plugin stopped, as the shell last said; nil while it runs. A
    /// report from the shell says it runs again.
    private var pluginStopped: String?
    /// When to ask the shell about its plugin next (`pluginCheckEveryMs`), and
    /// whether an answer is awaited.
    private var nextPluginCheck: MonotonicInstant?
    private var pluginAsked = false
    /// The shell's unique name on the bus ("" while it is not there).
    private var shellOwner = ""
    /// Bumped by whatever can change the answer: a report, the plugin's state,
    /// the shell coming or going. An event that leaves it (a check's "still
    /// running") wakes no tick.
    private var answerChanges = 0
    /// Answers to `askPlugin` so far (tests).
    private(set) var pluginAnswers = 0
    /// Reports accepted and refused so far (tests and `blockerctl probe`).
    private(set) var reportsAccepted = 0
    private(set) var reportsRefused = 0

    /// The connection and what lives on it, released together.
    private struct Session {
        let connection: BusConnection
        let export: BusExport
        let ownerWatch: BusSubscription
        let pluginWatch: BusSubscription?
    }

    init(shell: ReportingShell, address: String) {
        self.shell = shell
        self.address = address
    }

    /// Connects to the session bus in `environment`, takes the name and asks
    /// the shell for a first report; or says why it cannot.
    public static func open(_ shell: ReportingShell, environment: [String: String])
        -> Result<ShellReportProbe, ProbeUnavailable> {
        guard let address = BusAddress.session(environment: environment) else {
            return .failure(ProbeUnavailable(probe: shell.probeName, reason: "no session bus: DBUS_SESSION_BUS_ADDRESS "
                + "is not set and there is no $XDG_RUNTIME_DIR/bus"))
        }
        let probe = ShellReportProbe(shell: shell, address: address)
        if let failure = probe.connectIfDue() {
            return .failure(ProbeUnavailable(probe: shell.probeName, reason: failure.message))
        }
        if !shell.opensWithoutPlugin, let problem = probe.session.flatMap({ shell.pluginProblem(on: $0.connection) }) {
            return .failure(ProbeUnavailable(probe: shell.probeName, reason: problem))
        }
        return .success(probe)
    }

    public func hide(_ window: Window) -> HideResult {
        guard let connection = session?.connection else {
            return .failed("not connected to the session bus" + (link.downBecause.isEmpty ? "" : ": \(link.downBecause)"))
        }
        return shell.hide(window, on: connection)
    }

    public func sample() -> Result<Reading, ProbeFailure> {
        if let failure = connectIfDue() { return .failure(failure) }
        drainEvents()
        askPluginIfDue()
        if let pluginStopped { return .failure(ProbeFailure("\(shell.displayName): \(pluginStopped)")) }
        if let latest {
            latestSampled = true
            return .success(latest)
        }
        guard let connection = session?.connection else {
            return .failure(ProbeFailure("\(shell.displayName): \(link.downBecause)"))
        }
        if shellOwner.isEmpty {
            return .failure(ProbeFailure("\(shell.displayName) is not on the session bus (\(shell.busName) has no owner)"))
        }
        let problem = shell.pluginProblem(on: connection)
        // The call above may have queued a report behind its reply: read it now.
        drainEvents()
        if let latest {
            latestSampled = true
            return .success(latest)
        }
        return .failure(ProbeFailure("\(shell.displayName): \(problem ?? "it has not reported the window in front yet")"))
    }

    /// When the loop must sample even without events: the shell is asked
    /// about its plugin then.
    public var nextCheck: MonotonicInstant? { session == nil ? nil : nextPluginCheck }

    public func check() { askPluginIfDue() }

    public func takeSkippedFocus() -> [Window?] {
        defer { skippedFocus = [] }
        return skippedFocus
    }

    public func drainEventsMayHaveChanged() -> Bool {
        let before = answerChanges
        drainEvents()
        return answerChanges != before
    }

    /// Gives `io.github.blockerd.Focus` back before the connection closes, so
    /// a probe opened next (a reload) can take it at once.
    public func shutdown() {
        guard let connection = session?.connection else { return }
        try? connection.releaseName(FocusReport.busName)
        link.drop(because: "the probe was shut down")
        latest = nil
    }

    public func drainEvents() {
        guard let connection = session?.connection else { return }
        do { try connection.processPending() } catch {
            disconnect(because: "the session bus connection failed: \(error)")
            return
        }
        if !connection.isOpen { disconnect(because: "the session bus closed the connection") }
    }

    // MARK: the bus

    private func connectIfDue() -> ProbeFailure? {
        switch link.connectIfDue(now: MonotonicClock.now, describe: \.message, connect) {
        case .connected: return nil
        case .waiting: return ProbeFailure("\(shell.displayName): \(link.downBecause)")
        case let .failed(failure): return failure
        }
    }

    private func connect() throws(ProbeFailure) -> Session {
        let connection: BusConnection
        do { connection = try BusConnection(address: address) } catch {
            throw ProbeFailure("cannot connect to the session bus at \(address): \(error)")
        }
        let export: BusExport
        do {
            export = try connection.export(path: FocusReport.objectPath, interface: FocusReport.interface,
                                           methods: [FocusReport.report], signals: []) { [weak self] call in
                guard let self else { return .failure(BusErrorReply(name: "org.freedesktop.DBus.Error.Failed",
                                                                    message: "blockerd is stopping")) }
                return self.receive(call)
            }
        } catch { throw ProbeFailure("cannot export \(FocusReport.objectPath): \(error)") }
        do { try connection.requestName(FocusReport.busName) } catch {
            let holder = connection.ownerPID(of: FocusReport.busName).map { " by pid \($0)" } ?? ""
            throw ProbeFailure(error.errno == .fileExists
                ? "\(FocusReport.nameTaken)\(holder) (a running blockerd? `blockerctl status` shows "
                    + "what it sees)"
                : "cannot take \(FocusReport.busName): \(error)")
        }
        let watch: BusSubscription
        do {
            watch = try connection.watchOwner(of: shell.busName) { [weak self] owner in
                self?.shellChanged(owner: owner)
            }
        } catch { throw ProbeFailure("cannot follow \(shell.busName) on the session bus: \(error)") }
        let pluginWatch: BusSubscription?
        do {
            pluginWatch = try shell.followPlugin(on: connection) { [weak self] state in self?.pluginChanged(state) }
        } catch { throw ProbeFailure("cannot follow \(shell.displayName)'s plugins on the session bus: \(error)") }
        shellOwner = (try? connection.owner(of: shell.busName))??.uniqueName ?? ""
        latest = nil
        pluginStopped = nil
        pluginAsked = false
        nextPluginCheck = shell.pluginCheckEveryMs.map { MonotonicClock.now + $0 }
        if !shellOwner.isEmpty { shell.requestReport(on: connection) }
        return Session(connection: connection, export: export, ownerWatch: watch, pluginWatch: pluginWatch)
    }

    /// Asks the shell about its plugin when `pluginCheckEveryMs` has passed,
    /// one question at a time; the answer arrives on the connection.
    private func askPluginIfDue() {
        guard let every = shell.pluginCheckEveryMs, let connection = session?.connection, !shellOwner.isEmpty,
              !pluginAsked else { return }
        let now = MonotonicClock.now
        if let next = nextPluginCheck, now < next { return }
        nextPluginCheck = now + every
        pluginAsked = true
        shell.askPlugin(on: connection) { [weak self] state in
            self?.pluginAsked = false
            self?.pluginAnswers += 1
            self?.pluginChanged(state)
        }
    }

    /// The plugin stopped: its last report no longer holds (the app it named
    /// may be gone, and must not be charged); running again: its next report counts.
    private func pluginChanged(_ state: PluginState) {
        switch state {
        case .running:
            if pluginStopped != nil { answerChanges += 1 }
            pluginStopped = nil
        case let .stopped(why):
            if pluginStopped != why || latest != nil { answerChanges += 1 }
            pluginStopped = why
            latest = nil
        case .unknown: break
        }
    }

    private func disconnect(because reason: String) {
        answerChanges += 1
        link.drop(because: reason, backingOffAt: MonotonicClock.now)
        latest = nil
        shellOwner = ""
    }

    /// The shell restarted or left: what it said before no longer holds.
    private func shellChanged(owner: String) {
        answerChanges += 1
        shellOwner = owner
        latest = nil
        pluginStopped = nil   // a shell that starts loads its plugins; one that left says so itself
    }

    private func receive(_ call: BusMessage) -> Result<BusMessage, BusErrorReply> {
        guard call.member == FocusReport.report.member else {
            return .failure(BusErrorReply(name: "org.freedesktop.DBus.Error.UnknownMethod",
                                          message: "unknown method \(call.member ?? "")"))
        }
        guard let sender = call.sender, !shellOwner.isEmpty, sender == shellOwner else {
            reportsRefused += 1
            return .failure(BusErrorReply(name: "org.freedesktop.DBus.Error.AccessDenied",
                                          message: "only \(shell.displayName) (the owner of \(shell.busName)) may report "
                                              + "the window in front"))
        }
        let entries: [String: BusValue]
        do { entries = try call.readDictionary() } catch {
            reportsRefused += 1
            return .failure(BusErrorReply(name: "org.freedesktop.DBus.Error.InvalidArgs", message: "\(error)"))
        }
        switch FocusReport.reading(from: entries) {
        case let .failure(invalid):
            reportsRefused += 1
            return .failure(BusErrorReply(name: "org.freedesktop.DBus.Error.InvalidArgs", message: invalid.description))
        case let .success(reading):
            if let previous = latest, !latestSampled {
                skippedFocus = Array((skippedFocus + [previous.window]).suffix(Self.skippedFocusLimit))
            }
            latest = reading
            pluginStopped = nil   // only a running plugin reports
            reportsAccepted += 1
            answerChanges += 1
            do { return .success(try call.makeReply()) } catch {
                return .failure(BusErrorReply(name: "org.freedesktop.DBus.Error.Failed", message: "\(error)"))
            }
        }
    }
}
