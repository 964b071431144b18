/// Unguarded time: the part of a gap (blockerd not running) spent in a
/// graphical session. logind keeps no history, so the only sessions blockerd
/// can see are the ones that exist when it starts again; a session that
/// existed during the gap and ended before the start cannot be seen. The
/// unguarded part of a gap is therefore a suffix of it: from the earliest
/// start of a graphical session alive now (or the gap's start, if later)
/// to the gap's end.
public enum Unguarded {
    /// Where the unguarded part of the gap `from..<to` begins, given the
    /// creation instants of the graphical sessions alive at `to`; `to`
    /// (nothing unguarded) when there are none or all began after the gap.
    public static func since(gapFrom: WallInstant, gapTo: WallInstant, sessionStarts: [WallInstant]) -> WallInstant {
        guard let earliest = sessionStarts.min(), gapTo > gapFrom else { return max(gapFrom, gapTo) }
        return min(gapTo, max(gapFrom, earliest))
    }

    /// The length of the overlap of `a` and `b` (0 when they do not meet).
    public static func overlap(_ a: Range<WallInstant>, _ b: Range<WallInstant>) -> Milliseconds {
        max(0, min(a.upperBound, b.upperBound) - max(a.lowerBound, b.lowerBound))
    }

    /// The unguarded time of the gap's part `part`, given where the
    /// gap's unguarded suffix begins (nil: unknown, nil out).
    public static func within(_ part: Range<WallInstant>, gapTo: WallInstant, unguardedSince: WallInstant?) -> Milliseconds? {
        guard let since = unguardedSince else { return nil }
        guard gapTo > since else { return 0 }
        return overlap(part, since..<gapTo)
    }

    /// logind's session `Type` and `Class` of a session a person sits in
    /// front of (not a tty, ssh or the greeter); `State` "closing" is a
    /// session already logged out of, whose end logind does not say.
    public static func isGraphical(type: String, sessionClass: String, state: String) -> Bool {
        ["x11", "wayland", "mir"].contains(type) && sessionClass == "user" && state != "closing"
    }
}

/// A stretch with no blockerd running: from one run's end (or its last noted
/// tick) to the next start, and why the run ended. The ledger makes
/// them (`Gap.between`), `GapsEx` carries them, history draws them.
public struct Gap: Equatable, Sendable {
    public var from: WallInstant
    public var to: WallInstant
    public var reason: String
    /// Unguarded from here to `to` (`Unguarded.since`); nil: unknown. On
    /// the wire (GapsEx) -1 is unknown.
    public var unguardedSince: WallInstant?

    public init(from: WallInstant, to: WallInstant, reason: String, unguardedSince: WallInstant? = nil) {
        self.from = from
        self.to = to
        self.reason = reason
        self.unguardedSince = unguardedSince
    }

    /// The unguarded time; nil: unknown.
    public var unguarded: Milliseconds? { unguardedSince.map { max(0, to - max(from, $0)) } }

    public static let unknown = "unknown: killed with SIGKILL, crashed or power lost; from the last tick it noted"

    /// A blind stretch (blockerd ran, its probe could not see) travels as a
    /// gap whose reason starts with this, so every reader of gaps (history,
    /// report, an older blockerctl) shows it without a new D-Bus method.
    public static let blindPrefix = "probe blind: "

    /// The reason of a blind stretch whose probe failed with `why`.
    public static func blind(_ why: String) -> String { blindPrefix + why }

    /// What made the probe blind, from a gap's `reason`; nil for a gap of blockerd's own.
    public static func blindReason(_ reason: String) -> String? {
        reason.hasPrefix(blindPrefix) ? String(reason.dropFirst(blindPrefix.count)) : nil
    }
}
