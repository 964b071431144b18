/// Whether a cover is really drawn while a shield is up. A shield is only a
/// decision: what stops the app is a cover on screen, and the user can stop
/// blocker-overlay (`systemctl --user stop`, SIGTERM). So blockerd follows
/// its cover clients: blocker-overlay says when it has drawn and hidden its
/// cover (`CoverShown`), a shell plugin owning `io.github.blockerd.Cover`
/// draws whenever a shield is up, and each is checked to be the program it
/// claims (`CoverProgram`). Pure: the daemon passes CLOCK_MONOTONIC's time.
public struct CoverSupervisor: Sendable, Equatable {
    /// How long a cover client has to draw after a shield goes up, or after
    /// it (or blockerd) starts: GTK maps a window in well under a second,
    /// even on a loaded machine.
    public static let grace: Milliseconds = .seconds(3)

    /// One blocker-overlay process on the bus, by its unique name.
    public struct Client: Sendable, Equatable {
        public var pid: Int32
        public var drawn: Bool
    }

    /// What covers the app under the shield now.
    public enum Coverage: Sendable, Equatable {
        /// No shield is up: nothing to cover.
        case noShield
        /// A cover is on screen, drawn by this program.
        case drawn(by: String)
        /// A cover client is expected to draw by this instant.
        case awaiting(until: MonotonicInstant)
        /// Nothing is drawn: the app under the shield can be used.
        case missing
    }

    public private(set) var clients: [String: Client] = [:]
    /// The shell whose plugin draws the cover (`gnome-shell`), nil when none does.
    public private(set) var shell: String?
    /// When the shield went up; nil while it is down.
    public private(set) var shieldSince: MonotonicInstant?
    /// When a cover client last arrived, or blockerd started: a client gets
    /// the grace from then (a restarted blockerd, a restarted overlay).
    private var arrivedAt: MonotonicInstant
    private let startedAt: MonotonicInstant

    public init(startedAt: MonotonicInstant) {
        self.startedAt = startedAt
        arrivedAt = startedAt
    }

    /// The processes whose windows are the cover (`OverlayFilter`).
    public var coverPIDs: Set<Int32> { Set(clients.values.map(\.pid)) }

    public mutating func shieldChanged(up: Bool, at now: MonotonicInstant) {
        if up {
            if shieldSince == nil { shieldSince = now }
        } else {
            shieldSince = nil
        }
    }

    /// A checked blocker-overlay said it has drawn (true) or hidden (false) its cover.
    public mutating func clientReported(_ name: String, pid: Int32, drawn: Bool, at now: MonotonicInstant) {
        if clients[name] == nil { arrivedAt = now }
        clients[name] = Client(pid: pid, drawn: drawn)
    }

    /// Its connection closed: it stopped, crashed or was killed.
    public mutating func clientLeft(_ name: String) {
        clients[name] = nil
    }

    /// A checked shell owns `io.github.blockerd.Cover` (its name), or nobody checked does (nil).
    public mutating func shellChanged(_ shell: String?) {
        self.shell = shell
    }

    public func coverage(at now: MonotonicInstant) -> Coverage {
        guard let shieldSince else { return .noShield }
        if let shell { return .drawn(by: shell) }
        if clients.values.contains(where: \.drawn) { return .drawn(by: OverlayIdentity.name) }
        // Someone is there to draw it (or may be: blockerd just started and
        // the overlay has not found it yet): it has the grace to do so.
        let expecting = !clients.isEmpty || now < startedAt + Self.grace
        let deadline = max(shieldSince, arrivedAt) + Self.grace
        return expecting && now < deadline ? .awaiting(until: deadline) : .missing
    }

    /// Whether the app under a shield is hidden now (or will be within the grace).
    public func isCovered(at now: MonotonicInstant) -> Bool {
        coverage(at: now) != .missing
    }
}
