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

/// An interval that ran past its cap while the machine was awake: blockerd's
/// loop did not run (SIGSTOP, a stall) though nothing suspended the machine.
public struct Stall: Equatable, Sendable {
    /// The time past the cap.
    public var ms: Milliseconds
    /// Whether it was charged (the same app was in front at both ends).
    public var charged: Bool
    /// What was in front at its start.
    public var app: String

    public init(ms: Milliseconds, charged: Bool, app: String) {
        self.ms = ms
        self.charged = charged
        self.app = app
    }
}

/// Turns samples stamped with a monotonic clock into charged time.
///
/// The interval between two samples is charged to what the earlier one saw
/// (event-driven probes sample on every focus change, so that is what was in
/// front), and never more than the cap the earlier sample set, unless it was
/// a stall. A polled probe's cap is a little over its poll interval; an
/// event-driven probe's is the daemon's heartbeat while charging plus that
/// margin, since nothing it has not been told about can change in between.
/// Count time, never ticks.
///
/// Past the cap, CLOCK_BOOTTIME tells a suspend from a stall: it runs on
/// during a suspend, CLOCK_MONOTONIC does not. A suspend keeps the cap
/// (usage cannot outrun what the probe could see); a stall (SIGSTOP, a hung
/// loop: both clocks ran) with the same app in front at both ends is charged
/// whole, so stopping blockerd buys nothing. A stall across a change of
/// window keeps the cap, and is returned so that it can be recorded.
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
    /// More than this between the two clocks' advance is a suspend, not drift.
    public static let suspendToleranceMs: Milliseconds = 500
    private var last: (monotonic: MonotonicInstant, boottime: BoottimeInstant?, charge: Charge?, cap: Milliseconds)?
    /// While the probe fails: when the last good sample was taken, what it saw, its cap.
    private var blind: (since: MonotonicInstant, charge: Charge, cap: Milliseconds)?

    /// What one sample charges: `elapsed` to `charge`, and of the interval it
    /// closes, `blindMs` the probe could not answer for (0 between two good
    /// samples), and whether it was a stall.
    public struct Charged: Equatable, Sendable {
        public var elapsed: Milliseconds
        public var charge: Charge
        public var blindMs: Milliseconds
        public var stall: Stall? = nil
    }

    public init(cap: Milliseconds) {
        self.cap = cap
    }

    /// Records a sample taken at `monotonic` (and `boottime`, when
    /// known: without it a stall cannot be told from a suspend, and the cap
    /// holds) and returns the elapsed time (capped) charged to what the last
    /// good sample saw, and the blind time when it ends a failure streak.
    /// `stillInFront`: this sample sees what the open interval was charged
    /// to, so a stall between them is charged. After a good sample, call
    /// `charge(_:)` to say what the new interval belongs to.
    public mutating func sample(at monotonic: MonotonicInstant, boottime: BoottimeInstant? = nil, failed: Bool = false,
                                stillInFront: Bool = false) -> Charged? {
        guard let open = last else {
            if !failed { last = (monotonic, boottime, nil, cap) }
            return nil
        }
        if failed {
            if blind == nil, let charge = open.charge { blind = (open.monotonic, charge, open.cap) }
            last = (monotonic, boottime, nil, open.cap)   // nothing spent until the streak is settled
            return nil
        }
        defer {
            blind = nil
            last = (monotonic, boottime, nil, cap)
        }
        if let streak = blind {
            let span = max(monotonic - streak.since, 0)
            return Charged(elapsed: min(span, max(Self.blindChargeLimit, streak.cap)), charge: streak.charge, blindMs: span)
        }
        guard let charge = open.charge, let elapsed = pending(at: monotonic)?.elapsed else { return nil }
        let awake = monotonic - open.monotonic
        guard awake > elapsed, let boottime, let before = open.boottime,
              boottime - before - awake <= Self.suspendToleranceMs else { return Charged(elapsed: elapsed, charge: charge, blindMs: 0) }
        let stall = Stall(ms: awake - elapsed, charged: stillInFront, app: charge.app)
        return Charged(elapsed: stillInFront ? awake : elapsed, charge: charge, blindMs: 0, stall: stall)
    }

    /// What a sample at `monotonic` would charge, without taking it: for a
    /// status asked between samples.
    public func pending(at monotonic: MonotonicInstant) -> (elapsed: Milliseconds, charge: Charge)? {
        guard let last, let previous = last.charge else { return nil }
        let elapsed = min(max(monotonic - last.monotonic, 0), last.cap)
        return elapsed > 0 ? (elapsed, previous) : nil
    }

    /// What the time from the latest sample to the next belongs to: nil when
    /// nothing is charged (no window, locked, idle, shielded, in no group);
    /// `cap` when the next sample may come later than a poll (an event-driven probe).
    public mutating func charge(_ charge: Charge?, cap: Milliseconds? = nil) {
        if let last { self.last = (last.monotonic, last.boottime, charge, cap ?? self.cap) }
    }

    /// What the interval open since the last sample is charged to, if anything.
    public var openCharge: Charge? { last?.charge }

    /// When the interval open since the last sample began, and its cap.
    public var openSince: (monotonic: MonotonicInstant, cap: Milliseconds)? { last.map { ($0.monotonic, $0.cap) } }

    /// The monotonic instant the balance reaches zero if what is in front now
    /// stays there: nil when nothing metered is being charged.
    public func zeroInstant(balance: Milliseconds) -> MonotonicInstant? {
        instant(balance: balance, reaches: 0)
    }

    /// The monotonic instant a balance above `level` comes down to it if what
    /// is in front now stays there: nil when nothing metered is being charged.
    public func instant(balance: Milliseconds, reaches level: Milliseconds) -> MonotonicInstant? {
        guard let last, let charge = last.charge, charge.metered, balance > level else { return nil }
        return last.monotonic + (balance - level)
    }

    /// The same open interval under a new cap (a reload may change the poll interval).
    public func withCap(_ cap: Milliseconds) -> Accountant {
        var copy = Accountant(cap: cap)
        copy.last = last.map { ($0.monotonic, $0.boottime, $0.charge, max($0.cap - self.cap, 0) + cap) }
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
