import BlockerCore
import BlockerSystem
import Glibc

/// `probe = "x11"`: asks the X server (through xcb) which window is active.
///
/// - `_NET_ACTIVE_WINDOW` of the root window (kept by the window manager), read
///   with AnyPropertyType; then that window's `WM_CLASS`, `_NET_WM_NAME` (else
///   `WM_NAME`) and `_NET_WM_PID` (else the X-Resource extension), in one round trip.
/// - PropertyNotify on the root window and on the active window (titles),
///   DestroyNotify of the active window, and
///   MIT-SCREEN-SAVER notify, make `eventDescriptor` readable.
/// - What it read is kept until one of those events says it may have changed:
///   a sample with nothing changed sends no request at all. Only when
///   `followsIdle` (`idle-after` is set) does each sample ask the screen saver
///   for the time since the last input, which no event reports.
/// - MIT-SCREEN-SAVER gives the idle time; an active screen saver counts as
///   locked. Its state is asked once per connection, then followed by its notify events.
/// - When the server goes away, samples fail with the reason, the descriptor
///   goes nil, and `sample()` reconnects with a short capped backoff.
public final class X11Probe: ForegroundProbe {
    private let executables = ExecutableNameCache()
    public let name = "x11"
    /// The display this probe talks to (`:0`).
    public let display: String

    /// A server that does not answer within this long fails the sample instead of hanging the daemon.
    var replyTimeoutNs: Int64 = 500_000_000

    private var connection: XConnection? { link.connection }
    private var atoms = Atoms()
    /// The active window (its title changes wake the daemon).
    private var watched = XWindow.none
    /// What the recently active windows said, each followed for property
    /// changes (a change forgets it): switching back to one costs only the
    /// read of `_NET_ACTIVE_WINDOW`, as Alt+Tab mostly does.
    private var recent = RecentWindows<Window>(capacity: 8)
    private var smoother = ForegroundSmoother()
    public var eventGeneration: Int { link.generation }
    /// Ask for the idle time on every sample (one round trip); otherwise `idle` is nil.
    public let followsIdle: Bool
    /// The last look, while no event says it is out of date.
    private var cached: Observation?
    /// The screen saver's state: asked once per connection, then from its
    /// notify events (or from each sample's query when following idle).
    /// nil: not known yet (without MIT-SCREEN-SAVER asking sends nothing).
    private var saverState: XScreenSaverInfo.State?
    /// The request whose reply `cached`'s `_NET_ACTIVE_WINDOW` is; nil when
    /// nothing cached (then every change of it counts).
    private var lastActiveRead: XCookie<XProperty?>?
    /// `_NET_ACTIVE_WINDOW` asked for as soon as an event said it changed
    /// (`drainEventsMayHaveChanged`): the server answers while the daemon's
    /// tick gets to the sample, which finds the reply there instead of
    /// sleeping until it comes (a wake-up less per focus change). It is
    /// `lastActiveRead` already; a change after it makes it stale (discarded).
    private var activeAsked: XCookie<XProperty?>?
    /// Requests with replies sent so far, over every connection (tests).
    var requestsSent: Int { previousConnectionsRequests + (connection?.requestsSent ?? 0) }
    private var previousConnectionsRequests = 0

    /// 50 ms after a loss, doubling to at most 500 ms: a server that comes
    /// back is found within half a second of the next sample, and one that
    /// stays away costs two failed connects a second.
    /// Its `downBecause`: why the connection is down, for every sample until it is back.
    private let link = Reconnecting<XConnection>(initial: 50, cap: 500)

    public var eventDescriptor: Int32? { connection?.fileDescriptor }
    /// A window manager changes several root properties per focus change:
    /// openbox the stacking list, then `_NET_ACTIVE_WINDOW` twice (the second
    /// about a millisecond after the first). Each woke blockerd, and each
    /// `_NET_ACTIVE_WINDOW` cost a round trip and a tick.
    public let eventBurstUs: UInt64 = 2_000

    private init(display: String, followsIdle: Bool) {
        self.display = display
        self.followsIdle = followsIdle
    }

    /// Connects to `$DISPLAY`, or says why it cannot ("DISPLAY is not set",
    /// "cannot connect to :5: …").
    public static func open(environment: [String: String], followsIdle: Bool = false)
        -> Result<X11Probe, ProbeUnavailable> {
        guard let display = environment["DISPLAY"], !display.isEmpty else {
            return .failure(ProbeUnavailable(probe: "x11", reason: "DISPLAY is not set"))
        }
        let probe = X11Probe(display: display, followsIdle: followsIdle)
        switch probe.link.connectIfDue(now: MonotonicClock.now, probe.openConnection) {
        case .connected, .waiting: return .success(probe)
        case let .failed(.cannotConnect(error)):
            return .failure(ProbeUnavailable(probe: "x11", reason: "cannot connect to \(display): \(error)"))
        case let .failed(.cannotUse(problem)):
            return .failure(ProbeUnavailable(probe: "x11", reason: "cannot use \(display): \(problem)"))
        }
    }

