/// Times of day and weekdays as blocker writes them: the one place for each.
public enum ClockText {
    /// `14:35` for a second of the local day (`24:00` for the end of one).
    public static func hoursMinutes(secondOfDay: Int) -> String {
        zeroPadded(secondOfDay / 3600, width: 2) + ":" + zeroPadded(secondOfDay / 60 % 60, width: 2)
    }

    /// `14:35:07` for a second of the local day.
    public static func hoursMinutesSeconds(secondOfDay: Int) -> String {
        hoursMinutes(secondOfDay: secondOfDay) + ":" + zeroPadded(secondOfDay % 60, width: 2)
    }
}

extension CivilDate {
    /// `Mon` … `Sun`: the weekday's English abbreviation.
    public var weekdayName: String { Self.weekdayName(isoWeekday: isoWeekday) }

    /// The name of ISO weekday 1 (Monday) … 7 (Sunday).
    public static func weekdayName(isoWeekday: Int) -> String { weekdayNames[isoWeekday - 1] }

    private static let weekdayNames = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
}
