/// What the time until the next sample is charged to: the window in front was
/// in these groups, unshielded, with someone looking.
public struct Charge: Equatable, Sendable {
    public var app: String
    public var groups: [String]
    public var metered: Bool
    /// A shield was up but no cover was drawn (`CoverSupervisor`): the app
    /// could be used, so the time is charged, and recorded as uncovered.
    public var uncovered: Bool

    public init(app: String, groups: [String], metered: Bool, uncovered: Bool = false) {
        self.app = app
        self.groups = groups
        self.metered = metered
        self.uncovered = uncovered
    }
}

/// Turns samples stamped with a monotonic clock into charged time.
///
/// The interval between two samples is charged to what the earlier one saw
/// (event-driven probes sample on every focus change, so that is what was in
/// front), and never more than the cap the earlier sample set: CLOCK_MONOTONIC stops during suspend, and a stalled loop
/// or SIGSTOP must not debit more than the probe could have seen. A polled
/// probe's cap is a little over its poll interval; an event-driven probe's is
/// the daemon's heartbeat while charging plus that margin, since nothing it
/// has not been told about can change in between. Count time, never ticks.
///
/// A failed sample says nothing new, so it changes nothing: the time from the
/// last good sample on stays charged to what that sample saw, for at most
/// `blindChargeLimit` per failure streak (a probe that hangs every third
/// call must not make a third of the time free), and all of it, charged or
/// not, is blind time: the caller records it. A failure before any good
/// sample charges nothing.
public struct Accountant: Sendable {
    /// The cap of an interval `charge(_:)` opens without one of its own.
    public let cap: Milliseconds
    /// The most of a failure streak charged to what the last good sample saw:
    /// a few failed samples in a row, never an outage.
    public static let blindChargeLimit: Milliseconds = 10_000
    private var last: (monotonic: Int64, charge: Charge?, cap: Milliseconds)?
    /// While the probe fails: when the last good sample was taken and what it saw.
    private var blind: (since: Int64, charge: Charge)?

    /// What one sample charges: `elapsed` to `charge`, and of the interval it
    /// closes, `blindMs` the probe could not answer for (0 between two good samples).
    public struct Charged: Equatable, Sendable {
        public var elapsed: Milliseconds
        public var charge: Charge
        public var blindMs: Milliseconds
    }

    public init(cap: Milliseconds) {
        self.cap = cap
    }

    /// Records a sample taken at `monotonic` ms and returns the elapsed time
    /// (capped) charged to what the last good sample saw, and the blind time.
    /// After a good sample, call `charge(_:)` to say what the new interval belongs to.
    public mutating func sample(at monotonic: Int64, failed: Bool = false) -> Charged? {
        guard let open = last else {
            if !failed { last = (monotonic, nil, cap) }
            return nil
        }
        let streak = blind ?? (failed ? open.charge.map { (open.monotonic, $0) } : nil)
        let elapsed = chargeable(until: monotonic, streakSince: streak?.since)
        let blindMs = streak == nil ? 0 : max(monotonic - open.monotonic, 0)
        let charged = (streak?.charge ?? open.charge).map { Charged(elapsed: elapsed, charge: $0, blindMs: blindMs) }
        if failed {
            blind = streak
            // Past the limit the streak is only recorded: nothing is spent any more.
            let spending = streak.map { monotonic < $0.since + blindLimit(open.cap) } ?? false
            last = (monotonic, spending ? streak?.charge : nil, open.cap)
        } else {
            blind = nil
            last = (monotonic, nil, cap)
        }
        return charged.flatMap { $0.elapsed > 0 || $0.blindMs > 0 ? $0 : nil }
    }

    /// What a sample at `monotonic` would charge, without taking it: for a
    /// status asked between samples.
    public func pending(at monotonic: Int64) -> (elapsed: Milliseconds, charge: Charge)? {
        guard let last, let previous = last.charge else { return nil }
        let elapsed = chargeable(until: monotonic, streakSince: blind?.since)
        return elapsed > 0 ? (elapsed, previous) : nil
    }

    /// The part of the open interval, up to `monotonic`, that may be charged:
    /// the cap after a good sample, `blindChargeLimit` from the streak's start in a failure streak.
    private func chargeable(until monotonic: Int64, streakSince: Int64?) -> Milliseconds {
        guard let last else { return 0 }
        let end = streakSince.map { min(monotonic, $0 + blindLimit(last.cap)) } ?? min(monotonic, last.monotonic + last.cap)
        return max(end - last.monotonic, 0)
    }

    /// A streak is charged at least as long as the good sample before it could have been.
    private func blindLimit(_ cap: Milliseconds) -> Milliseconds { max(Self.blindChargeLimit, cap) }

    /// What the time from the latest sample to the next belongs to: nil when
    /// nothing is charged (no window, locked, idle, shielded, in no group);
    /// `cap` when the next sample may come later than a poll (an event-driven probe).
    public mutating func charge(_ charge: Charge?, cap: Milliseconds? = nil) {
        if let monotonic = last?.monotonic { last = (monotonic, charge, cap ?? self.cap) }
    }

    /// What the interval open since the last sample is charged to, if anything.
    public var openCharge: Charge? { last?.charge }

    /// The monotonic instant the balance reaches zero if what is in front now
    /// stays there: nil when nothing metered is being charged.
    public func zeroInstant(balance: Milliseconds) -> Int64? {
        instant(balance: balance, reaches: 0)
    }

    /// The monotonic instant a balance above `level` comes down to it if what
    /// is in front now stays there: nil when nothing metered is being charged.
    public func instant(balance: Milliseconds, reaches level: Milliseconds) -> Int64? {
        guard let last, let charge = last.charge, charge.metered, balance > level else { return nil }
        return last.monotonic + balance - level
    }

    /// The same open interval under a new cap (a reload may change the poll interval).
    public func withCap(_ cap: Milliseconds) -> Accountant {
        var copy = Accountant(cap: cap)
        copy.last = last.map { ($0.monotonic, $0.charge, max($0.cap - self.cap, 0) + cap) }
        copy.blind = blind
        return copy
    }

    /// Forget the last sample (after a reload or a resume, the next sample starts afresh).
    public mutating func reset() {
        last = nil
        blind = nil
    }
}

/// Thresholds (`[warn] before`) that a value crossed going down from `old` to `new`:
/// each T with old > T ≥ new, largest first.
public func thresholdsCrossed(from old: Milliseconds, to new: Milliseconds,
                              thresholds: [Milliseconds]) -> [Milliseconds] {
    guard new < old else { return [] }
    return thresholds.filter { old > $0 && $0 >= new }.sorted(by: >)
}
