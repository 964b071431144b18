import BlockerCore
import Glibc
import Testing
import TestSupport
@testable import BlockerConfig

/// Finding the user's zone from TZ, TZDIR and /etc/localtime, with the real tzdata files.
@Suite struct SystemTimeZoneTests {
    static let winter: Int64 = 1_768_478_400   // 2026-01-15 12:00Z
    static let summer: Int64 = 1_784_116_800   // 2026-07-15 12:00Z

    @Test func unsetTZUsesEtcLocaltimeAsGlibcDoes() throws {
        let rules = try TimeZoneRules.system(environment: [:])
        // glibc's answer for the same instants with no TZ at all.
        let instants: [Int64] = [0, Self.winter, Self.summer, 1_774_746_000, 1_792_890_000]
        let glibc = try glibcOffsets(environment: ["LC_ALL=C"], instants: instants)
        #expect(instants.map { rules.utcOffset(atUnixSeconds: $0) } == glibc)
        var target = [CChar](repeating: 0, count: 4096)
        if readlink("/etc/localtime", &target, target.count - 1) > 0 {
            let path = decodeCString(target)
            #expect(path.hasSuffix("/" + rules.identifier), "\(path) vs \(rules.identifier)")
        }
    }

    @Test func localtimeLinkGivesItsZoneName() throws {
        let directory = try TemporaryDirectory()
        let link = directory.path + "/localtime"
        try #require(symlink("/usr/share/zoneinfo/Europe/Paris", link) == 0)
        let rules = try TimeZoneRules.system(environment: [:], localtimePath: link)
        #expect(rules.identifier == "Europe/Paris")
        #expect(rules.utcOffset(atUnixSeconds: Self.winter) == 3600)
        #expect(rules.utcOffset(atUnixSeconds: Self.summer) == 7200)
    }

    @Test func noLocaltimeMeansUTC() throws {
        let rules = try TimeZoneRules.system(environment: [:], localtimePath: "/nonexistent/localtime")
        #expect(rules.identifier == "UTC")
        #expect(rules.utcOffset(atUnixSeconds: Self.summer) == 0)
    }

