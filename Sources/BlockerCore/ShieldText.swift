/// What the overlay and notifications say about a shield, in words.
public enum ShieldText {
    /// "Out of earned time", "Bedtime until 07:00", "Daily limit for social
    /// reached", "Blocked until 14:35". `until` is shown in local time; one
    /// more than a day away says the day too ("Blocked until Fri 09:00").
    public static func reason(_ reason: ShieldReason, group: String?, until: WallInstant?, now: WallInstant,
                              zone: TimeZoneRules) -> String {
        let when = until.map { " until " + clock($0, now: now, zone: zone) } ?? ""
        switch reason {
        case .balance: return "Out of earned time"
        case .schedule: return "Bedtime" + when
        case .dailyLimit: return "Daily limit" + (group.map { " for \($0)" } ?? "") + " reached"
        case .timedBlock: return "Blocked" + when
        }
    }

    /// `14:35` within the next 24 hours, `Fri 09:00` later.
    public static func clock(_ instant: WallInstant, now: WallInstant, zone: TimeZoneRules) -> String {
        let (date, second) = zone.local(at: instant)
        let hhmm = ClockText.hoursMinutes(secondOfDay: second)
        if instant - now < .days(1) { return hhmm }
        return date.weekdayName + " " + hhmm
    }
}
