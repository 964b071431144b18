import Glibc

/// CLOCK_MONOTONIC: elapsed time for deadlines and durations. It never jumps
/// when the wall clock is set, and stops while the machine is suspended.
public enum MonotonicClock {
    public static var now: MonotonicInstant { MonotonicInstant(ms: nowNs / 1_000_000) }
    /// Nanoseconds: finer than an instant, for a wait's deadline and for measuring.
    public static var nowNs: Int64 { nanoseconds(CLOCK_MONOTONIC) }
    /// Microseconds: sd-event's and sd-bus's unit, for that edge only.
    public static var nowUs: Int64 { nowNs / 1000 }
}

/// CLOCK_BOOTTIME: CLOCK_MONOTONIC plus the time spent suspended. Compared
/// with it, it tells a suspend (only this one ran) from a stall (both ran).
public enum BoottimeClock {
    public static var now: BoottimeInstant { BoottimeInstant(ms: nanoseconds(CLOCK_BOOTTIME) / 1_000_000) }
}

/// CLOCK_REALTIME: where now is on the calendar.
public enum WallClock {
    /// Unix time.
    public static var now: WallInstant { WallInstant(ms: nanoseconds(CLOCK_REALTIME) / 1_000_000) }
}

/// CLOCK_PROCESS_CPUTIME_ID: CPU time this process has used, all threads
/// (children not included: see getrusage(RUSAGE_CHILDREN)).
public enum ProcessCPUClock {
    public static var nowNs: Int64 { nanoseconds(CLOCK_PROCESS_CPUTIME_ID) }
    public static var nowUs: Int64 { nowNs / 1000 }
}

private func nanoseconds(_ clock: clockid_t) -> Int64 {
    var t = timespec()
    // Fails only for an unknown clock id; these four always exist on Linux.
    clock_gettime(clock, &t)
    return Int64(t.tv_sec) * 1_000_000_000 + Int64(t.tv_nsec)
}
