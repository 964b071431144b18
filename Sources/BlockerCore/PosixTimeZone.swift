// POSIX `TZ` strings (`CET-1CEST,M3.5.0,M10.5.0/3`): the rules and their parser.

/// A POSIX `TZ` rule: a standard time and optionally a daylight time with yearly start and end rules.
struct PosixTimeZone: Sendable, Equatable {
    struct Daylight: Sendable, Equatable {
        var type: LocalTimeType
        /// In standard local time.
        var start: YearlyRule
        /// In daylight local time.
        var end: YearlyRule
    }

    /// A day of the year and a local time of that day (possibly negative or past 24 hours).
    struct YearlyRule: Sendable, Equatable {
        enum Day: Sendable, Equatable {
            /// `Jn`: 1…365, February 29 never counted.
            case julianSkippingLeapDay(Int)
            /// `n`: 0…365, February 29 counted.
            case zeroBasedDayOfYear(Int)
            /// `Mm.w.d`: weekday `d` (0 = Sunday) of week `w` (5 = last) of month `m`.
            case monthWeekDay(month: Int, week: Int, weekday: Int)
        }
        var day: Day
        var secondOfDay: Int64

        /// Days since 1970-01-01 of the rule's day in `year`.
        func daysSinceEpoch(in year: Int) -> Int64 {
            let january1 = CivilDate(year: year, month: 1, day: 1).daysSinceEpoch
            switch day {
            case .julianSkippingLeapDay(let n):
                return january1 + Int64(n - 1) + (CivilDate.isLeap(year: year) && n >= 60 ? 1 : 0)
            case .zeroBasedDayOfYear(let n):
                return january1 + Int64(n)
            case .monthWeekDay(let month, let week, let weekday):
                let first = CivilDate(year: year, month: month, day: 1).daysSinceEpoch
                let weekdayOfFirst = floorModulo(first + 4, 7)   // 0 = Sunday; 1970-01-01 was a Thursday
                var offset = floorModulo(Int64(weekday) - weekdayOfFirst, 7) + Int64(week - 1) * 7
                let length = Int64(CivilDate.daysIn(month: month, year: year))
                while offset >= length { offset -= 7 }
                return first + offset
            }
        }
    }

    var standard: LocalTimeType
    var daylight: Daylight?

    /// Instants this far from 1970 (about 35 million years) are treated as the limit, so the
    /// calendar arithmetic below cannot overflow.
    private static let limit: Int64 = 1 << 50

    func localTimeType(at seconds: Int64) -> LocalTimeType {
        guard let daylight else { return standard }
        let t = min(max(seconds, -Self.limit), Self.limit)
        // The latest change at or before t, looking at the neighbouring years too: a rule time may
        // be negative or past 24 hours, and a southern zone's daylight time spans the new year.
        // At equal instants the start wins, so a zone on daylight time all year stays on it.
        // (No arrays: this runs for every offset lookup past the table.)
        let year = CivilDate(daysSinceEpoch: floorDivide(t, 86_400)).year
        var latest = Int64.min
        var isDaylight = false
        for y in (year - 1)...(year + 1) {
            let (start, end) = changes(inYear: y, daylight)
            if end <= t, end > latest { (latest, isDaylight) = (end, false) }
            if start <= t, start >= latest { (latest, isDaylight) = (start, true) }
        }
        return isDaylight ? daylight.type : standard
    }

    func transitions(from low: Int64, through high: Int64) -> [Int64] {
        guard let daylight, low <= high else { return [] }
        let (low, high) = (max(low, -Self.limit), min(high, Self.limit))
        var result: [Int64] = []
        var year = CivilDate(daysSinceEpoch: floorDivide(low, 86_400)).year - 1
        let lastYear = CivilDate(daysSinceEpoch: floorDivide(high, 86_400)).year + 1
        while year <= lastYear {
            let (start, end) = changes(inYear: year, daylight)
            result += [start, end].filter { $0 >= low && $0 <= high }
            year += 1
        }
        return result.sorted()
    }

    /// The instants daylight time starts and ends in `year` by the rules.
    private func changes(inYear year: Int, _ daylight: Daylight) -> (start: Int64, end: Int64) {
        let start = daylight.start.daysSinceEpoch(in: year) * 86_400 + daylight.start.secondOfDay
            - Int64(standard.utcOffset)
        let end = daylight.end.daysSinceEpoch(in: year) * 86_400 + daylight.end.secondOfDay
            - Int64(daylight.type.utcOffset)
        return (start, end)
    }
}

