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

    /// The session variable it reads (logind's session); the unit helper and
    /// the README import it beside the probes' (`ProbeListsTests`).
    public static let sessionVariable = "XDG_SESSION_ID"

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
                               sessionID: environment[Self.sessionVariable].flatMap { $0.isEmpty ? nil : $0 })
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
struct SessionSourceProblem: Error {
    var text: String
    /// The service has no owner and cannot be started.
    var nobodyProvides = false
    init(_ text: String) { self.text = text }
}

/// A lazily opened bus connection, processed by a loop once attached, else by `dispatch()`.
final class BusLink {
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
    func open() throws(SessionSourceProblem) -> BusConnection {
        if let connection { return connection }
        let opened: BusConnection
        do { opened = try BusConnection(address: address) } catch {
            throw SessionSourceProblem("cannot connect to the \(busName) at \(address): \(error)")
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
