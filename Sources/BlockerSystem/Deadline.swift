import Glibc

/// A point on CLOCK_MONOTONIC that a wait (one exchange, one child's run)
/// must end by, with the budget it was set with for messages ("no answer
/// within 500 ms"). The one place that computes how long poll(2) may still wait.
public struct Deadline: Sendable {
    /// On CLOCK_MONOTONIC in ns (`MonotonicClock.nowNs`): finer than an instant,
    /// so a 1 ms budget is 1 ms, not up to 2.
    public let atNs: Int64
    public let budget: Milliseconds

    public static func after(_ budget: Milliseconds) -> Deadline {
        let (budgetNs, tooLong) = budget.ms.multipliedReportingOverflow(by: 1_000_000)
        let (at, pastEnd) = MonotonicClock.nowNs.addingReportingOverflow(budgetNs)
        return Deadline(atNs: tooLong || pastEnd ? .max : at, budget: budget)
    }

    /// `atNs` on CLOCK_MONOTONIC (`MonotonicClock.nowNs`); the budget is what is left now.
    public init(atNs: Int64) {
        self.init(atNs: atNs, budget: Milliseconds(ms: max(0, atNs - MonotonicClock.nowNs) / 1_000_000))
    }

    private init(atNs: Int64, budget: Milliseconds) {
        self.atNs = atNs
        self.budget = budget
    }

    /// Milliseconds left, rounded up (a wait never ends before the deadline),
    /// 0 once it has passed: what poll(2) may wait at most, as poll takes it.
    public var pollTimeout: Int32 {
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
            let left = pollTimeout
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
