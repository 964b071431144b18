/// Times of day and weekdays as blocker writes them: the one place for each.
public enum ClockText {
    /// `14:35` for a second of the local day (`24:00` for the end of one).
    public static func hoursMinutes(secondOfDay: Int) -> String {
        zeroPadded(secondOfDay / 3600, width: 2) + ":" + zeroPadded(secondOfDay / 60 % 60, width: 2)
    }

    /// A time of day as the person's locale writes it: `14:35`, or `2:35 PM`
    /// where the locale keeps a 12-hour clock (en_US). Machine-read text uses `hoursMinutes`.
    public static func localTime(secondOfDay: Int) -> String {
        let conventions = Translations.current.conventions
        guard !conventions.uses24HourClock else { return hoursMinutes(secondOfDay: secondOfDay) }
        let hour = secondOfDay / 3600 % 24
        let twelve = hour % 12 == 0 ? 12 : hour % 12
        return "\(twelve):" + zeroPadded(secondOfDay / 60 % 60, width: 2) + " "
            + (hour < 12 ? conventions.amPM.am : conventions.amPM.pm)
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

    /// The weekday's abbreviation in the person's locale (`Mon`, `lun.`, `ma`).
    public var localWeekdayName: String { Translations.current.conventions.weekdayAbbreviations[isoWeekday - 1] }

    private static let weekdayNames = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
}