extension PosixTimeZone {
    init(parsing text: String) throws(TimeZoneError) {
        var parser = PosixParser(text: text)
        let standardName = try parser.name()
        let standardOffset = try parser.signedTime(maxHours: 24, what: "standard offset")
        standard = LocalTimeType(utcOffset: Int32(-standardOffset), isDaylightSaving: false,
                                 abbreviation: standardName)
        guard !parser.atEnd else { daylight = nil; return }
        let daylightName = try parser.name()
        var daylightOffset = standardOffset - 3600   // one hour ahead unless said otherwise
        if let next = parser.peek, next != UInt8(ascii: ",") {
            daylightOffset = try parser.signedTime(maxHours: 24, what: "daylight offset")
        }
        let type = LocalTimeType(utcOffset: Int32(-daylightOffset), isDaylightSaving: true,
                                 abbreviation: daylightName)
        guard !parser.atEnd else {
            daylight = Daylight(type: type,
                                start: YearlyRule(day: .monthWeekDay(month: 3, week: 2, weekday: 0), secondOfDay: 7200),
                                end: YearlyRule(day: .monthWeekDay(month: 11, week: 1, weekday: 0), secondOfDay: 7200))
            return
        }
        try parser.expect(",")
        let start = try parser.yearlyRule()
        try parser.expect(",")
        let end = try parser.yearlyRule()
        guard parser.atEnd else { throw parser.error("unexpected text after the end rule") }
        daylight = Daylight(type: type, start: start, end: end)
    }
}

private struct PosixParser {
    let text: String
    let bytes: [UInt8]
    var index = 0

    init(text: String) {
        self.text = text
        bytes = Array(text.utf8)
    }

    var atEnd: Bool { index == bytes.count }
    var peek: UInt8? { atEnd ? nil : bytes[index] }

    func error(_ reason: String) -> TimeZoneError {
        TimeZoneError("\"\(text)\" is not a POSIX TZ string (at character \(index + 1): \(reason))")
    }

    mutating func expect(_ character: Unicode.Scalar) throws(TimeZoneError) {
        guard peek == UInt8(ascii: character) else { throw error("expected \"\(character)\"") }
        index += 1
    }

    /// `EST` (three or more letters) or `<+0530>` (three or more letters, digits, `+`, `-`).
    mutating func name() throws(TimeZoneError) -> String {
        let start = index
        let name: ArraySlice<UInt8>
        if peek == UInt8(ascii: "<") {
            index += 1
            let inner = index
            while let c = peek, isLetter(c) || isDigit(c) || c == UInt8(ascii: "+") || c == UInt8(ascii: "-") {
                index += 1
            }
            name = bytes[inner..<index]
            try expect(">")
        } else {
            while let c = peek, isLetter(c) { index += 1 }
            name = bytes[start..<index]
        }
        guard name.count >= 3 else { index = start; throw error("expected a zone name of at least 3 letters") }
        return String(decoding: name, as: UTF8.self)
    }

    /// `[+-]hh[:mm[:ss]]` in seconds, hours at most `maxHours`.
    mutating func signedTime(maxHours: Int64, what: String) throws(TimeZoneError) -> Int64 {
        var sign: Int64 = 1
        if peek == UInt8(ascii: "+") { index += 1 } else if peek == UInt8(ascii: "-") { sign = -1; index += 1 }
        guard let hours = number(maxDigits: 3), hours <= maxHours else { throw error("expected the \(what) in hours") }
        var seconds = hours * 3600
        for unit: Int64 in [60, 1] {
            guard peek == UInt8(ascii: ":") else { break }
            index += 1
            guard let value = number(maxDigits: 2), value <= 59 else { throw error("expected minutes or seconds 00…59") }
            seconds += value * unit
        }
        return sign * seconds
    }

    /// `Jn`, `n` or `Mm.w.d`, then an optional `/time` (default 02:00).
    mutating func yearlyRule() throws(TimeZoneError) -> PosixTimeZone.YearlyRule {
        let day: PosixTimeZone.YearlyRule.Day
        if peek == UInt8(ascii: "J") {
            index += 1
            guard let n = number(maxDigits: 3), (1...365).contains(n) else { throw error("expected J1…J365") }
            day = .julianSkippingLeapDay(Int(n))
        } else if peek == UInt8(ascii: "M") {
            index += 1
            guard let month = number(maxDigits: 2), (1...12).contains(month) else { throw error("expected a month 1…12") }
            try expect(".")
            guard let week = number(maxDigits: 1), (1...5).contains(week) else { throw error("expected a week 1…5") }
            try expect(".")
            guard let weekday = number(maxDigits: 1), (0...6).contains(weekday) else { throw error("expected a weekday 0…6") }
            day = .monthWeekDay(month: Int(month), week: Int(week), weekday: Int(weekday))
        } else {
            guard let n = number(maxDigits: 3), (0...365).contains(n) else { throw error("expected a rule (Jn, n or Mm.w.d)") }
            day = .zeroBasedDayOfYear(Int(n))
        }
        var secondOfDay: Int64 = 7200
        if peek == UInt8(ascii: "/") {
            index += 1
            secondOfDay = try signedTime(maxHours: 167, what: "rule time")
        }
        return PosixTimeZone.YearlyRule(day: day, secondOfDay: secondOfDay)
    }

    private mutating func number(maxDigits: Int) -> Int64? {
        var value: Int64 = 0
        var digits = 0
        while digits < maxDigits, let c = peek, isDigit(c) {
            value = value * 10 + Int64(c - UInt8(ascii: "0"))
            digits += 1
            index += 1
        }
        return digits == 0 ? nil : value
    }

    private func isDigit(_ c: UInt8) -> Bool { c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") }
    private func isLetter(_ c: UInt8) -> Bool {
        (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z")) || (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z"))
    }
}
