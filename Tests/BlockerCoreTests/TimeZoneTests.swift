import Glibc
import Testing
import TestSupport
@testable import BlockerCore

/// Time zones and the calendar, checked against real tzdata files and against glibc's own
/// answers (`date`, run once per zone with many instants).
@Suite struct TimeZoneTests {

    // MARK: CivilDate

    @Test func everyDayFrom1900To2100RoundTrips() {
        // Walk the calendar by hand and check both directions and the weekday on every day.
        var date = CivilDate(year: 1900, month: 1, day: 1)
        var days = date.daysSinceEpoch
        #expect(days == -25_567)
        var weekday = 1   // 1900-01-01 was a Monday
        var failures = Failures()
        while date.year <= 2100 {
            failures.check(date.isValid && CivilDate(daysSinceEpoch: days) == date && date.daysSinceEpoch == days
                           && date.isoWeekday == weekday, "\(date) (day \(days))")
            if date.day < CivilDate.daysIn(month: date.month, year: date.year) {
                date.day += 1
            } else if date.month < 12 {
                date = CivilDate(year: date.year, month: date.month + 1, day: 1)
            } else {
                date = CivilDate(year: date.year + 1, month: 1, day: 1)
            }
            days += 1
            weekday = weekday % 7 + 1
        }
        failures.expectNone()
        #expect(days == CivilDate(year: 2101, month: 1, day: 1).daysSinceEpoch)
    }

    @Test func farDatesRoundTrip() {
        var days: Int64 = -4_000_000   // about year -9000
        var previous = CivilDate(daysSinceEpoch: days - 1)
        var failures = Failures()
        while days < 4_000_000 {
            let date = CivilDate(daysSinceEpoch: days)
            failures.check(date.isValid && date.daysSinceEpoch == days && previous < date, "day \(days): \(date)")
            previous = date
            days += 997
        }
        failures.expectNone()
    }

    @Test(arguments: [
        ("1970-01-01", 0, 4), ("2026-11-29", 20_786, 7), ("2000-01-01", 10_957, 6), ("2000-03-01", 11_017, 3),
        ("1969-12-31", -1, 3), ("2024-02-29", 19_782, 4), ("2038-01-19", 24_855, 2), ("1900-03-01", -25_508, 4),
    ])
    func knownDates(iso: String, days: Int64, isoWeekday: Int) throws {
        let date = try #require(CivilDate(iso: iso))
        #expect(date.daysSinceEpoch == days)
        #expect(date.isoWeekday == isoWeekday)
        #expect(CivilDate(daysSinceEpoch: days).description == iso)
    }

    @Test func leapYears() {
        #expect(CivilDate.isLeap(year: 2000))
        #expect(CivilDate.isLeap(year: 2024))
        #expect(!CivilDate.isLeap(year: 1900))
        #expect(!CivilDate.isLeap(year: 2100))
        #expect(!CivilDate.isLeap(year: 2026))
        #expect(CivilDate(year: 2024, month: 2, day: 29).isValid)
        #expect(!CivilDate(year: 2100, month: 2, day: 29).isValid)
        #expect(CivilDate(year: 2100, month: 2, day: 28).adding(days: 1) == CivilDate(year: 2100, month: 3, day: 1))
        #expect(CivilDate(year: 2000, month: 2, day: 28).adding(days: 1) == CivilDate(year: 2000, month: 2, day: 29))
    }

    @Test func addingDaysAndOrdering() {
        let date = CivilDate(year: 2026, month: 12, day: 31)
        #expect(date.adding(days: 1) == CivilDate(year: 2027, month: 1, day: 1))
        #expect(date.adding(days: -365) == CivilDate(year: 2025, month: 12, day: 31))
        #expect(date.adding(days: 0) == date)
        #expect(CivilDate(year: 2026, month: 3, day: 1).adding(days: -1) == CivilDate(year: 2026, month: 2, day: 28))
        #expect(CivilDate(year: 2026, month: 1, day: 31) < CivilDate(year: 2026, month: 2, day: 1))
        #expect(CivilDate(year: 2025, month: 12, day: 31) < CivilDate(year: 2026, month: 1, day: 1))
        #expect(!(date < date))
        // Out-of-range fields count on into the next month or year.
        #expect(CivilDate(year: 2026, month: 13, day: 1).daysSinceEpoch == CivilDate(year: 2027, month: 1, day: 1).daysSinceEpoch)
        #expect(CivilDate(year: 2026, month: 3, day: 0).daysSinceEpoch == CivilDate(year: 2026, month: 2, day: 28).daysSinceEpoch)
    }