    @Test func brokenLocaltimeIsAnError() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/localtime"
        try #require(symlink("/usr/share/zoneinfo/zone.tab", path) == 0)
        #expect(throws: TimeZoneError.self) { try TimeZoneRules.system(environment: [:], localtimePath: path) }
    }

    @Test(arguments: [":Europe/Paris", "Europe/Paris", "/usr/share/zoneinfo/Europe/Paris", ":/usr/share/zoneinfo/Europe/Paris"])
    func tzNamesAZone(tz: String) throws {
        let rules = try TimeZoneRules.system(environment: ["TZ": tz])
        #expect(rules.identifier == "Europe/Paris")
        #expect(rules.utcOffset(atUnixSeconds: Self.winter) == 3600)
        #expect(rules.utcOffset(atUnixSeconds: Self.summer) == 7200)
        #expect(rules.abbreviation(atUnixSeconds: Self.summer) == "CEST")
    }

    @Test func tzPosixString() throws {
        let rules = try TimeZoneRules.system(environment: ["TZ": "EST5EDT,M3.2.0,M11.1.0"])
        #expect(rules.identifier == "EST5EDT,M3.2.0,M11.1.0")
        #expect(rules.utcOffset(atUnixSeconds: Self.winter) == -5 * 3600)
        #expect(rules.utcOffset(atUnixSeconds: Self.summer) == -4 * 3600)
        let india = try TimeZoneRules.system(environment: ["TZ": "<+0530>-5:30"])
        #expect(india.utcOffset(atUnixSeconds: Self.summer) == 19_800)
        #expect(india.abbreviation(atUnixSeconds: Self.summer) == "+0530")
    }

    @Test func emptyTZIsUTC() throws {
        // glibc reads an empty TZ (and a bare ":") as UTC, not as "unset".
        #expect(try TimeZoneRules.system(environment: ["TZ": ""]).identifier == "UTC")
        #expect(try TimeZoneRules.system(environment: ["TZ": ":"]).utcOffset(atUnixSeconds: Self.summer) == 0)
    }

    @Test func unknownZoneSaysWhichAndHowToFix() {
        do {
            _ = try TimeZoneRules.system(environment: ["TZ": "Europe/Parsi"])
            Issue.record("a zone that does not exist was accepted")
        } catch {
            #expect(error.message.contains("Europe/Parsi"))
            #expect(error.message.contains("timedatectl list-timezones"))
        }
        #expect(throws: TimeZoneError.self) { try TimeZoneRules.system(environment: ["TZ": "Mars/Olympus_Mons"]) }
        #expect(throws: TimeZoneError.self) { try TimeZoneRules.system(environment: ["TZ": "Europe"]) }   // a directory
        #expect(throws: TimeZoneError.self) { try TimeZoneRules.system(environment: ["TZ": "zone.tab"]) } // not TZif
        #expect(throws: TimeZoneError.self) { try TimeZoneRules.system(environment: ["TZ": "/nonexistent/Paris"]) }
        #expect(throws: TimeZoneError.self) { try TimeZoneRules.named("Nowhere/Special") }
    }

    @Test func dotDotIsRefused() {
        for name in ["../../etc/localtime", "Europe/../Europe/Paris", ".."] {
            #expect(throws: TimeZoneError.self) { try TimeZoneRules.named(name) }
            #expect(throws: TimeZoneError.self) { try TimeZoneRules.system(environment: ["TZ": name]) }
        }
        do {
            _ = try TimeZoneRules.named("../zoneinfo/UTC")
            Issue.record("\"..\" was accepted")
        } catch {
            #expect(error.message.contains("\"..\" is not allowed"))
        }
    }

    @Test func tzdirOverridesTheZoneDirectory() throws {
        let directory = try TemporaryDirectory()
        try #require(mkdir(directory.path + "/Test", 0o700) == 0)
        try #require(symlink("/usr/share/zoneinfo/Asia/Kolkata", directory.path + "/Test/Zone") == 0)
        let rules = try TimeZoneRules.system(environment: ["TZ": "Test/Zone", "TZDIR": directory.path])
        #expect(rules.identifier == "Test/Zone")
        #expect(rules.utcOffset(atUnixSeconds: Self.summer) == 19_800)
        #expect(throws: TimeZoneError.self) { try TimeZoneRules.system(environment: ["TZ": "Test/Zone"]) }
        #expect(try TimeZoneRules.named("Test/Zone", zoneinfoDirectory: directory.path).utcOffset(atUnixSeconds: 0) == 19_800)
    }

    @Test func namedReadsTheDefaultDirectory() throws {
        let newYork = try TimeZoneRules.named("America/New_York")
        #expect(newYork.identifier == "America/New_York")
        #expect(newYork.utcOffset(atUnixSeconds: Self.winter) == -5 * 3600)
        #expect(newYork.instant(of: CivilDate(year: 2026, month: 3, day: 8), minuteOfDay: 150) == 1_772_953_200_000)
    }
}

// MARK: - Helpers (tests only)

/// A NUL-terminated C string in a buffer.
private func decodeCString(_ buffer: [CChar]) -> String {
    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// glibc's `date +%::z` for each instant, run with exactly `environment`.
private func glibcOffsets(environment: [String], instants: [Int64]) throws -> [Int32] {
    let directory = try TemporaryDirectory()
    let input = try directory.write("instants", instants.map { "@\($0)\n" }.joined())
    let printed = try output(of: ["/usr/bin/date", "-f", input, "+%::z"], environmentEntries: environment)
    var offsets: [Int32] = []
    for line in printed.split(separator: "\n") {
        // "+05:30:00" or "-04:00:00"
        let fields = line.dropFirst().split(separator: ":").compactMap { Int32($0.prefix(2)) }
        guard fields.count == 3 else { throw TestFailure("unexpected date output \(line)") }
        let magnitude = fields[0] * 3600 + fields[1] * 60 + fields[2]
        offsets.append(line.hasPrefix("-") ? -magnitude : magnitude)
    }
    return offsets
}
