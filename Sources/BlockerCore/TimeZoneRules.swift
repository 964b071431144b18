/// Why a time zone could not be loaded; `description` is the message a person sees.
public struct TimeZoneError: Error, CustomStringConvertible, Sendable, Equatable {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// The rules of one time zone: when its UTC offset changes and to what.
///
/// Parsed from a TZif file (RFC 8536, what `/usr/share/zoneinfo` holds) or a POSIX
/// `TZ` string, in pure Swift, so several zones can be used and tested in one process
/// without touching the process-wide `TZ`. Leap-second records ("right/" zones) are ignored:
/// the clock we are given is POSIX time.
public struct TimeZoneRules: Sendable {
    public let identifier: String
    /// Unix seconds, strictly ascending.
    let transitionTimes: [Int64]
    /// The local time type in effect from `transitionTimes[i]` on.
    let transitionTypes: [LocalTimeType]
    /// In effect before the first transition (TZif time type 0).
    let initialType: LocalTimeType
    /// Rules for instants at or after the last transition (the TZif footer), or for all instants.
    let rule: PosixTimeZone?

    public static let utc = TimeZoneRules(
        identifier: "UTC", transitionTimes: [], transitionTypes: [],
        initialType: LocalTimeType(utcOffset: 0, isDaylightSaving: false, abbreviation: "UTC"), rule: nil)

    init(identifier: String, transitionTimes: [Int64], transitionTypes: [LocalTimeType],
         initialType: LocalTimeType, rule: PosixTimeZone?) {
        self.identifier = identifier
        self.transitionTimes = transitionTimes
        self.transitionTypes = transitionTypes
        self.initialType = initialType
        self.rule = rule
    }

    /// Reads a TZif file of version 1, 2, 3 or 4. With version 2 or later the 64-bit data
    /// is used and the footer's POSIX string covers instants after the last transition.
    public init(identifier: String, tzif: [UInt8]) throws(TimeZoneError) {
        var reader = TZifReader(bytes: tzif, identifier: identifier)
        let first = try reader.header()
        let block: TZifReader.Block
        var footer: PosixTimeZone? = nil
        if first.version >= 2 {
            try reader.skip(first.dataLength(timeSize: 4))
            let second = try reader.header()
            block = try reader.dataBlock(second, timeSize: 8)
            footer = try reader.footer()
        } else {
            block = try reader.dataBlock(first, timeSize: 4)
        }
        self.init(identifier: identifier, transitionTimes: block.times,
                  transitionTypes: block.typeIndices.map { block.types[Int($0)] },
                  initialType: block.types[0], rule: footer)
    }

    /// A POSIX `TZ` string: `UTC0`, `EST5EDT,M3.2.0,M11.1.0`, `CET-1CEST,M3.5.0,M10.5.0/3`,
    /// `<+0530>-5:30`, rules in the `Jn`, `n` and `Mm.w.d` forms, rule times from -167 to 167 hours.
    /// A daylight name without rules gets the US rules (`M3.2.0,M11.1.0`), as tzcode does.
    public init(posix: String) throws(TimeZoneError) {
        let rule = try PosixTimeZone(parsing: posix)
        self.init(identifier: posix, transitionTimes: [], transitionTypes: [],
                  initialType: rule.standard, rule: rule)
    }

    /// Seconds east of UTC in effect at `atUnixSeconds`.
    public func utcOffset(atUnixSeconds seconds: Int64) -> Int32 {
        localTimeType(atUnixSeconds: seconds).utcOffset
    }

    /// The abbreviation in effect (`CEST`, `EST`, `+0530`), as `date +%Z` prints it.
    public func abbreviation(atUnixSeconds seconds: Int64) -> String {
        localTimeType(atUnixSeconds: seconds).abbreviation
    }

    /// Local date and second of the day (0…86399) at an instant; instants before 1970 round
    /// down to the second, like every other instant.
    public func local(atMs ms: Int64) -> (date: CivilDate, secondOfDay: Int) {
        let seconds = floorDivide(ms, 1000)
        let wall = seconds + Int64(utcOffset(atUnixSeconds: seconds))
        let days = floorDivide(wall, 86_400)
        return (CivilDate(daysSinceEpoch: days), Int(wall - days * 86_400))
    }

    public func localDate(atMs ms: Int64) -> CivilDate {
        local(atMs: ms).date
    }

