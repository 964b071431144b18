/// What the overlay and notifications say about a shield, in words.
public enum ShieldText {
    /// "Out of earned time", "Bedtime until 07:00", "Daily limit for social
    /// reached", "Blocked until 14:35", "Opened 5 times today: the limit for
    /// social", "Take a breath" (the pause cover adds the app and the
    /// countdown). `until` is shown in local time; one more than a day away
    /// says the day too ("Blocked until Fri 09:00"). `opensPerDay` is the
    /// group's cap, for `opens-cap` (without it the words name no number).
    public static func reason(_ reason: ShieldReason, group: String?, until: WallInstant?, now: WallInstant,
                              zone: TimeZoneRules, opensPerDay: Int? = nil) -> String {
        let when = until.map { " until " + clock($0, now: now, zone: zone) } ?? ""
        let forGroup = group.map { " for \($0)" } ?? ""
        switch reason {
        case .balance: return "Out of earned time"
        case .schedule: return "Bedtime" + when
        case .dailyLimit: return "Daily limit" + forGroup + " reached"
        case .timedBlock: return "Blocked" + when
        case .opensCap:
            // The capped open is the one after the N-th: the N opens are the day's.
            guard let opensPerDay else { return "Opens" + forGroup + " used up today" }
            return "Opened \(opensPerDay) \(opensPerDay == 1 ? "time" : "times") today: the limit" + forGroup
        case .pause: return "Take a breath"
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