    public func sample() -> Result<Reading, ProbeFailure> {
        let c: XConnection
        switch connected() {
        case let .success(connection): c = connection
        case let .failure(failure): return .failure(failure)
        }
        if drainPending(c) { cached = nil }
        let deadline = Deadline(atNs: MonotonicClock.nowNs + replyTimeoutNs)
        var seen: Observation
        if let cached {
            seen = cached
        } else {
            var looks = 0
            var changedMeanwhile = false
            repeat {
                // A change that arrived while we were reading (xcb queued its event,
                // so the descriptor will not wake the daemon for it): look again.
                switch observe(c, deadline: deadline) {
                case let .success(observation): seen = observation
                case let .failure(failure): return .failure(fail(failure))
                }
                looks += 1
                changedMeanwhile = drainPending(c)
            } while changedMeanwhile && looks < 3
            cached = changedMeanwhile ? nil : seen
        }
        var idle: Milliseconds?
        if followsIdle, let cookie = c.requestScreenSaverInfo() {
            switch c.reply(cookie, deadline: deadline) {
            case let .success(info):
                saverState = info.state
                idle = Milliseconds(ms: Int64(info.msSinceUserInput))
            case let .failure(failure): return .failure(fail(failure))
            }
        }
        if let error = c.error { return .failure(lose(error)) }

        let window = smoother.next(seen.window)
        return .success(Reading(window: window, locked: saverState == .on || saverState == .cycle, idle: idle))
    }

    /// MIT-SCREEN-SAVER's time since the last input, one round trip; nil
    /// without the extension or a connection (the next sample reconnects).
    public func inputIdle() -> Milliseconds? {
        guard let c = connection, let cookie = c.requestScreenSaverInfo(),
              case let .success(info) = c.reply(cookie, deadline: Deadline(atNs: MonotonicClock.nowNs + replyTimeoutNs)) else { return nil }
        return Milliseconds(ms: Int64(info.msSinceUserInput))
    }

    public func drainEvents() { _ = drainEventsMayHaveChanged() }

    /// Most of what a window manager changes on the root (the stacking list,
    /// the desktop names) says nothing about the window in front: no tick for it.
    public func drainEventsMayHaveChanged() -> Bool {
        guard let c = connection else { return true }
        let relevant = drainPending(c)
        if relevant {
            cached = nil
            if activeAsked == nil {
                activeAsked = c.requestProperty(c.root, atoms.netActiveWindow, maxBytes: 4)
                lastActiveRead = activeAsked
                c.flush()
            }
        }
        // A hung-up socket stays readable forever: drop it so the loop stops watching it.
        if let error = c.error {
            _ = lose(error)
            return true
        }
        return relevant
    }

    // MARK: Connection

    private struct Atoms {
        var netActiveWindow = XAtom.none
        var netWMName = XAtom.none
        var netWMPID = XAtom.none
        /// ICCCM's: what a client asks the window manager to iconify with,
        /// and where the window manager says it did.
        var wmChangeState = XAtom.none
        var wmState = XAtom.none
    }

    /// Sets up a fresh connection: atoms, event masks. Returns a problem, or nil.
    private func adopt(_ c: XConnection) -> String? {
        let deadline = Deadline(atNs: MonotonicClock.nowNs + replyTimeoutNs)
        let cookies = ["_NET_ACTIVE_WINDOW", "_NET_WM_NAME", "_NET_WM_PID", "WM_CHANGE_STATE", "WM_STATE"].map(c.requestAtom)
        var interned: [XAtom] = []
        for cookie in cookies {
            switch c.reply(cookie, deadline: deadline) {
            case let .success(atom): interned.append(atom)
            case let .failure(failure): return "cannot intern atoms (\(describe(failure, c)))"
            }
        }
        atoms = Atoms(netActiveWindow: interned[0], netWMName: interned[1], netWMPID: interned[2],
                      wmChangeState: interned[3], wmState: interned[4])
        c.selectInput(c.root, .propertyChange)
        c.selectScreenSaverNotify(c.root)
        guard c.flush(), c.error == nil else { return "the connection broke while setting up" }
        watched = .none
        recent = RecentWindows(capacity: recent.capacity)
        cached = nil
        saverState = nil
        lastActiveRead = nil                   // sequence numbers are per connection
        activeAsked = nil
        return nil
    }

    private enum SetupFailure: Error {
        case cannotConnect(String)
        case cannotUse(String)
    }

