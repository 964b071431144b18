import BlockerCore

/// Instants shown as local wall time.
struct LocalClock {
    let zone: TimeZoneRules
    /// Appended to times when the zone is a stand-in (" UTC").
    var label = ""

    /// "14:35" today, "tomorrow 14:35", else "2025-06-03 14:35".
    func describe(_ ms: Int64, now: Int64) -> String {
        let (date, second) = zone.local(atMs: ms)
        let today = zone.localDate(atMs: now)
        let time = Self.hoursMinutes(second)
        if date == today { return time + label }
        if date == today.adding(days: 1) { return "tomorrow " + time + label }
        return "\(date) \(time)\(label)"
    }

    /// "14:35:07", for `probe --watch` lines.
    func timeOfDay(_ ms: Int64) -> String {
        let second = zone.local(atMs: ms).secondOfDay
        return Self.hoursMinutes(second) + ":" + Self.two(second % 60)
    }

    private static func hoursMinutes(_ secondOfDay: Int) -> String {
        two(secondOfDay / 3600) + ":" + two(secondOfDay / 60 % 60)
    }

    private static func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
}
