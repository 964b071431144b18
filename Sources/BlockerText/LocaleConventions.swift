/// How the person's locale writes times and weekdays (LC_TIME), read from
/// glibc's locale data by the installed catalog. (blocker shows no decimals.)
public struct LocaleConventions: Sendable, Equatable {
    /// `14:35` (most of Europe) or `2:35 PM` (en_US).
    public var uses24HourClock: Bool
    public var amPM: (am: String, pm: String)
    /// Monday … Sunday, abbreviated: `Mon`, `lun.`, `ma`.
    public var weekdayAbbreviations: [String]

    public init(uses24HourClock: Bool, amPM: (am: String, pm: String), weekdayAbbreviations: [String]) {
        self.uses24HourClock = uses24HourClock
        self.amPM = amPM
        self.weekdayAbbreviations = weekdayAbbreviations
    }

    /// The C locale: what blocker wrote before it spoke other languages.
    public static let c = LocaleConventions(uses24HourClock: true, amPM: ("AM", "PM"),
                                            weekdayAbbreviations: ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"])

    public static func == (a: LocaleConventions, b: LocaleConventions) -> Bool {
        a.uses24HourClock == b.uses24HourClock && a.amPM == b.amPM && a.weekdayAbbreviations == b.weekdayAbbreviations
    }
}