    @Test func descriptionIsZeroPadded() {
        #expect(CivilDate(year: 2026, month: 3, day: 9).description == "2026-03-09")
        #expect(CivilDate(year: 5, month: 1, day: 2).description == "0005-01-02")
        #expect(CivilDate(year: -1, month: 12, day: 31).description == "-0001-12-31")
        #expect(CivilDate(year: 12345, month: 10, day: 10).description == "12345-10-10")
    }

    @Test(arguments: ["2026-3-29", "2026-02-30", "2026-13-01", "2026-00-10", "2026-01-00", "2023-02-29",
                      "abcd-01-01", "2026-01-01 ", " 2026-01-01", "+026-01-01", "2026/01/01", "", "2026-01-1a",
                      "20260101", "2026-1-01"])
    func isoRefuses(text: String) {
        #expect(CivilDate(iso: text) == nil)
    }

    @Test func isoParses() {
        #expect(CivilDate(iso: "2026-03-29") == CivilDate(year: 2026, month: 3, day: 29))
        #expect(CivilDate(iso: "2024-02-29") == CivilDate(year: 2024, month: 2, day: 29))
        #expect(CivilDate(iso: "0001-01-01") == CivilDate(year: 1, month: 1, day: 1))
    }

    // MARK: TZif against glibc

    static let crossCheckedZones = ["Europe/Paris", "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata",
                                    "America/Sao_Paulo", "UTC", "Asia/Jerusalem", "America/Nuuk", "Europe/Dublin"]

    /// 1900–2040 through the 64-bit table: a grid of odd steps plus both sides of every transition.
    @Test(arguments: crossCheckedZones)
    func tableMatchesGlibc(zone: String) throws {
        let rules = try loadZone(zone)
        let (from, to): (Int64, Int64) = (-2_208_988_800, 2_208_988_800)   // 1900-01-01 … 2040-01-01
        try expectAgreesWithGlibc(rules, tz: zone, instants: sampleInstants(rules, from: from, to: to, step: 90_061))
    }

    /// After 2037 the fat files have no table rows: the footer's POSIX rule answers (checked to 2200).
    @Test(arguments: crossCheckedZones)
    func footerMatchesGlibc(zone: String) throws {
        let rules = try loadZone(zone)
        let from: Int64 = 2_177_452_800   // 2039-01-01
        #expect((rules.transitionTimes.last ?? 0) < from, "the table should end before 2039")
        try expectAgreesWithGlibc(rules, tz: zone,
                                  instants: sampleInstants(rules, from: from, to: 7_258_118_400, step: 172_801))
    }

    /// A footer used alone agrees with the table for the years both cover.
    @Test(arguments: ["Europe/Paris", "America/New_York", "Australia/Lord_Howe", "Asia/Jerusalem", "America/Nuuk"])
    func footerAloneMatchesTable(zone: String) throws {
        let bytes = try readFile("/usr/share/zoneinfo/" + zone)
        let footer = try #require(String(decoding: bytes, as: UTF8.self).split(separator: "\n").last)
        let table = try TimeZoneRules(identifier: zone, tzif: bytes)
        let posix = try TimeZoneRules(posix: String(footer))
        var t: Int64 = 1_735_689_600   // 2025-01-01
        var failures = Failures()
        while t < 2_145_916_800 {      // 2038-01-01
            failures.check(posix.utcOffset(atUnixSeconds: t) == table.utcOffset(atUnixSeconds: t), "\(zone) at \(t)")
            t += 3_599
        }
        failures.expectNone()
    }

