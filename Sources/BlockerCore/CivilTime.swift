/// A proleptic Gregorian calendar date.
///
/// The fields are stored as given; `daysSinceEpoch` normalizes an out-of-range
/// month or day (month 13 is January of the next year, day 0 the last day of the
/// previous month). Use `init?(iso:)` or `isValid` when the input comes from a person.
public struct CivilDate: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var year: Int
    public var month: Int
    public var day: Int

    public init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// The date `daysSinceEpoch` days after 1970-01-01 (negative: before it).
    public init(daysSinceEpoch: Int64) {
        // Howard Hinnant's civil_from_days: eras of 400 years (146097 days), years starting in March
        // so the leap day is the last day of the year.
        let z = daysSinceEpoch + 719_468
        let era = floorDivide(z, 146_097)
        let dayOfEra = z - era * 146_097                                            // 0...146096
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100) // 0...365, from March 1
        let monthFromMarch = (5 * dayOfYear + 2) / 153                              // 0...11
        let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        self.init(year: Int(year), month: Int(month), day: Int(day))
    }

    /// Days from 1970-01-01 to this date (0 for 1970-01-01).
    public var daysSinceEpoch: Int64 {
        // Hinnant's days_from_civil, after carrying an out-of-range month into the year.
        let monthIndex = Int64(month) - 1
        var y = Int64(year) + floorDivide(monthIndex, 12)
        let m = floorModulo(monthIndex, 12) + 1
        if m <= 2 { y -= 1 }
        let era = floorDivide(y, 400)
        let yearOfEra = y - era * 400
        let monthFromMarch = m > 2 ? m - 3 : m + 9
        let dayOfYear = (153 * monthFromMarch + 2) / 5                              // day 1 of the month
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468 + Int64(day) - 1
    }

    /// 1 = Monday … 7 = Sunday (ISO 8601). 1970-01-01 was a Thursday.
    public var isoWeekday: Int {
        Int(floorModulo(daysSinceEpoch + 3, 7)) + 1
    }

    public func adding(days: Int) -> CivilDate {
        CivilDate(daysSinceEpoch: daysSinceEpoch + Int64(days))
    }

    /// True when month is 1…12 and day exists in that month.
    public var isValid: Bool {
        (1...12).contains(month) && day >= 1 && day <= CivilDate.daysIn(month: month, year: year)
    }

    public static func isLeap(year: Int) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    /// Days in `month` (1…12) of `year`.
    public static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return isLeap(year: year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    public static func < (lhs: CivilDate, rhs: CivilDate) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }

    /// `2026-03-29`: ISO 8601, the year at least four digits.
    public var description: String {
        let sign = year < 0 ? "-" : ""
        return sign + zeroPadded(year, width: 4) + "-" + zeroPadded(month, width: 2)
            + "-" + zeroPadded(day, width: 2)
    }

    /// Parses exactly `YYYY-MM-DD` (ASCII digits) and refuses dates that do not exist.
    public init?(iso text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
              let year = decimal(bytes[0..<4]), let month = decimal(bytes[5..<7]),
              let day = decimal(bytes[8..<10]) else { return nil }
        self.init(year: year, month: month, day: day)
        guard isValid else { return nil }
    }
}

/// Integer division rounding toward negative infinity (Swift's `/` truncates toward zero).
@inline(__always)
func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
    let q = a / b
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
}

/// The remainder that goes with `floorDivide`: always in `0..<b` for positive `b`.
@inline(__always)
func floorModulo(_ a: Int64, _ b: Int64) -> Int64 {
    a - floorDivide(a, b) * b
}

/// `value` in decimal, zeros in front up to `width` digits; the sign of a negative value is dropped
/// (every caller pads a count that cannot be negative).
public func zeroPadded<Value: BinaryInteger>(_ value: Value, width: Int) -> String {
    // Written digit by digit: a date or a clock time is formatted several
    // times a tick, and String(value) plus padding cost a few thousand instructions.
    let magnitude = UInt64(value.magnitude)
    var digits = 1, rest = magnitude / 10
    while rest > 0 { digits += 1; rest /= 10 }
    let length = max(digits, width)
    return String(unsafeUninitializedCapacity: length) { buffer in
        var remaining = magnitude
        for i in stride(from: length - 1, through: 0, by: -1) {
            buffer[i] = UInt8(ascii: "0") + UInt8(remaining % 10)
            remaining /= 10
        }
        return length
    }
}

/// The value of a run of ASCII digits, or nil if any byte is not a digit.
private func decimal(_ bytes: ArraySlice<UInt8>) -> Int? {
    var value = 0
    for byte in bytes {
        guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
        value = value * 10 + Int(byte - UInt8(ascii: "0"))
    }
    return value
}
