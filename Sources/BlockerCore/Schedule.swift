/// A hard block window of a group: on some days, from a local wall time to
/// another (possibly past midnight), or all day. A window belongs to the day
/// it starts on.
public struct Schedule: Sendable, Equatable {
    public enum Span: Sendable, Equatable {
        case allDay
        /// Minutes after local midnight; `to <= from` means it ends the next day.
        case between(from: Int, to: Int)
    }
    public var days: Weekdays
    public var span: Span

    public init(days: Weekdays, span: Span) {
        self.days = days
        self.span = span
    }
}

/// A set of ISO weekdays (Monday first).
public struct Weekdays: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue & 0x7F }

    /// `isoWeekday`: 1 = Monday … 7 = Sunday.
    public init(isoWeekday: Int) { self.init(rawValue: 1 << UInt8(isoWeekday - 1)) }

    public static let monday = Weekdays(isoWeekday: 1)
    public static let tuesday = Weekdays(isoWeekday: 2)
    public static let wednesday = Weekdays(isoWeekday: 3)
    public static let thursday = Weekdays(isoWeekday: 4)
    public static let friday = Weekdays(isoWeekday: 5)
    public static let saturday = Weekdays(isoWeekday: 6)
    public static let sunday = Weekdays(isoWeekday: 7)
    public static let all = Weekdays(rawValue: 0x7F)

    public func contains(isoWeekday: Int) -> Bool { contains(Weekdays(isoWeekday: isoWeekday)) }

    private static let names = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
    private static let longNames = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]

    /// ISO weekday of a day name (`Mon`, `monday`, any case), or nil.
    public static func isoWeekday(named name: String) -> Int? {
        let n = name.lowercased()
        if let i = names.firstIndex(of: n) ?? longNames.firstIndex(of: n) { return i + 1 }
        return nil
    }

    /// `daily`, `weekdays`, `weekends`, `Mon-Fri`, `Sat,Sun`, `Fri-Mon` (wraps),
    /// `Mon,Wed-Fri`. Returns the first unknown word on failure.
    public static func parse(_ text: String) -> Result<Weekdays, UnknownDay> {
        switch text.lowercased().trimmingSpaces {
        case "daily", "every day", "all": return .success(.all)
        case "weekdays": return .success([.monday, .tuesday, .wednesday, .thursday, .friday])
        case "weekends", "weekend": return .success([.saturday, .sunday])
        default: break
        }
        var days: Weekdays = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let ends = part.split(separator: "-", omittingEmptySubsequences: false)
                .map { String($0).trimmingSpaces }
            guard (1...2).contains(ends.count) else { return .failure(UnknownDay(word: String(part))) }
            var numbers: [Int] = []
            for word in ends {
                guard let day = isoWeekday(named: word) else { return .failure(UnknownDay(word: word)) }
                numbers.append(day)
            }
            var day = numbers[0]
            let last = numbers.last!
            while true {
                days.insert(Weekdays(isoWeekday: day))
                if day == last { break }
                day = day % 7 + 1
            }
        }
        return .success(days)
    }

    public struct UnknownDay: Error, Equatable, Sendable {
        public let word: String
    }
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while s.first == " " || s.first == "\t" { s.removeFirst() }
        while s.last == " " || s.last == "\t" { s.removeLast() }
        return String(s)
    }
}

extension Schedule {
    /// The occurrence of this window that covers instant `t`, if any.
    /// An occurrence starts on one of `days` and may end the next day; its ends
    /// are resolved in `zone` (a wall time skipped by DST starts at the end of
    /// the gap, a repeated one at its first occurrence).
    public func occurrence(containing t: WallInstant, in zone: TimeZoneRules) -> (start: WallInstant, end: WallInstant)? {
        let date = zone.localDate(at: t)
        // Today's occurrence, or yesterday's one running past midnight.
        for startDay in [date, date.adding(days: -1)] where days.contains(isoWeekday: startDay.isoWeekday) {
            let (start, end) = bounds(startingOn: startDay, in: zone)
            if start <= t && t < end { return (start, end) }
        }
        return nil
    }

    /// The first start of this window strictly after `t`, looking up to a week
    /// and a day ahead (every window recurs within a week).
    public func nextStart(after t: WallInstant, in zone: TimeZoneRules) -> WallInstant? {
        let date = zone.localDate(at: t)
        for offset in -1...8 {
            let day = date.adding(days: offset)
            guard days.contains(isoWeekday: day.isoWeekday) else { continue }
            let start = bounds(startingOn: day, in: zone).start
            if start > t { return start }
        }
        return nil
    }

    func bounds(startingOn day: CivilDate, in zone: TimeZoneRules) -> (start: WallInstant, end: WallInstant) {
        switch span {
        case .allDay:
            return (zone.startOfDay(day), zone.startOfDay(day.adding(days: 1)))
        case let .between(from, to):
            let start = zone.instant(of: day, minuteOfDay: from)
            let end = to > from ? zone.instant(of: day, minuteOfDay: to)
                                : zone.instant(of: day.adding(days: 1), minuteOfDay: to)
            return (start, end)
        }
    }
}
