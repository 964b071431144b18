import BlockerCore
import BlockerSystem
import BlockerSystemd
import Glibc

/// Whether anyone is looking, as the session (not the display server) tells it.
public struct SessionState: Equatable, Sendable {
    /// nil: nobody could tell (no logind, no screen saver service).
    public var locked: Bool?
    /// Time since logind's idle hint went up; nil when not idle or unknown.
    public var idle: Milliseconds?
    /// When `locked` rests only on sources that do not vouch for themselves
    /// (logind's LockedHint; a screen saver service no known locker owns):
    /// who says so (see `Reading.lockClaim`).
    public var lockClaim: String?

    public init(locked: Bool? = nil, idle: Milliseconds? = nil, lockClaim: String? = nil) {
        self.locked = locked
        self.idle = idle
        self.lockClaim = lockClaim
    }
}

/// Screen lock and idle beyond X11: logind's `LockedHint`/`IdleHint` for our
/// session on the system bus, and `org.freedesktop.ScreenSaver` on the
/// session bus when a desktop provides it. A source that is missing is not
/// an error, only unknown; `unavailableReason` says why.
///
/// Each source is asked once (logind: find the session, then `GetAll`; the
/// screen saver: `GetActive`) and then followed by its signals
/// (`PropertiesChanged`, `ActiveChanged`), so a sample costs no bus round
/// trip. The signals arrive as the connections are processed: by the
/// `EventLoop` given to `attach(to:)` in blockerd, otherwise by `read()`
/// itself, which dispatches whatever is queued without waiting.
public final class SessionLock {
    /// Sources that could not answer are asked again after this long, not every sample.
    public static let retryAfterNs: UInt64 = 10_000_000_000
    /// A service that does not answer within this long is treated as missing.
    static let callTimeoutUs: UInt64 = 500_000

    private let logind: LogindSession
    private let screenSaver: ScreenSaver

    /// Called when a signal changed a cached lock answer, from inside the
    /// bus's dispatch: schedule a fresh sample from it, do not `read()` there.
    public var onChange: (() -> Void)? {
        didSet {
            logind.changed = { [weak self] in self?.onChange?() }
            screenSaver.changed = { [weak self] in self?.onChange?() }
        }
    }

    /// Why part of the answer is unknown ("logind: …; screensaver: …"), nil
    /// when every source answered. Meant to be logged once per change.
    public var unavailableReason: String? {
        let parts = [logind.problem.map { "logind: \($0)" }, screenSaver.problem.map { "screensaver: \($0)" }]
            .compactMap { $0 }
        return parts.isEmpty ? nil : parts.joined(separator: "; ")
    }

    /// How many times the screen saver was asked `GetActive` (tests).
    var screenSaverQueries: Int { screenSaver.queries }

    /// Reads the bus addresses and session id from `environment`
    /// (`DBUS_SYSTEM_BUS_ADDRESS`, `DBUS_SESSION_BUS_ADDRESS` or
    /// `XDG_RUNTIME_DIR/bus`, `XDG_SESSION_ID`); connects on first use.
    /// `retryAfterNs`: how long a source that failed waits before it is asked again.
    public init(environment: [String: String], retryAfterNs: UInt64 = SessionLock.retryAfterNs) {
        logind = LogindSession(address: BusAddress.system(environment: environment),
                               sessionID: environment["XDG_SESSION_ID"].flatMap { $0.isEmpty ? nil : $0 })
        screenSaver = ScreenSaver(address: BusAddress.session(environment: environment), retryAfterNs: retryAfterNs)
    }

    /// Lets `loop` process the connections, now and after any reconnection;
    /// `read()` then only looks at what the signals left. A connection that
    /// cannot join is still processed by `read()`.
    public func attach(to loop: EventLoop) throws(SystemdError) {
        var failure: SystemdError?
        for link in [logind.link, screenSaver.link].compactMap({ $0 }) {
            do { try link.attach(to: loop) } catch { failure = failure ?? error }
        }
        if let failure { throw failure }
    }

    /// What every source that is there says; locked when any says so. The
    /// lock is only a claim unless a known screen locker's service says it.
    public func read() -> SessionState {
        logind.link.dispatch()
        screenSaver.link?.dispatch()
        let now = UInt64(MonotonicClock.nowNs)
        let session = logind.answer(now: now)
        let saverActive = screenSaver.answer(now: now)
        let lockedAnswers = [session?.locked, saverActive].compactMap { $0 }
        var claims: [String] = []
        if session?.locked == true { claims.append("logind's LockedHint") }
        if saverActive == true {
            switch screenSaver.ownerExecutable {
            case let owner? where ScreenLockers.vouches(executablePath: owner.path, ownerUID: owner.ownerUID, mode: owner.mode):
                claims = []
            case let owner?: claims.append("\(ScreenSaver.name) (owned by \(owner.path))")
            case nil: claims.append("\(ScreenSaver.name) (owner unknown)")
            }
        }
        let vouched = saverActive == true && claims.isEmpty
        return SessionState(locked: lockedAnswers.isEmpty ? nil : lockedAnswers.contains(true),
                            idle: session?.idle, lockClaim: vouched || claims.isEmpty ? nil : claims.joined(separator: " and "))
    }
}

