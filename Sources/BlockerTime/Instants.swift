/// Which clock an `Instant` was read from. Each kind is its own type, so an
/// instant of one clock cannot be compared with, or subtracted from, another's.
public protocol ClockKind: Sendable {}

/// CLOCK_MONOTONIC: elapsed time; stops while the machine is suspended.
public enum Monotonic: ClockKind {}
/// CLOCK_BOOTTIME: CLOCK_MONOTONIC plus the time spent suspended.
public enum Boottime: ClockKind {}
/// CLOCK_REALTIME: Unix time, on the calendar; may be set back or forward.
public enum Wall: ClockKind {}

/// A reading of `Clock` in whole milliseconds. Two readings of the same clock
/// give a duration; a duration moves a reading; nothing mixes two clocks.
/// As cheap as the `Int64` it wraps.
public struct Instant<Clock: ClockKind>: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The clock's value in ms: for the edges only (clock_gettime, SQLite, D-Bus, JSON).
    public var ms: Int64

    @inlinable public init(ms: Int64) { self.ms = ms }

    @inlinable public static func < (a: Self, b: Self) -> Bool { a.ms < b.ms }
    @inlinable public static func - (a: Self, b: Self) -> Milliseconds { Milliseconds(ms: a.ms - b.ms) }
    @inlinable public static func + (a: Self, d: Milliseconds) -> Self { Self(ms: a.ms + d.ms) }
    @inlinable public static func - (a: Self, d: Milliseconds) -> Self { Self(ms: a.ms - d.ms) }
    @inlinable public static func += (a: inout Self, d: Milliseconds) { a.ms += d.ms }

    /// Whether what is done at most once an `interval` is due at this
    /// instant, last done at `last` (nil: never): the interval has passed,
    /// or the clock went back past `last` (a wall clock set back would
    /// otherwise hold it off for as long).
    @inlinable public func isDue(every interval: Milliseconds, since last: Self?) -> Bool {
        guard let last else { return true }
        return self - last >= interval || self < last
    }

    /// The bare number of ms, as the `Int64` it replaced printed (journal
    /// fields, the ledger's hashes): the text around it says what it is.
    public var description: String { String(ms) }
}

public typealias MonotonicInstant = Instant<Monotonic>
public typealias BoottimeInstant = Instant<Boottime>
public typealias WallInstant = Instant<Wall>
