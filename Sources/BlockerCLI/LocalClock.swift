import BlockerCore

/// Instants shown as local wall time.
struct LocalClock {
    let zone: TimeZoneRules
    /// Appended to times when the zone is a stand-in (" UTC").
    var label = ""

    /// "14:35" today, "tomorrow 14:35", else "2025-06-03 14:35".
    func describe(_ instant: WallInstant, now: WallInstant) -> String {
        let (date, second) = zone.local(at: instant)
        let today = zone.localDate(at: now)
        let time = ClockText.localTime(secondOfDay: second) + label
        if date == today { return time }
        if date == today.adding(days: 1) { return tr("tomorrow {time}", ["time": time]) }
        return "\(date) \(time)"
    }

    /// "14:35:07", for `probe --watch` lines.
    func timeOfDay(_ instant: WallInstant) -> String {
        ClockText.hoursMinutesSeconds(secondOfDay: zone.local(at: instant).secondOfDay)
    }
}
