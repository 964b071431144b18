/// When to try connecting again after a failure: `initial` after the
/// first, doubling after each further one up to `cap`, so a server that
/// comes back is found soon and one that stays away costs a connect every
/// `cap` at most, never a spin. Pure: the caller passes the time
/// (`MonotonicClock.now`).
public struct ReconnectBackoff: Equatable, Sendable {
    public let initial: Milliseconds
    public let cap: Milliseconds
    private var delay: Milliseconds = 0
    private var notBefore: MonotonicInstant?

    public init(initial: Milliseconds, cap: Milliseconds) {
        self.initial = initial
        self.cap = cap
    }

    /// How long until the next attempt is allowed (0: now).
    public func wait(now: MonotonicInstant) -> Milliseconds {
        notBefore.map { max(0, $0 - now) } ?? 0
    }

    public mutating func failed(now: MonotonicInstant) {
        delay = delay == 0 ? initial : min(cap, delay * 2)
        notBefore = now + delay
    }

    public mutating func succeeded() {
        delay = 0
        notBefore = nil
    }
}

/// A connection kept up with a `ReconnectBackoff`: the one place for the
/// "connect if due" that every event-driven probe needs (sway, Hyprland, the
/// shells' bus, X11, wlroots, the streaming command). It holds the
/// connection, counts the connections made (`generation`: the daemon
/// watches the new descriptor, which may reuse the old one's number) and
/// the attempts, and remembers why there is none (`downBecause`). How a
/// connection is made and closed, and the words of a failure, stay with
/// the caller. A class, so `connect` may read its owner's other state.
public final class Reconnecting<Connection> {
    /// What a `connectIfDue` came to.
    public enum Attempt<Failure: Error> {
        /// Up: already, or connected just now.
        case connected(Connection)
        /// The backoff after a failure has not run out: this much more (why: `downBecause`).
        case waiting(Milliseconds)
        /// Tried now and failed; the backoff is longer.
        case failed(Failure)
    }

    public private(set) var connection: Connection?
    /// Connections made so far; bumped by each one.
    public private(set) var generation = 0
    /// Connections tried so far (tests: a missing server costs no spin).
    public private(set) var attempts = 0
    /// Why there is no connection: the last failure, or why it was dropped.
    public private(set) var downBecause: String
    private var backoff: ReconnectBackoff

    public init(initial: Milliseconds, cap: Milliseconds, downBecause: String = "") {
        backoff = ReconnectBackoff(initial: initial, cap: cap)
        self.downBecause = downBecause
    }

    public var isConnected: Bool { connection != nil }

    /// How long until the next attempt is allowed (0: now).
    public func wait(now: MonotonicInstant) -> Milliseconds { backoff.wait(now: now) }

    /// The connection; or, when none, a new one from `connect` unless the
    /// backoff says wait. A failure is remembered (`describe`) and backed off from `now`.
    public func connectIfDue<Failure: Error>(now: MonotonicInstant, describe: (Failure) -> String = { "\($0)" },
                                             _ connect: () throws(Failure) -> Connection) -> Attempt<Failure> {
        if let connection { return .connected(connection) }
        let wait = backoff.wait(now: now)
        if wait > 0 { return .waiting(wait) }
        attempts += 1
        do {
            let made = try connect()
            connection = made
            generation += 1
            backoff.succeeded()
            return .connected(made)
        } catch {
            downBecause = describe(error)
            backoff.failed(now: now)
            return .failed(error)
        }
    }

    /// Forgets the connection (returned, for the caller to close) because of
    /// `reason`. With `now`, the next attempt waits for the backoff (a server
    /// that drops us at once is not reconnected in a spin); without, the
    /// next `connectIfDue` tries at once (a server that restarted).
    @discardableResult
    public func drop(because reason: String, backingOffAt now: MonotonicInstant? = nil) -> Connection? {
        let dropped = connection
        connection = nil
        downBecause = reason
        if let now { backoff.failed(now: now) }
        return dropped
    }

    /// Changes the connection in place (a buffer it holds), when there is one.
    public func update(_ body: (inout Connection) -> Void) {
        guard var current = connection else { return }
        connection = nil
        body(&current)
        connection = current
    }
}