    /// A connection to `display`, set up (`adopt`).
    private func openConnection() throws(SetupFailure) -> XConnection {
        switch XConnection.open(display: display) {
        case let .failure(error): throw .cannotConnect("\(error)")
        case let .success(c):
            if let problem = adopt(c) { throw .cannotUse(problem) }
            return c
        }
    }

    private func connected() -> Result<XConnection, ProbeFailure> {
        let now = MonotonicClock.now
        let attempt = link.connectIfDue(now: now, describe: { [display] (failure: SetupFailure) in
            switch failure {
            case let .cannotConnect(error): "cannot connect to the X server at \(display): \(error)"
            case let .cannotUse(problem): "cannot use the X server at \(display): \(problem)"
            }
        }, openConnection)
        switch attempt {
        case let .connected(c): return .success(c)
        case let .waiting(ms): return .failure(ProbeFailure("\(link.downBecause); retrying in \(ms) ms"))
        case .failed: return .failure(ProbeFailure("\(link.downBecause); retrying in \(link.wait(now: now)) ms"))
        }
    }

    /// Drops a broken connection; the next samples reconnect.
    private func lose(_ error: XConnectionError) -> ProbeFailure {
        previousConnectionsRequests += connection?.requestsSent ?? 0
        // xcb_disconnect closes the fd as the last reference goes.
        link.drop(because: "lost the connection to the X server at \(display): \(error)", backingOffAt: MonotonicClock.now)
        watched = .none
        recent = RecentWindows(capacity: recent.capacity)
        cached = nil
        saverState = nil
        lastActiveRead = nil                   // sequence numbers are per connection
        activeAsked = nil
        return ProbeFailure(link.downBecause)
    }

    private func fail(_ failure: XRequestFailure) -> ProbeFailure {
        guard let c = connection else { return ProbeFailure(link.downBecause) }
        if failure == .connectionLost, let error = c.error { return lose(error) }
        return ProbeFailure("X server at \(display): \(describe(failure, c))")
    }

    private func describe(_ failure: XRequestFailure, _ c: XConnection) -> String {
        switch failure {
        case let .protocolError(code): "X error \(code)"
        case .timedOut: "no answer within \(replyTimeoutNs / 1_000_000) ms"
        case .connectionLost: "connection lost (\(c.error.map(String.init(describing:)) ?? "unknown"))"
        }
    }

    // MARK: Looking

    private struct Observation {
        var window: Window?
    }

    /// Reads the events xcb holds; true when one of them may change the answer.
    private func drainPending(_ c: XConnection) -> Bool {
        var relevant = false
        while let event = c.nextEvent() {
            switch event {
            case let .propertyNotify(window, atom, sequence) where window == c.root:
                // One that came before our last read of it (queued with the
                // reply, or read just after) is in that read already: openbox
                // sets it twice per focus change, and a second look was a round trip.
                if atom == atoms.netActiveWindow, lastActiveRead?.wasHandledAfter(eventSequence: sequence) != true {
                    relevant = true
                    forgetAsked(c)
                }
            case let .propertyNotify(window, atom, _) where recent.contains(window):
                guard [XAtom.wmClass, .wmName, atoms.netWMName, atoms.netWMPID].contains(atom) else { break }
                recent.forget(window)
                if window == watched { relevant = true }
            case let .destroyNotify(window) where recent.contains(window):
                recent.remove(window)
                // A window manager may leave _NET_ACTIVE_WINDOW naming it.
                if window == watched { relevant = true }
            case let .screenSaverNotify(state):
                saverState = state
                relevant = true
            case .propertyNotify, .destroyNotify, .error, .other:
                break                          // errors: a window we stopped following is gone
            }
        }
        return relevant
    }

    /// Drops the early `_NET_ACTIVE_WINDOW` request: what it reads may be out of date.
    private func forgetAsked(_ c: XConnection) {
        guard let asked = activeAsked else { return }
        c.discard(asked)
        activeAsked = nil
    }

    /// Follows property changes of the active window, and of the few before
    /// it while they stay in `recent`; the one pushed out is no longer followed.
    private func watch(_ window: XWindow, _ c: XConnection) {
        watched = window
        guard window != .none, !recent.contains(window) else {
            if window != .none { recent.touch(window) }
            return
        }
        c.selectInput(window, [.propertyChange, .structureNotify])
        if let evicted = recent.follow(window) { c.selectInput(evicted, []) }
    }

