import Glibc

/// The two clocks a tick is stamped with.
public enum Clocks {
    /// CLOCK_MONOTONIC in ms: elapsed time, stops during suspend.
    public static var monotonic: Int64 { read(CLOCK_MONOTONIC) }
    /// CLOCK_REALTIME in ms (unix time): where the tick is on the calendar.
    public static var wall: Int64 { read(CLOCK_REALTIME) }

    private static func read(_ clock: clockid_t) -> Int64 {
        var t = timespec()
        clock_gettime(clock, &t)
        return Int64(t.tv_sec) * 1000 + Int64(t.tv_nsec) / 1_000_000
    }
}
