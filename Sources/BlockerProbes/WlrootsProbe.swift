import BlockerCore
import BlockerSystem
import Glibc

/// `probe = "wlroots"`: the activated toplevel, from the Wayland protocol
/// `zwlr_foreign_toplevel_manager_v1` (wlr-foreign-toplevel-management v3)
/// that labwc, wayfire, river, phoc, sway and other wlroots compositors offer.
///
/// - The compositor sends every toplevel, then each change (app_id, title,
///   state) in batches closed by `done`: a batch is applied whole, and a
///   closed toplevel is dropped. What is in front is the toplevel whose state
///   holds `activated`; none activated means nothing is in front.
/// - The protocol gives no pid: windows have none, so `exe` and `pid` stay
///   nil and only app ids and titles can match (`pidUnavailable` says why).
/// - The connection's socket is `eventDescriptor`; `drainEvents` reads it
///   without blocking. A sample with nothing changed reads no reply and
///   builds nothing: it returns what the last change made.
/// - When the compositor goes away, samples fail with the reason, the
///   descriptor goes nil, and samples reconnect with a capped backoff.
///   Connecting waits at most `timeoutMs` for each of its two round trips, so
///   a frozen compositor fails that sample instead of hanging the daemon;
///   once connected nothing is asked, so a frozen one leaves the last state.
public final class WlrootsProbe: ForegroundProbe {
    public let name = "wlroots"
    /// WAYLAND_DISPLAY as the session gave it (`wayland-1`, or a path).
    public let display: String
    /// The socket it names.
    public let socketPath: String
    public var eventGeneration: Int { link.generation }
    public var eventDescriptor: Int32? { connection?.fileDescriptor }
    public var pidUnavailable: String? { Self.noPID }
    static let noPID = "wlr-foreign-toplevel-management gives no pid"

    static let managerInterface = "zwlr_foreign_toplevel_manager_v1"
    /// How long connecting may wait for the compositor's answers.
    let timeoutMs: Milliseconds

    /// Its `downBecause`: why there is no connection.
    private let link = Reconnecting<WaylandConnection>(initial: 100, cap: 2_000)
    private var connection: WaylandConnection? { link.connection }
    private var toplevels = ToplevelList()
    /// What the last change made; nil when a change came since.
    private var cached: Window??
    /// Events read so far over every connection (tests, bench).
    public private(set) var eventsReceived = 0
    /// Connections tried (tests: a missing compositor costs no spin).
    var connectionAttempts: Int { link.attempts }

    private init(display: String, socketPath: String, timeoutMs: Milliseconds) {
        self.display = display
        self.socketPath = socketPath
        self.timeoutMs = timeoutMs
    }

    /// The probe for the compositor at `WAYLAND_DISPLAY`, connected, or why there is none.
    public static func open(environment: [String: String], timeoutMs: Milliseconds = 1000) -> Result<WlrootsProbe, ProbeUnavailable> {
        socketAddress(in: environment).flatMap { display, path in
            let probe = WlrootsProbe(display: display, socketPath: path, timeoutMs: timeoutMs)
            if case let .failed(failure) = probe.link.connectIfDue(now: MonotonicClock.now, probe.connectToCompositor) {
                return .failure(ProbeUnavailable(probe: "wlroots", reason: failure.message))
            }
            return .success(probe)
        }
    }

    /// `WAYLAND_DISPLAY` is a socket name in `XDG_RUNTIME_DIR`, or an absolute path (as libwayland reads it).
    static func socketAddress(in environment: [String: String])
        -> Result<(display: String, path: String), ProbeUnavailable> {
        guard let display = environment["WAYLAND_DISPLAY"], !display.isEmpty else {
            return .failure(ProbeUnavailable(probe: "wlroots", reason: "WAYLAND_DISPLAY is not set"))
        }
        if display.hasPrefix("/") { return .success((display, display)) }
        guard let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty else {
            return .failure(ProbeUnavailable(probe: "wlroots",
                                             reason: "XDG_RUNTIME_DIR is not set (WAYLAND_DISPLAY=\(display) names a socket in it)"))
        }
        return .success((display, runtime + "/" + display))
    }

    public func sample() -> Result<Reading, ProbeFailure> {
        switch link.connectIfDue(now: MonotonicClock.now, describe: \.message, connectToCompositor) {
        case .connected: break
        case let .waiting(ms): return .failure(ProbeFailure("\(link.downBecause); retrying in \(ms) ms"))
        case let .failed(failure): return .failure(failure)
        }
        // What arrived since the daemon last drained (the descriptor may not have woken it yet).
        drainEvents()
        guard connection != nil else { return .failure(ProbeFailure(link.downBecause)) }
        if let cached { return .success(Reading(window: cached)) }
        let front = toplevels.activated.map(Self.window)
        cached = .some(front)
        return .success(Reading(window: front))
    }

    public func drainEvents() {
        guard let c = connection else { return }
        do {
            apply(try c.readEvents())
        } catch {
            lose("lost the compositor at \(display): \(error)")
        }
    }

