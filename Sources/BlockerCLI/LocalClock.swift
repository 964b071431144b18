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
        let time = ClockText.hoursMinutes(secondOfDay: second)
        if date == today { return time + label }
        if date == today.adding(days: 1) { return "tomorrow " + time + label }
        return "\(date) \(time)\(label)"
    }

    /// "14:35:07", for `probe --watch` lines.
    func timeOfDay(_ ms: Int64) -> String {
        ClockText.hoursMinutesSeconds(secondOfDay: zone.local(atMs: ms).secondOfDay)
    }
}
