/// When to try connecting again after a failure: `initialMs` after the
/// first, doubling after each further one up to `capMs`, so a server that
/// comes back is found soon and one that stays away costs a connect every
/// `capMs` at most, never a spin. Pure: the caller passes the time
/// (`MonotonicClock.nowMs`).
public struct ReconnectBackoff: Equatable, Sendable {
    public let initialMs: Int64
    public let capMs: Int64
    private var delayMs: Int64 = 0
    private var notBeforeMs: Int64 = 0

    public init(initialMs: Int64, capMs: Int64) {
        self.initialMs = initialMs
        self.capMs = capMs
    }

    /// Milliseconds until the next attempt is allowed (0: now).
    public func waitMs(now: Int64) -> Int64 { max(0, notBeforeMs - now) }

    public mutating func failed(now: Int64) {
        delayMs = delayMs == 0 ? initialMs : min(capMs, delayMs * 2)
        notBeforeMs = now + delayMs
    }

    public mutating func succeeded() {
        delayMs = 0
        notBeforeMs = 0
    }
}
