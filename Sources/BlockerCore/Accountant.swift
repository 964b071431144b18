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
/// A failed sample says nothing new: while the probe fails nothing is spent,
/// and when it answers again the streak is settled as if it had not failed:
/// the time from the last good sample on is charged to what that sample saw,
/// for at most `blindChargeLimit` (a probe that hangs every third call must
/// not make a third of the time free; an outage, after which the app may
/// well be gone, costs no more than a hiccup). All of it, charged or not, is
/// blind time, for the caller to record. A failure before any good sample,
/// or after one that saw nothing charged, charges nothing.
public struct Accountant: Sendable {
    /// The cap of an interval `charge(_:)` opens without one of its own.
    public let cap: Milliseconds
    /// The most of a failure streak charged to what the last good sample saw:
    /// a few failed samples in a row, never an outage.
    public static let blindChargeLimit: Milliseconds = 10_000
    private var last: (monotonic: Int64, charge: Charge?, cap: Milliseconds)?
    /// While the probe fails: when the last good sample was taken, what it saw, its cap.
    private var blind: (since: Int64, charge: Charge, cap: Milliseconds)?

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
    /// (capped) charged to what the last good sample saw, and the blind time
    /// when it ends a failure streak. After a good sample, call `charge(_:)`
    /// to say what the new interval belongs to.
    public mutating func sample(at monotonic: Int64, failed: Bool = false) -> Charged? {
        guard let open = last else {
            if !failed { last = (monotonic, nil, cap) }
            return nil
        }
        if failed {
            if blind == nil, let charge = open.charge { blind = (open.monotonic, charge, open.cap) }
            last = (monotonic, nil, open.cap)   // nothing spent until the streak is settled
            return nil
        }
        defer {
            blind = nil
            last = (monotonic, nil, cap)
        }
        if let streak = blind {
            let span = max(monotonic - streak.since, 0)
            return Charged(elapsed: min(span, max(Self.blindChargeLimit, streak.cap)), charge: streak.charge, blindMs: span)
        }
        guard let charge = open.charge, let elapsed = pending(at: monotonic)?.elapsed else { return nil }
        return Charged(elapsed: elapsed, charge: charge, blindMs: 0)
    }

    /// What a sample at `monotonic` would charge, without taking it: for a
    /// status asked between samples.
    public func pending(at monotonic: Int64) -> (elapsed: Milliseconds, charge: Charge)? {
        guard let last, let previous = last.charge else { return nil }
        let elapsed = min(max(monotonic - last.monotonic, 0), last.cap)
        return elapsed > 0 ? (elapsed, previous) : nil
    }

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
