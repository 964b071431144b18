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
        // Whole sentences, one per case that names a time or a group: a translation may reorder them.
        let time = until.map { clock($0, now: now, zone: zone) }
        switch (reason, time, group) {
        case (.balance, _, _): return tr("Out of earned time")
        case let (.schedule, time?, _): return tr("Bedtime until {time}", ["time": time])
        case (.schedule, nil, _): return tr("Bedtime")
        case let (.dailyLimit, _, group?): return tr("Daily limit for {group} reached", ["group": group])
        case (.dailyLimit, _, nil): return tr("Daily limit reached")
        case let (.timedBlock, time?, _): return tr("Blocked until {time}", ["time": time])
        case (.timedBlock, nil, _): return tr("Blocked")
        case (.opensCap, _, _):
            // The capped open is the one after the N-th: the N opens are the day's.
            switch (opensPerDay, group) {
            case let (count?, group?):
                return trn("Opened {count} time today: the limit for {group}",
                           "Opened {count} times today: the limit for {group}", count: count, ["group": group])
            case let (count?, nil):
                return trn("Opened {count} time today: the limit", "Opened {count} times today: the limit", count: count)
            case let (nil, group?): return tr("Opens for {group} used up today", ["group": group])
            case (nil, nil): return tr("Opens used up today")
            }
        case (.pause, _, _): return tr("Take a breath")
        }
    }

    /// `14:35` within the next 24 hours, `Fri 09:00` later (in the locale's words and clock).
    public static func clock(_ instant: WallInstant, now: WallInstant, zone: TimeZoneRules) -> String {
        let (date, second) = zone.local(at: instant)
        let time = ClockText.localTime(secondOfDay: second)
        if instant - now < .days(1) { return time }
        // Translators: a weekday's abbreviation and a time, "Fri 09:00".
        return tr("{weekday} {time}", ["weekday": date.localWeekdayName, "time": time])
    }
}
