import Glibc

/// A point on CLOCK_MONOTONIC that a wait (one exchange, one child's run)
/// must end by, with the budget it was set with for messages ("no answer
/// within 500 ms"). The one place that computes how long poll(2) may still wait.
public struct Deadline: Sendable {
    public let atNs: Int64
    public let budgetMs: Int64

    public static func after<Milliseconds: BinaryInteger>(ms: Milliseconds) -> Deadline {
        let budget = Int64(clamping: ms)
        return Deadline(atNs: MonotonicClock.nowNs + budget * 1_000_000, budgetMs: budget)
    }

    /// `atNs` on CLOCK_MONOTONIC (`MonotonicClock.nowNs`); the budget is what is left now.
    public init(atNs: Int64) {
        self.init(atNs: atNs, budgetMs: max(0, atNs - MonotonicClock.nowNs) / 1_000_000)
    }

    private init(atNs: Int64, budgetMs: Int64) {
        self.atNs = atNs
        self.budgetMs = budgetMs
    }

    /// Milliseconds left, rounded up (a wait never ends before the deadline),
    /// 0 once it has passed: what poll(2) may wait at most.
    public var remainingMs: Int32 {
        let leftNs = atNs - MonotonicClock.nowNs
        return leftNs <= 0 ? 0 : Int32(clamping: (leftNs + 999_999) / 1_000_000)
    }

    public var hasPassed: Bool { MonotonicClock.nowNs >= atNs }

    /// Waits in poll(2) until one of `descriptors` has an event, or the
    /// deadline passes; a signal (EINTR) waits again for only what is left.
    /// True when one is ready (its `revents` say how); false when the
    /// deadline passed, and at once, without polling, when it already had.
    /// An empty list just sleeps until the deadline.
    public func wait(for descriptors: inout [pollfd]) throws(Errno) -> Bool {
        while true {
            let left = remainingMs
            if left == 0 { return false }
            let ready = poll(&descriptors, nfds_t(descriptors.count), left)
            if ready > 0 { return true }
            if ready == 0 { return false }
            let code = Errno.current
            if code != .interrupted { throw code }
        }
    }

    /// `wait(for:)` for one descriptor: `events` (POLLIN by default), or its
    /// hang-up or error, before the deadline.
    public func wait(for fd: Int32, events: Int16 = Int16(POLLIN)) throws(Errno) -> Bool {
        var descriptors = [pollfd(fd: fd, events: events, revents: 0)]
        return try wait(for: &descriptors)
    }
}