/// Why a source cannot answer, as `unavailableReason` shows it.
private struct Problem: Error {
    var text: String
    /// The service has no owner and cannot be started.
    var nobodyProvides = false
    init(_ text: String) { self.text = text }
}

/// A lazily opened bus connection, processed by a loop once attached, else by `dispatch()`.
private final class BusLink {
    let address: String
    let busName: String
    private(set) var connection: BusConnection?
    private weak var loop: EventLoop?
    private var attached = false

    init(address: String, busName: String) {
        self.address = address
        self.busName = busName
    }

    func attach(to loop: EventLoop) throws(SystemdError) {
        self.loop = loop
        if let connection, !attached {
            try connection.attach(to: loop)
            attached = true
        }
    }

    /// Outside a loop: runs the handlers of whatever arrived, without waiting.
    func dispatch() {
        guard let connection, !attached else { return }
        // A failure closes the connection, which the next answer notices (`droppedClosed`).
        try? connection.processPending()
    }

    /// The open connection, connecting (and joining the loop) first if there is none.
    func open() throws(Problem) -> BusConnection {
        if let connection { return connection }
        let opened: BusConnection
        do { opened = try BusConnection(address: address) } catch {
            throw Problem("cannot connect to the \(busName) at \(address): \(error)")
        }
        connection = opened
        attached = false
        if let loop {
            // Not fatal: `dispatch()` processes an unattached connection on each read.
            attached = (try? opened.attach(to: loop)) != nil
        }
        return opened
    }

    /// Whether the connection broke (the bus daemon went away); it is then forgotten.
    func droppedClosed() -> Bool {
        guard let connection, !connection.isOpen else { return false }
        self.connection = nil
        return true
    }
}

/// Our logind session: found and read once, then followed by `PropertiesChanged`.
private final class LogindSession {
    static let login1 = "org.freedesktop.login1"
    static let managerPath = "/org/freedesktop/login1"
    static let manager = "org.freedesktop.login1.Manager"
    static let session = "org.freedesktop.login1.Session"
    static let properties: Set<String> = ["LockedHint", "IdleHint", "IdleSinceHintMonotonic"]

    let link: BusLink
    let sessionID: String?
    var changed: () -> Void = {}
    private(set) var problem: String?
    private var retryAt: UInt64 = 0

    private var ownerWatch: BusSubscription?
    private var propertiesWatch: BusSubscription?
    /// nil until the session is found (and after logind left).
    private var path: String?
    private var locked = false
    private var idleHint = false
    private var idleSinceUs: UInt64 = 0
    /// PropertiesChanged invalidated one of ours: read them again.
    private var stale = false

    init(address: String, sessionID: String?) {
        link = BusLink(address: address, busName: "system bus")
        self.sessionID = sessionID
    }

    func answer(now: UInt64) -> (locked: Bool, idle: Milliseconds?)? {
        if link.droppedClosed() {
            forget()
            ownerWatch = nil
            retryAt = 0
        }
        if path == nil {
            guard now >= retryAt else { return nil }
            do throws(Problem) { try find() } catch {
                giveUp(error.text, now: now)
                return nil
            }
        } else if stale, let path {
            do throws(Problem) { try readProperties(path) } catch {
                giveUp(error.text, now: now)
                return nil
            }
        }
        var idle: Milliseconds?
        // The monotonic twin is immune to wall-clock jumps; 0 means "not recorded".
        let nowUs = now / 1000
        if idleHint && idleSinceUs > 0 && idleSinceUs <= nowUs { idle = Milliseconds((nowUs - idleSinceUs) / 1000) }
        return (locked, idle)
    }

    /// Watches logind's name, finds the session, follows its properties, reads them.
    private func find() throws(Problem) {
        let bus = try link.open()
        if ownerWatch == nil {
            do {
                ownerWatch = try bus.watchOwner(of: Self.login1) { [weak self] owner in self?.ownerChanged(owner) }
            } catch {
                throw Problem("cannot watch \(Self.login1) on the system bus: \(error)")
            }
        }
        let found = try findSession(bus)
        propertiesWatch = nil
        do {
            propertiesWatch = try bus.onPropertiesChanged(sender: Self.login1, path: found, interface: Self.session) {
                [weak self] change in self?.apply(change)
            }
        } catch {
            throw Problem("cannot follow \(found): \(error)")
        }
        path = found
        try readProperties(found)
    }

