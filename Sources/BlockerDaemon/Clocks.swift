import BlockerSystem

/// The two clocks a tick is stamped with, in ms.
public enum Clocks {
    /// Elapsed time, stops during suspend.
    public static var monotonic: Int64 { MonotonicClock.nowMs }
    /// Unix time: where the tick is on the calendar.
    public static var wall: Int64 { WallClock.nowMs }
}