    private func observe(_ c: XConnection, deadline: Deadline) -> Result<Observation, XRequestFailure> {
        let activeCookie = activeAsked ?? c.requestProperty(c.root, atoms.netActiveWindow, maxBytes: 4)
        activeAsked = nil
        // With the same round trip, the first time: its notify events follow it.
        let saverCookie = saverState == nil ? c.requestScreenSaverInfo() : nil
        let active = c.reply(activeCookie, deadline: deadline)
        lastActiveRead = active.failure == nil ? activeCookie : nil
        let saver = saverCookie.map { c.reply($0, deadline: deadline) }
        guard case let .success(activeProperty) = active else { return .failure(active.failure!) }
        switch saver {
        case let .failure(failure)?: return .failure(failure)
        case let .success(info)?: saverState = info.state
        case nil: break
        }

        let window = XWindow(rawValue: activeProperty?.uint32Values.first ?? 0)
        // Selected before the reads below: a change after them is sure to wake us.
        watch(window, c)
        guard window != .none else { return .success(Observation(window: nil)) }
        if let known = recent[window] { return .success(Observation(window: known)) }

        let classCookie = c.requestProperty(window, .wmClass)
        let netNameCookie = c.requestProperty(window, atoms.netWMName)
        let nameCookie = c.requestProperty(window, .wmName)
        let pidCookie = c.requestProperty(window, atoms.netWMPID, maxBytes: 4)
        let properties = [classCookie, netNameCookie, nameCookie, pidCookie].map { c.reply($0, deadline: deadline) }
        var values: [XProperty?] = []
        for result in properties {
            switch result {
            case let .success(value): values.append(value)
            // Closed between the two reads: like the 0x0 between focus changes.
            // Gone before `watch` selected its events (that failed too): not
            // followed, so not kept either. A window that gets its id next
            // (X gives a freed client slot's ids to the next client) is read
            // and followed as the new window it is.
            case .failure(.protocolError(XRequestFailure.badWindow)):
                recent.remove(window)
                return .success(Observation(window: nil))
            case let .failure(failure): return .failure(failure)
            }
        }
        let (instance, wmClass) = Self.parseClass(values[0])
        let title = Self.text(values[1], alwaysUTF8: true) ?? Self.text(values[2]) ?? ""
        var pid = values[3]?.uint32Values.first.map { Int32(bitPattern: $0) }
        if pid == nil || pid == 0, let cookie = c.requestClientPID(window) {
            switch c.reply(cookie, deadline: deadline) {
            case let .success(found): pid = found
            case .failure(.protocolError): pid = nil
            case let .failure(failure): return .failure(failure)
            }
        }
        if pid == 0 { pid = nil }
        let found = Window(wmInstance: instance, wmClass: wmClass, exe: pid.flatMap(executables.name(pid:)),
                           title: title, pid: pid, handle: .x11(window.rawValue))
        // Kept only if no property changed while we read: the event is queued already.
        recent[window] = found
        return .success(Observation(window: found))
    }

    // MARK: Hiding

    /// ICCCM's `WM_STATE` value of an iconified window.
    static let iconicState: UInt32 = 3

    /// ICCCM iconify: a `WM_CHANGE_STATE` ClientMessage with IconicState to
    /// the root, which the window manager takes (openbox, xfwm4, and KWin and
    /// mutter on X11 do); then waits, up to the reply timeout, until the
    /// window manager says it did (`WM_STATE` Iconic). A window manager
    /// that ignores the request (some tiling ones) fails it.
    public func hide(_ window: Window) -> HideResult {
        guard case let .x11(id)? = window.handle else {
            return .failed("\(window.app) was not read from an X server (it has no X window id)")
        }
        let c: XConnection
        switch connected() {
        case let .success(connection): c = connection
        case let .failure(failure): return .failed(failure.message)
        }
        let target = XWindow(rawValue: id)
        // Iconified, it is no longer in front: the next sample looks again.
        defer {
            _ = drainPending(c)
            forgetAsked(c)
            cached = nil
        }
        c.sendToWindowManager(about: target, type: atoms.wmChangeState, data: [Self.iconicState])
        // The window manager gets as long as a reply may take; each look, its own reply timeout.
        let patience = Deadline(atNs: MonotonicClock.nowNs + replyTimeoutNs)
        while true {
            let look = c.requestProperty(target, atoms.wmState, maxBytes: 8)
            switch c.reply(look, deadline: Deadline(atNs: MonotonicClock.nowNs + replyTimeoutNs)) {
            case let .success(state) where state?.uint32Values.first == Self.iconicState:
                return .hidden
            case .success:
                break
            case .failure(.protocolError(XRequestFailure.badWindow)):
                return .failed("window \(target) (\(window.app)) is gone")
            case let .failure(failure):
                return .failed(fail(failure).message)
            }
            guard !patience.hasPassed else {
                return .failed("the window manager did not iconify \(window.app) within \(replyTimeoutNs / 1_000_000) ms "
                    + "(it may not take ICCCM's WM_CHANGE_STATE requests)")
            }
            usleep(5_000)                      // the window manager acts on its own time
        }
    }
}

extension Result {
    fileprivate var failure: Failure? {
        if case let .failure(f) = self { return f }
        return nil
    }
}
