#if canImport(Glibc)
import Glibc
#endif

/// The local calendar day of an instant, in the system time zone (TZ or
/// /etc/localtime, as libc sees it).
enum LocalDay {
    /// `YYYY-MM-DD`.
    static func of(unixMs: Int64) -> String {
        // Floor, not truncate: 1 ms before the epoch is still 1969-12-31.
        var seconds = time_t(unixMs >= 0 ? unixMs / 1000 : (unixMs - 999) / 1000)
        var parts = tm()
        tzset()  // localtime_r need not read TZ by itself
        guard localtime_r(&seconds, &parts) != nil else { return PendingWrites.undatedDay }
        func pad(_ n: Int32, _ width: Int) -> String {
            let digits = String(n)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))"
    }
}