    /// The 32-bit part of a real file, cut out as a version 1 file, reads the same up to 2037.
    @Test func version1DataAlone() throws {
        let bytes = try readFile("/usr/share/zoneinfo/Europe/Paris")
        let counts = (0..<6).map { i in (20 + 4 * i..<24 + 4 * i).reduce(0) { $0 << 8 | Int(bytes[$1]) } }
        let (isUTC, isStandard, leap, time, type, characters) = (counts[0], counts[1], counts[2], counts[3], counts[4], counts[5])
        let length = 44 + time * 5 + type * 6 + characters + leap * 8 + isStandard + isUTC
        var version1 = Array(bytes[0..<length])
        version1[4] = 0
        let old = try TimeZoneRules(identifier: "Europe/Paris", tzif: version1)
        let new = try TimeZoneRules(identifier: "Europe/Paris", tzif: bytes)
        #expect(old.rule == nil)
        var t: Int64 = -2_147_483_648
        var failures = Failures()
        while t < 2_147_483_647 - 86_400 {
            failures.check(old.utcOffset(atUnixSeconds: t) == new.utcOffset(atUnixSeconds: t), "at \(t)")
            t += 86_400 + 3_607
        }
        failures.expectNone()
    }

    /// Every zone installed reads, and agrees with glibc around 1970–2040 and its transitions this decade.
    @Test func everyInstalledZoneMatchesGlibc() throws {
        let listing = try output(of: ["/usr/bin/find", "/usr/share/zoneinfo", "-type", "f"], environmentEntries: [])
        var checked = 0
        for path in listing.split(separator: "\n") {
            let bytes = try readFile(String(path))
            let zone = String(path.dropFirst("/usr/share/zoneinfo/".count))
            // right/ zones count leap seconds in time_t, which glibc honors and we deliberately do not:
            // the kernel clock is POSIX time.
            guard bytes.starts(with: Array("TZif".utf8)), !zone.hasPrefix("right/") else { continue }
            let rules = try TimeZoneRules(identifier: zone, tzif: bytes)
            var instants = sampleInstants(rules, from: 1_577_836_800, to: 1_893_456_000, step: 9_999_999)
            instants += stride(from: Int64(0), to: 2_208_988_800, by: 31_536_001)
            try expectAgreesWithGlibc(rules, tz: zone, instants: instants)
            checked += 1
        }
        #expect(checked > 300)
    }