    /// The first instant (unix ms) whose local wall time is at or after `minuteOfDay` on `date`:
    /// a wall time skipped by a spring-forward gap resolves to the end of the gap (the transition instant);
    /// a wall time that happens twice resolves to its FIRST occurrence.
    ///
    /// `minuteOfDay` is 0…1439, or 1440 for midnight at the end of `date`.
    public func instant(of date: CivilDate, minuteOfDay: Int) -> Int64 {
        // Wall time is t + offset(t): increasing between transitions, jumping at them. So the least t
        // with wall(t) ≥ target is either the start of a constant-offset piece or target - offset
        // for the offset of some piece. Offsets are under 26 hours, so ±2 days holds every answer.
        let target = date.daysSinceEpoch * 86_400 + Int64(minuteOfDay) * 60
        let window: Int64 = 2 * 86_400
        let (low, high) = (target - window, target + window)
        var best = high   // wall(high) ≥ target always holds
        for pieceStart in [low] + transitions(from: low, through: high) {
            let offset = Int64(utcOffset(atUnixSeconds: pieceStart))
            for candidate in [pieceStart, target - offset]
            where candidate >= low && candidate < best
                && candidate + Int64(utcOffset(atUnixSeconds: candidate)) >= target {
                best = candidate
            }
        }
        return best * 1000
    }

    /// The instant local `date` begins: `instant(of: date, minuteOfDay: 0)`.
    public func startOfDay(_ date: CivilDate) -> Int64 {
        instant(of: date, minuteOfDay: 0)
    }

    func localTimeType(atUnixSeconds seconds: Int64) -> LocalTimeType {
        guard let last = transitionTimes.last else { return rule?.localTimeType(at: seconds) ?? initialType }
        if seconds >= last, let rule { return rule.localTimeType(at: seconds) }
        let count = transitionCount(through: seconds)
        return count == 0 ? initialType : transitionTypes[count - 1]
    }

    /// The instants in `from...through` where the offset may change (some change only the name).
    func transitions(from low: Int64, through high: Int64) -> [Int64] {
        var result: [Int64] = []
        var index = transitionCount(through: low - 1)
        while index < transitionTimes.count, transitionTimes[index] <= high {
            result.append(transitionTimes[index])
            index += 1
        }
        if let rule {
            let tableEnd = transitionTimes.last ?? .min
            if high > tableEnd {
                result += rule.transitions(from: max(low, tableEnd), through: high).filter { $0 > tableEnd }
            }
        }
        return result
    }

    /// How many transitions happen at or before `seconds`.
    private func transitionCount(through seconds: Int64) -> Int {
        var (low, high) = (0, transitionTimes.count)
        while low < high {
            let middle = (low + high) / 2
            if transitionTimes[middle] <= seconds { low = middle + 1 } else { high = middle }
        }
        return low
    }
}

/// One row of a zone's table: an offset, whether it is daylight saving time, and its name.
struct LocalTimeType: Sendable, Equatable {
    var utcOffset: Int32
    var isDaylightSaving: Bool
    var abbreviation: String
}

// MARK: - POSIX TZ strings

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

// MARK: - TZif (RFC 8536)

private struct TZifReader {
    let bytes: [UInt8]
    let identifier: String
    var index = 0

    struct Header {
        var version: Int
        var isUTCCount, isStandardCount, leapCount, timeCount, typeCount, characterCount: Int

        func dataLength(timeSize: Int) -> Int {
            timeCount * (timeSize + 1) + typeCount * 6 + characterCount + leapCount * (timeSize + 4)
                + isStandardCount + isUTCCount
        }
    }

    struct Block {
        var times: [Int64]
        var typeIndices: [UInt8]
        var types: [LocalTimeType]
    }

    func error(_ reason: String) -> TimeZoneError {
        TimeZoneError("\(identifier): not a valid TZif time zone file (\(reason))")
    }

    mutating func skip(_ count: Int) throws(TimeZoneError) {
        guard bytes.count - index >= count else { throw error("truncated") }
        index += count
    }

    private mutating func byte() throws(TimeZoneError) -> UInt8 {
        guard index < bytes.count else { throw error("truncated") }
        defer { index += 1 }
        return bytes[index]
    }

    private mutating func bigEndian(size: Int) throws(TimeZoneError) -> UInt64 {
        guard bytes.count - index >= size else { throw error("truncated") }
        var value: UInt64 = 0
        for byte in bytes[index..<index + size] { value = value << 8 | UInt64(byte) }
        index += size
        return value
    }

