/// How the person's locale writes times, weekdays and short dates (LC_TIME), read from
/// glibc's locale data by the installed catalog. (blocker shows no decimals.)
public struct LocaleConventions: Sendable, Equatable {
    /// `14:35` (most of Europe) or `2:35 PM` (en_US).
    public var uses24HourClock: Bool
    public var amPM: (am: String, pm: String)
    /// Monday … Sunday, abbreviated: `Mon`, `lun.`, `ma`.
    public var weekdayAbbreviations: [String]
    /// A short date without its year: `02/06` (day first: most of Europe) or `06-02`.
    public var dayBeforeMonth: Bool
    public var dateSeparator: String

    public init(uses24HourClock: Bool, amPM: (am: String, pm: String), weekdayAbbreviations: [String],
                dayBeforeMonth: Bool = false, dateSeparator: String = "-") {
        self.uses24HourClock = uses24HourClock
        self.amPM = amPM
        self.dayBeforeMonth = dayBeforeMonth
        self.dateSeparator = dateSeparator
        self.weekdayAbbreviations = weekdayAbbreviations
    }

    /// The C locale: what blocker wrote before it spoke other languages.
    public static let c = LocaleConventions(uses24HourClock: true, amPM: ("AM", "PM"),
                                            weekdayAbbreviations: ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"])

    public static func == (a: LocaleConventions, b: LocaleConventions) -> Bool {
        a.uses24HourClock == b.uses24HourClock && a.amPM == b.amPM && a.weekdayAbbreviations == b.weekdayAbbreviations
            && a.dayBeforeMonth == b.dayBeforeMonth && a.dateSeparator == b.dateSeparator
    }
}