    @Test func refusesBrokenFiles() throws {
        let bytes = try readFile("/usr/share/zoneinfo/Europe/Paris")
        #expect(throws: TimeZoneError.self) { try TimeZoneRules(identifier: "x", tzif: Array(bytes.prefix(200))) }
        #expect(throws: TimeZoneError.self) { try TimeZoneRules(identifier: "x", tzif: []) }
        var badMagic = bytes
        badMagic[0] = UInt8(ascii: "X")
        #expect(throws: TimeZoneError("x: not a valid TZif time zone file (no TZif magic)")) {
            try TimeZoneRules(identifier: "x", tzif: badMagic)
        }
        var badFooter = bytes
        badFooter.removeLast()
        #expect(throws: TimeZoneError.self) { try TimeZoneRules(identifier: "x", tzif: badFooter) }
        #expect(throws: TimeZoneError.self) { try TimeZoneRules(identifier: "x", tzif: Array("not a zone".utf8)) }
    }

    // MARK: POSIX strings

    static let posixStrings = [
        "UTC0", "EST5EDT,M3.2.0,M11.1.0", "CET-1CEST,M3.5.0,M10.5.0/3", "<+0530>-5:30",
        "<+1030>-10:30<+11>-11,M10.1.0,M4.1.0",          // half-hour daylight saving, southern
        "IST-2IDT,M3.4.4/26,M10.5.0",                     // a rule time past 24 hours
        "<-02>2<-01>,M3.5.0/-1,M10.5.0/0",                // a negative rule time
        "<+0330>-3:30<+0430>,J79/24,J263/24",             // Jn days
        "AAA3BBB,59/2,300/2",                             // zero-based days, Feb 29 counted
        "NZST-12NZDT,M9.5.0,M4.1.0/3",
        "<-04>4<-03>,M9.1.6/24,M4.1.6/24",
        "XXX+3:15:30YYY+2:00:15,M3.5.0/1:02:03,M10.5.0/-12:30",
        "EET-2EEST,M3.4.4/50,M10.4.4/50",
        "<-03>3",
    ]

    @Test(arguments: posixStrings)
    func posixMatchesGlibc(text: String) throws {
        let rules = try TimeZoneRules(posix: text)
        #expect(rules.identifier == text)
        try expectAgreesWithGlibc(rules, tz: text,
                                  instants: sampleInstants(rules, from: 0, to: 4_102_444_800, step: 172_807))
    }

    @Test func daylightWithoutRulesUsesUSRules() throws {
        // tzcode's default. (glibc instead replays its posixrules file, shifted oddly: not a reference here.)
        let implicit = try TimeZoneRules(posix: "AAA5BBB")
        let explicit = try TimeZoneRules(posix: "AAA5BBB,M3.2.0,M11.1.0")
        var failures = Failures()
        for t in stride(from: Int64(0), to: 4_102_444_800, by: 10_799) {
            failures.check(implicit.utcOffset(atUnixSeconds: t) == explicit.utcOffset(atUnixSeconds: t), "at \(t)")
        }
        failures.expectNone()
        #expect(implicit.utcOffset(atUnixSeconds: 1_782_864_000) == -4 * 3600)   // 2026-07-01
        #expect(implicit.abbreviation(atUnixSeconds: 1_767_225_600) == "AAA")     // 2026-01-01
    }

    @Test func daylightAllYear() throws {
        // RFC 8536: daylight from Jan 1 00:00 to Dec 31 25:00 daylight time is daylight all year.
        let rules = try TimeZoneRules(posix: "EST5EDT,0/0,J365/25")
        var failures = Failures()
        for t in stride(from: Int64(1_735_689_600 - 86_400), to: 1_798_761_600 + 86_400, by: 1_800) {
            failures.check(rules.utcOffset(atUnixSeconds: t) == -4 * 3600, "at \(t)")
        }
        failures.expectNone()
    }

    @Test(arguments: ["", "E5", "EST", "EST5EDT,M3.2.0", "EST5EDT,M13.2.0,M11.1.0", "EST5EDT,M3.6.0,M11.1.0",
                      "EST5EDT,M3.2.7,M11.1.0", "EST25", "<+05", "<+05>", "EST5EDT,J0,J365", "EST5EDT,366,0",
                      "EST5EDT,M3.2.0/168,M11.1.0", "EST5:60", "EST5EDT,M3.2.0,M11.1.0,", "Europe/Paris", "ES5"])
    func posixRefuses(text: String) {
        #expect(throws: TimeZoneError.self) { try TimeZoneRules(posix: text) }
    }

    @Test func posixErrorSaysWhere() {
        #expect(throws: TimeZoneError("\"EST5EDT,M3.2.0\" is not a POSIX TZ string (at character 15: expected \",\")")) {
            try TimeZoneRules(posix: "EST5EDT,M3.2.0")
        }
    }

    // MARK: Calendar edges

    @Test func parisSpringForwardGap() throws {
        let paris = try loadZone("Europe/Paris")
        let day = CivilDate(year: 2026, month: 3, day: 29)
        // 02:00–02:59 do not exist: clocks go from 01:59:59 CET to 03:00 CEST at 01:00Z.
        #expect(paris.instant(of: day, minuteOfDay: 150) == utcMs(day, 1, 0))
        #expect(paris.instant(of: day, minuteOfDay: 120) == utcMs(day, 1, 0))
        #expect(paris.instant(of: day, minuteOfDay: 119) == utcMs(day, 0, 59))
        #expect(paris.instant(of: day, minuteOfDay: 180) == utcMs(day, 1, 0))
        #expect(paris.instant(of: day, minuteOfDay: 181) == utcMs(day, 1, 1))
        #expect(paris.local(at: utcMs(day, 1, 0) - 1) == (day, 2 * 3600 - 1))
        #expect(paris.local(at: utcMs(day, 1, 0)) == (day, 3 * 3600))
        #expect(paris.startOfDay(day) == utcMs(day.adding(days: -1), 23, 0))
        #expect(paris.startOfDay(day.adding(days: 1)) == utcMs(day, 22, 0))
    }

    @Test func parisFallBackRepeat() throws {
        let paris = try loadZone("Europe/Paris")
        let day = CivilDate(year: 2026, month: 10, day: 25)
        // 02:00–02:59 happen twice (CEST, then CET from 01:00Z): the first one counts.
        #expect(paris.instant(of: day, minuteOfDay: 150) == utcMs(day, 0, 30))
        #expect(paris.instant(of: day, minuteOfDay: 120) == utcMs(day, 0, 0))
        #expect(paris.instant(of: day, minuteOfDay: 179) == utcMs(day, 0, 59))
        #expect(paris.instant(of: day, minuteOfDay: 180) == utcMs(day, 2, 0))
        #expect(paris.local(at: utcMs(day, 1, 0) - 1) == (day, 3 * 3600 - 1))
        #expect(paris.local(at: utcMs(day, 1, 0)) == (day, 2 * 3600))
        #expect(paris.startOfDay(day) == utcMs(day.adding(days: -1), 22, 0))
        #expect(paris.startOfDay(day.adding(days: 1)) == utcMs(day, 23, 0))
        #expect(paris.instant(of: day, minuteOfDay: 1440) == utcMs(day, 23, 0))
    }

    @Test func newYorkTransitions() throws {
        let newYork = try loadZone("America/New_York")
        let spring = CivilDate(year: 2026, month: 3, day: 8)
        #expect(newYork.instant(of: spring, minuteOfDay: 150) == utcMs(spring, 7, 0))
        #expect(newYork.startOfDay(spring) == utcMs(spring, 5, 0))
        #expect(newYork.local(at: utcMs(spring, 7, 0) - 1) == (spring, 2 * 3600 - 1))
        #expect(newYork.local(at: utcMs(spring, 7, 0)) == (spring, 3 * 3600))
        let fall = CivilDate(year: 2026, month: 11, day: 1)
        #expect(newYork.instant(of: fall, minuteOfDay: 90) == utcMs(fall, 5, 30))
        #expect(newYork.instant(of: fall, minuteOfDay: 120) == utcMs(fall, 7, 0))
        #expect(newYork.startOfDay(fall) == utcMs(fall, 4, 0))
        #expect(newYork.local(at: utcMs(fall, 6, 0) - 1) == (fall, 2 * 3600 - 1))
        #expect(newYork.local(at: utcMs(fall, 6, 0)) == (fall, 1 * 3600))
        // A late-evening instant in New York is already the next day in UTC.
        #expect(newYork.localDate(at: utcMs(CivilDate(year: 2026, month: 1, day: 2), 3, 0))
                == CivilDate(year: 2026, month: 1, day: 1))
    }

    @Test func ordinaryStartsOfDay() throws {
        let january15 = CivilDate(year: 2026, month: 1, day: 15)
        let july15 = CivilDate(year: 2026, month: 7, day: 15)
        #expect(try loadZone("Europe/Paris").startOfDay(january15) == utcMs(january15.adding(days: -1), 23, 0))
        #expect(try loadZone("Europe/Paris").startOfDay(july15) == utcMs(july15.adding(days: -1), 22, 0))
        #expect(try loadZone("Asia/Kolkata").startOfDay(january15) == utcMs(january15.adding(days: -1), 18, 30))
        #expect(try loadZone("Australia/Lord_Howe").startOfDay(january15) == utcMs(january15.adding(days: -1), 13, 0))
        #expect(try loadZone("Australia/Lord_Howe").startOfDay(july15) == utcMs(july15.adding(days: -1), 13, 30))
        #expect(TimeZoneRules.utc.startOfDay(january15) == utcMs(january15, 0, 0))
        #expect(TimeZoneRules.utc.instant(of: january15, minuteOfDay: 5) == utcMs(january15, 0, 5))
        #expect(try loadZone("America/New_York").instant(of: july15, minuteOfDay: 1439) == utcMs(july15.adding(days: 1), 3, 59))
    }

    @Test func dayWithoutMidnight() throws {
        // São Paulo began daylight time at midnight: 2018-11-04 started at 01:00 (03:00Z).
        let saoPaulo = try loadZone("America/Sao_Paulo")
        let day = CivilDate(year: 2018, month: 11, day: 4)
        #expect(saoPaulo.startOfDay(day) == utcMs(day, 3, 0))
        #expect(saoPaulo.local(at: utcMs(day, 3, 0)) == (day, 3600))
        #expect(saoPaulo.local(at: utcMs(day, 3, 0) - 1) == (day.adding(days: -1), 86_399))
    }

    @Test func lordHoweHalfHourShift() throws {
        let lordHowe = try loadZone("Australia/Lord_Howe")
        // 2026-10-04 02:00 +10:30 → 02:30 +11 (15:30Z the day before); 2026-04-05 02:00 +11 → 01:30 +10:30.
        let spring = CivilDate(year: 2026, month: 10, day: 4)
        #expect(lordHowe.instant(of: spring, minuteOfDay: 135) == utcMs(spring.adding(days: -1), 15, 30))
        #expect(lordHowe.instant(of: spring, minuteOfDay: 150) == utcMs(spring.adding(days: -1), 15, 30))
        let fall = CivilDate(year: 2026, month: 4, day: 5)
        #expect(lordHowe.instant(of: fall, minuteOfDay: 105) == utcMs(fall.adding(days: -1), 14, 45))
    }

    /// On every transition day of several zones, `instant(of:)` equals the definition taken
    /// literally: the least instant in ±2 days whose wall time is at or after the target.
    @Test(arguments: ["Europe/Paris", "America/New_York", "Australia/Lord_Howe", "America/Sao_Paulo", "Asia/Jerusalem"])
    func instantMatchesItsDefinition(zone: String) throws {
        let rules = try loadZone(zone)
        var days = Set<Int64>()
        for t in rules.transitions(from: 1_514_764_800, through: 1_830_297_600) {   // 2018–2028
            let day = floorDivide(t + Int64(rules.utcOffset(atUnixSeconds: t)), 86_400)
            days.formUnion([day - 1, day, day + 1])
        }
        #expect(days.count >= 9)
        var failures = Failures()
        for day in days {
            let date = CivilDate(daysSinceEpoch: day)
            for minute in stride(from: 0, through: 1440, by: 15) {
                let target = day * 86_400 + Int64(minute) * 60
                // Transitions and offsets of these zones are whole quarter hours.
                var t = target - 2 * 86_400
                while t + Int64(rules.utcOffset(atUnixSeconds: t)) < target { t += 900 }
                failures.check(rules.instant(of: date, minuteOfDay: minute) == WallInstant(ms: t * 1000), "\(zone) \(date) minute \(minute)")
            }
        }
        failures.expectNone()
    }

    @Test func floorForNegativeInstants() throws {
        let utc = TimeZoneRules.utc
        #expect(utc.local(at: WallInstant(ms: -1)) == (CivilDate(year: 1969, month: 12, day: 31), 86_399))
        #expect(utc.local(at: WallInstant(ms: -1000)) == (CivilDate(year: 1969, month: 12, day: 31), 86_399))
        #expect(utc.local(at: WallInstant(ms: -1001)) == (CivilDate(year: 1969, month: 12, day: 31), 86_398))
        #expect(utc.local(at: WallInstant(ms: 0)) == (CivilDate(year: 1970, month: 1, day: 1), 0))
        #expect(utc.local(at: WallInstant(ms: 999)) == (CivilDate(year: 1970, month: 1, day: 1), 0))
        #expect(utc.localDate(at: WallInstant(ms: -86_400_001)) == CivilDate(year: 1969, month: 12, day: 30))
        #expect(utc.utcOffset(atUnixSeconds: .max) == 0)
        let paris = try TimeZoneRules(posix: "CET-1CEST,M3.5.0,M10.5.0/3")
        // Absurd instants are clamped rather than overflowing the calendar arithmetic.
        #expect([3600, 7200].contains(paris.utcOffset(atUnixSeconds: .max)))
        #expect([3600, 7200].contains(paris.utcOffset(atUnixSeconds: .min)))
    }
}
