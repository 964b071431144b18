/// A length of time in whole milliseconds — the ledger's money, a poll
/// interval, a grace — never floating point. Its own type, so the compiler
/// refuses to mix it with a count, a µs value or an instant (`Instant`):
/// a bare number becomes a duration only as a literal or through `.ms`,
/// at an edge (SQLite, D-Bus, JSON, a C call). As cheap as the `Int64` it wraps.
public struct Milliseconds: Hashable, Comparable, Sendable, AdditiveArithmetic,
    ExpressibleByIntegerLiteral, CustomStringConvertible {
    /// The length in ms: for the edges only.
    public var ms: Int64

    @inlinable public init(ms: Int64) { self.ms = ms }
    @inlinable public init(integerLiteral value: Int64) { ms = value }

    @inlinable public static func seconds(_ n: Int64) -> Self { Self(ms: n * 1000) }
    @inlinable public static func minutes(_ n: Int64) -> Self { Self(ms: n * 60_000) }
    @inlinable public static func hours(_ n: Int64) -> Self { Self(ms: n * 3_600_000) }
    @inlinable public static func days(_ n: Int64) -> Self { Self(ms: n * 86_400_000) }

    public static let zero: Self = 0
    public static let max = Self(ms: .max)
    public static let min = Self(ms: .min)

    /// Whole seconds, truncated toward zero.
    @inlinable public var seconds: Int64 { ms / 1000 }
    /// For a rate or a chart, never for the ledger.
    @inlinable public var secondsValue: Double { Double(ms) / 1000 }

    @inlinable public static func < (a: Self, b: Self) -> Bool { a.ms < b.ms }
    @inlinable public static func + (a: Self, b: Self) -> Self { Self(ms: a.ms + b.ms) }
    @inlinable public static func - (a: Self, b: Self) -> Self { Self(ms: a.ms - b.ms) }
    @inlinable public static prefix func - (a: Self) -> Self { Self(ms: -a.ms) }
    @inlinable public static func * (a: Self, n: Int64) -> Self { Self(ms: a.ms * n) }
    // Disfavoured, so `10 * 60_000` where a duration is wanted is 10 ms × 60000, not ambiguous.
    @_disfavoredOverload
    @inlinable public static func * (n: Int64, a: Self) -> Self { Self(ms: n * a.ms) }
    /// A share of a duration, truncated toward zero.
    @inlinable public static func / (a: Self, n: Int64) -> Self { Self(ms: a.ms / n) }
    /// How many whole `unit`s fit in this length, truncated toward zero
    /// (a method, not `/`, so `d / 2` can only mean half of `d`).
    @inlinable public func count(of unit: Self) -> Int64 { ms / unit.ms }
    /// What is left of `a` after whole `b`s.
    @inlinable public static func % (a: Self, b: Self) -> Self { Self(ms: a.ms % b.ms) }

    /// The bare number, as the `Int64` it replaced printed: the text around
    /// it names the unit ("within \(timeout) ms"); `DurationText` words it for a person.
    public var description: String { String(ms) }
}