    /// Our session's object: from `XDG_SESSION_ID`, else the session this
    /// process belongs to, else (a user service is in no session) the user's
    /// display session, which logind names "auto".
    private func findSession(_ bus: BusConnection) throws(Problem) -> String {
        do throws(BusCallError) {
            if let sessionID { return try getSession(bus, "GetSession", .string(sessionID)) }
            do { return try getSession(bus, "GetSessionByPID", .uint32(UInt32(getpid()))) } catch {
                return try getSession(bus, "GetSession", .string("auto"))
            }
        } catch {
            let which = sessionID.map { "session \($0)" } ?? "a session for this process or user"
            throw Problem("cannot find \(which): \(error)")
        }
    }

    private func getSession(_ bus: BusConnection, _ member: String, _ argument: BusValue) throws(BusCallError) -> String {
        let call = try bus.methodCall(destination: Self.login1, path: Self.managerPath, interface: Self.manager,
                                      member: member, autoStart: true)
        do throws(SystemdError) { try call.append(argument) } catch { throw .system(error) }
        let reply = try bus.call(call, timeoutMicroseconds: SessionLock.callTimeoutUs)
        do throws(SystemdError) { return try reply.readObjectPath() } catch { throw .system(error) }
    }

    private func readProperties(_ path: String) throws(Problem) {
        guard let bus = link.connection else { throw Problem("cannot read \(path): not connected") }
        let values: [String: BusValue]
        do {
            values = try bus.allProperties(destination: Self.login1, path: path, interface: Self.session,
                                           timeoutMicroseconds: SessionLock.callTimeoutUs, autoStart: true)
        } catch {
            throw Problem("cannot read \(path): \(error)")
        }
        guard case let .bool(lockedHint)? = values["LockedHint"] else {
            throw Problem("cannot read \(path): it has no LockedHint")
        }
        locked = lockedHint
        if case let .bool(hint)? = values["IdleHint"] { idleHint = hint } else { idleHint = false }
        if case let .uint64(since)? = values["IdleSinceHintMonotonic"] { idleSinceUs = since } else { idleSinceUs = 0 }
        stale = false
        problem = nil
    }

    /// PropertiesChanged of our session.
    private func apply(_ change: BusProperties.Change) {
        guard path != nil, change.interface == Self.session else { return }
        var lockChanged = false
        if case let .bool(value)? = change.changed["LockedHint"] {
            lockChanged = value != locked
            locked = value
        }
        if case let .bool(value)? = change.changed["IdleHint"] { idleHint = value }
        if case let .uint64(value)? = change.changed["IdleSinceHintMonotonic"] { idleSinceUs = value }
        if change.invalidated.contains(where: Self.properties.contains) {
            stale = true
            lockChanged = lockChanged || change.invalidated.contains("LockedHint")
        }
        if lockChanged { changed() }
    }

    /// logind left or restarted: its objects went with it, so find the session again on the next read.
    private func ownerChanged(_ owner: String) {
        let hadAnswer = path != nil
        forget()
        retryAt = 0
        problem = owner.isEmpty ? "\(Self.login1) left the system bus" : nil
        if hadAnswer { changed() }
    }

    private func forget() {
        // The subscription itself is replaced by the next `find()`, outside any bus callback.
        path = nil
        stale = false
    }

    private func giveUp(_ text: String, now: UInt64) {
        problem = text
        retryAt = now + SessionLock.retryAfterNs
        forget()
        propertiesWatch = nil
    }
}

/// `org.freedesktop.ScreenSaver`: `GetActive` once, then `ActiveChanged(b)`.
private final class ScreenSaver {
    static let name = "org.freedesktop.ScreenSaver"
    static let path = "/org/freedesktop/ScreenSaver"

    let link: BusLink?
    var changed: () -> Void = {}
    private(set) var problem: String?
    private let retryAfterNs: UInt64
    private var retryAt: UInt64 = 0
    private var watches: [BusSubscription] = []
    /// nil until GetActive (or an ActiveChanged) answered, and after the service left.
    private var active: Bool?
    private(set) var queries = 0
    /// The name's owner's executable, read when it says active; nil: not known.
    private(set) var ownerExecutable: ProcessExecutable?
    private var ownerRead = false