    private mutating func int32() throws(TimeZoneError) -> Int32 {
        Int32(bitPattern: UInt32(truncatingIfNeeded: try bigEndian(size: 4)))
    }

    private mutating func time(size: Int) throws(TimeZoneError) -> Int64 {
        size == 8 ? Int64(bitPattern: try bigEndian(size: 8)) : Int64(try int32())
    }

    mutating func header() throws(TimeZoneError) -> Header {
        guard bytes.count - index >= 44, Array(bytes[index..<index + 4]) == Array("TZif".utf8) else {
            throw error("no TZif magic")
        }
        index += 4
        let versionByte = try byte()
        let version: Int
        switch versionByte {
        case 0: version = 1
        case UInt8(ascii: "2")...UInt8(ascii: "9"): version = Int(versionByte - UInt8(ascii: "0"))
        default: throw error("unknown version byte \(versionByte)")
        }
        try skip(15)
        var counts: [Int] = []
        for _ in 0..<6 { counts.append(Int(try bigEndian(size: 4))) }
        let header = Header(version: version, isUTCCount: counts[0], isStandardCount: counts[1],
                            leapCount: counts[2], timeCount: counts[3], typeCount: counts[4],
                            characterCount: counts[5])
        guard header.typeCount >= 1, header.characterCount >= 1 else { throw error("no local time types") }
        guard header.isUTCCount == 0 || header.isUTCCount == header.typeCount,
              header.isStandardCount == 0 || header.isStandardCount == header.typeCount else {
            throw error("indicator counts do not match the type count")
        }
        return header
    }

    mutating func dataBlock(_ header: Header, timeSize: Int) throws(TimeZoneError) -> Block {
        guard bytes.count - index >= header.dataLength(timeSize: timeSize) else { throw error("truncated") }
        var times: [Int64] = []
        times.reserveCapacity(header.timeCount)
        for _ in 0..<header.timeCount {
            let t = try time(size: timeSize)
            if let previous = times.last, t <= previous { throw error("transition times out of order") }
            times.append(t)
        }
        var typeIndices: [UInt8] = []
        for _ in 0..<header.timeCount {
            let i = try byte()
            guard Int(i) < header.typeCount else { throw error("transition type index out of range") }
            typeIndices.append(i)
        }
        var rawTypes: [(offset: Int32, isDaylight: Bool, nameIndex: Int)] = []
        for _ in 0..<header.typeCount {
            let offset = try int32()
            let isDaylight = try byte()
            let nameIndex = Int(try byte())
            // RFC 8536 keeps offsets within ±26 hours (and never -2^31).
            guard offset > -93_600, offset < 93_600 else { throw error("UTC offset \(offset) out of range") }
            guard isDaylight <= 1, nameIndex < header.characterCount else { throw error("bad local time type") }
            rawTypes.append((offset, isDaylight == 1, nameIndex))
        }
        let names = Array(bytes[index..<index + header.characterCount])
        index += header.characterCount
        var types: [LocalTimeType] = []
        for raw in rawTypes {
            guard let end = names[raw.nameIndex...].firstIndex(of: 0) else { throw error("unterminated abbreviation") }
            types.append(LocalTimeType(utcOffset: raw.offset, isDaylightSaving: raw.isDaylight,
                                       abbreviation: String(decoding: names[raw.nameIndex..<end], as: UTF8.self)))
        }
        // Leap-second records and the standard/UT indicators do not change local time.
        try skip(header.leapCount * (timeSize + 4) + header.isStandardCount + header.isUTCCount)
        return Block(times: times, typeIndices: typeIndices, types: types)
    }

    /// The `\nTZ\n` footer of a version 2+ file; nil when empty or absent.
    mutating func footer() throws(TimeZoneError) -> PosixTimeZone? {
        guard index < bytes.count else { return nil }
        guard bytes[index] == UInt8(ascii: "\n"),
              let end = bytes[(index + 1)...].firstIndex(of: UInt8(ascii: "\n")) else {
            throw error("footer is not a newline-enclosed TZ string")
        }
        let text = String(decoding: bytes[(index + 1)..<end], as: UTF8.self)
        index = end + 1
        if text.isEmpty { return nil }
        do {
            return try PosixTimeZone(parsing: text)
        } catch {
            throw self.error("footer: \(error.message)")
        }
    }
}