    /// The app ids of the toplevels it knows (tests wait for a client's window with it).
    public var toplevelAppIDs: [String] { toplevels.current.values.map(\.appID).sorted() }

    /// Asks the compositor to focus the toplevel with `appID` (tests and the
    /// bench switch focus this way, the same on every compositor). False when
    /// none has it or the request could not be sent.
    public func requestActivation(appID: String) -> Bool {
        guard let c = connection, let id = toplevels.firstID(appID: appID), c.activate(id) else { return false }
        do { try c.flush() } catch { return false }
        return true
    }

    // MARK: connection

    /// Connects, binds the manager and reads the toplevels.
    private func connectToCompositor() throws(ProbeFailure) -> WaylandConnection {
        let compositor = "the compositor at \(display)"
        let socket: UnixSocket
        do { socket = try UnixSocket.connect(to: socketPath) } catch {
            throw ProbeFailure("cannot connect to \(compositor) (\(socketPath)): \(error)")
        }
        do {
            let c = try WaylandConnection.adopt(socket)
            try c.listenToRegistry()
            var manager: (name: UInt32, version: UInt32)?
            var seat: UInt32?
            for case let .global(name, interface, version) in try c.roundTrip(timeoutMs: timeoutMs) {
                if interface == Self.managerInterface { manager = (name, min(version, 3)) }
                if interface == "wl_seat" && seat == nil { seat = name }
            }
            guard let manager else {
                throw ProbeFailure("\(compositor) does not offer \(Self.managerInterface) (GNOME and KDE don't: use probe = gnome/kde)")
            }
            try c.bindToplevelManager(name: manager.name, version: manager.version)
            if let seat { try c.bindSeat(name: seat) }
            // Every toplevel and its first `done` come before the answer to this.
            let initial = try c.roundTrip(timeoutMs: timeoutMs)
            toplevels = ToplevelList()
            cached = nil
            if let problem = take(initial) { throw ProbeFailure(problem) }
            return c
        } catch let failure as ProbeFailure {
            throw failure
        } catch {
            throw ProbeFailure("cannot use \(compositor): \(error)")
        }
    }

    private func lose(_ problem: String) {
        link.drop(because: problem, backingOffAt: MonotonicClock.now)   // closes the socket: the loop stops watching it
        cached = nil
    }

    private func apply(_ events: [WaylandEvent]) {
        if let problem = take(events) { lose(problem) }
    }

    /// Applies the compositor's events; why the connection is over, or nil.
    private func take(_ events: [WaylandEvent]) -> String? {
        eventsReceived += events.count
        for event in events {
            if event == .managerFinished { return "the compositor at \(display) stopped sending toplevels" }
            if toplevels.apply(event) { cached = nil }
        }
        return nil
    }

    // MARK: pure

    static func window(_ toplevel: ToplevelList.Toplevel) -> Window {
        Window(appID: toplevel.appID, title: toplevel.title)
    }
}

/// The toplevels as the compositor last described them (pure): each one's
/// changes wait for its `done` and are then applied together.
struct ToplevelList: Equatable {
    struct Toplevel: Equatable {
        var appID = ""
        var title = ""
        var activated = false
        /// When it was last activated, to choose between two seats' focus.
        var activatedAt = 0
    }

    /// As of each toplevel's last `done`; one that never had a `done` is not here.
    private(set) var current: [WaylandToplevelID: Toplevel] = [:]
    /// Changes since a toplevel's last `done`.
    private var pending: [WaylandToplevelID: Toplevel] = [:]
    private var activations = 0

    /// The activated toplevel (the one activated last if a compositor has several seats).
    var activated: Toplevel? {
        current.values.filter(\.activated).max { $0.activatedAt < $1.activatedAt }
    }

    func firstID(appID: String) -> WaylandToplevelID? {
        current.filter { $0.value.appID == appID }.map(\.key).min { $0.rawValue < $1.rawValue }
    }

    /// True when what `current` shows changed.
    mutating func apply(_ event: WaylandEvent) -> Bool {
        switch event {
        case let .toplevelAdded(id):
            pending[id] = Toplevel()
        case let .title(id, title):
            pending[id, default: current[id] ?? Toplevel()].title = title
        case let .appID(id, appID):
            pending[id, default: current[id] ?? Toplevel()].appID = appID
        case let .state(id, activated):
            pending[id, default: current[id] ?? Toplevel()].activated = activated
        case let .done(id):
            guard var next = pending.removeValue(forKey: id) else { return false }
            let before = current[id]
            if next.activated && before?.activated != true {
                activations += 1
                next.activatedAt = activations
            }
            guard next != before else { return false }
            current[id] = next
            return true
        case let .closed(id):
            pending[id] = nil
            return current.removeValue(forKey: id) != nil
        case .global, .globalRemoved, .managerFinished, .syncDone:
            return false
        }
        return false
    }
}