    init(address: String?, retryAfterNs: UInt64) {
        self.retryAfterNs = retryAfterNs
        link = address.map { BusLink(address: $0, busName: "session bus") }
        if address == nil { problem = "no session bus (DBUS_SESSION_BUS_ADDRESS is not set)" }
    }

    func answer(now: UInt64) -> Bool? {
        guard let link else { return nil }
        if link.droppedClosed() {
            watches = []
            active = nil
            retryAt = 0
        }
        if active == nil {
            guard now >= retryAt else { return nil }
            do throws(Problem) { try query(link) } catch {
                problem = error.text
                // Most desktops have no screen saver service (ServiceUnknown):
                // the owner watch says when one comes, so no asking meanwhile.
                retryAt = error.nobodyProvides && !watches.isEmpty ? .max : now + retryAfterNs
                return nil
            }
        }
        // Who says so decides whether it is believed: read once per owner.
        if active == true, !ownerRead, let bus = link.connection {
            ownerRead = true
            ownerExecutable = bus.ownerPID(of: Self.name).flatMap(ProcessExecutable.of(pid:))
        }
        return active
    }

    private func query(_ link: BusLink) throws(Problem) {
        let bus = try link.open()
        if watches.isEmpty {
            do {
                // Kept while the connection lives: they cost nothing while nobody provides the service.
                watches = [
                    try bus.watchOwner(of: Self.name) { [weak self] owner in self?.ownerChanged(owner) },
                    try bus.subscribe(BusMatchRule(sender: Self.name, interface: Self.name, member: "ActiveChanged")) {
                        [weak self] message in
                        if let value = try? message.readBool() { self?.activeChanged(value) }
                    },
                ]
            } catch {
                throw Problem("cannot follow \(Self.name): \(error)")
            }
        }
        do throws(BusCallError) {
            let call = try bus.methodCall(destination: Self.name, path: Self.path, interface: Self.name,
                                          member: "GetActive", autoStart: true)
            queries += 1
            let reply = try bus.call(call, timeoutMicroseconds: SessionLock.callTimeoutUs)
            do throws(SystemdError) { active = try reply.readBool() } catch { throw .system(error) }
            problem = nil
        } catch {
            var problem = Problem("\(Self.name).GetActive failed: \(error)")
            if case let .reply(reply) = error, reply.name == "org.freedesktop.DBus.Error.ServiceUnknown" {
                problem.nobodyProvides = true
            }
            throw problem
        }
    }

    private func activeChanged(_ value: Bool) {
        let old = active
        active = value
        problem = nil
        if old != value { changed() }
    }

    private func ownerChanged(_ owner: String) {
        let old = active
        active = nil
        ownerRead = false
        ownerExecutable = nil
        retryAt = 0
        problem = owner.isEmpty ? "\(Self.name) left the session bus" : nil
        if old == true { changed() }
    }
}

/// Any probe, plus what the session knows: locked when either says so, idle
/// the smaller of the two (whichever saw input last is right).
public final class LockAwareProbe: ForegroundProbe {
    public let inner: ForegroundProbe
    public let session: SessionLock

    public init(_ inner: ForegroundProbe, session: SessionLock) {
        self.inner = inner
        self.session = session
    }

    public var name: String { inner.name }
    public var eventDescriptor: Int32? { inner.eventDescriptor }
    public var eventGeneration: Int { inner.eventGeneration }
    public func drainEvents() { inner.drainEvents() }
    public func drainEventsMayHaveChanged() -> Bool { inner.drainEventsMayHaveChanged() }
    public func shutdown() { inner.shutdown() }
    public var pidUnavailable: String? { inner.pidUnavailable }
    public var eventBurstUs: UInt64 { inner.eventBurstUs }
    public var nextCheckMs: Int64? { inner.nextCheckMs }
    public func check() { inner.check() }

    public func sample() -> Result<Reading, ProbeFailure> {
        // A failed sample debits nothing anyway: no need to ask the session.
        inner.sample().map { reading in
            var merged = Self.merge(reading, session.read())
            // A lock to check: the display server's input idle is evidence.
            if merged.lockClaim != nil, merged.idle == nil { merged.idle = inner.inputIdle() }
            return merged
        }
    }

    public func inputIdle() -> Milliseconds? { inner.inputIdle() }

    static func merge(_ reading: Reading, _ state: SessionState) -> Reading {
        var merged = reading
        merged.locked = reading.locked || state.locked == true
        // The probe's own lock (the X server's screen saver, the shell) needs no check.
        if !reading.locked { merged.lockClaim = state.locked == true ? state.lockClaim : nil }
        switch (reading.idle, state.idle) {
        case let (a?, b?): merged.idle = min(a, b)
        case let (a, b): merged.idle = a ?? b
        }
        return merged
    }
}
