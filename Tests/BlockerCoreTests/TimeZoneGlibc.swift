import Glibc
import Testing
import TestSupport
@testable import BlockerCore

// TimeZoneTests' helpers: file reading and glibc's `date` through posix_spawn.

func loadZone(_ zone: String) throws -> TimeZoneRules {
    try TimeZoneRules(identifier: zone, tzif: readFile("/usr/share/zoneinfo/" + zone))
}

func utcMs(_ date: CivilDate, _ hour: Int, _ minute: Int) -> WallInstant {
    WallInstant(ms: (date.daysSinceEpoch * 86_400 + Int64(hour * 3600 + minute * 60)) * 1000)
}

/// A grid from `from` to `to` by `step`, plus the second before and at each transition.
func sampleInstants(_ rules: TimeZoneRules, from: Int64, to: Int64, step: Int64) -> [Int64] {
    var instants = Array(stride(from: from, to: to, by: Int(step)))
    for t in rules.transitions(from: from, through: to) { instants += [t - 1, t] }
    return instants
}

/// Offset, abbreviation, local date and time of day, each as glibc's `date` prints them.
func expectAgreesWithGlibc(_ rules: TimeZoneRules, tz: String, instants: [Int64],
                                   sourceLocation: SourceLocation = #_sourceLocation) throws {
    let lines = try glibcDate(tz: tz, instants: instants, format: "+%::z %Z %F %T")
    try #require(lines.count == instants.count, sourceLocation: sourceLocation)
    var mismatches = 0
    for (t, line) in zip(instants, lines) {
        let (date, second) = rules.local(at: WallInstant(ms: t * 1000))
        let abbreviation = rules.abbreviation(atUnixSeconds: t)
        let mine = formatOffset(rules.utcOffset(atUnixSeconds: t), abbreviation: abbreviation) + " " + abbreviation
            + " \(date) " + zeroPad(second / 3600) + ":" + zeroPad(second / 60 % 60) + ":" + zeroPad(second % 60)
        if mine != line {
            mismatches += 1
            if mismatches <= 5 {
                Issue.record("\(tz) at @\(t): glibc says \(line), we say \(mine)", sourceLocation: sourceLocation)
            }
        }
    }
    #expect(mismatches == 0, "\(tz): \(mismatches) of \(instants.count) instants differ", sourceLocation: sourceLocation)
}

/// The cases of a long loop that failed, reported once (an `#expect` per case is slow).
struct Failures {
    private(set) var cases: [String] = []
    mutating func check(_ passed: Bool, _ description: @autoclosure () -> String) {
        if !passed { cases.append(description()) }
    }
    func expectNone(sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(cases.isEmpty, "\(cases.count) failed, first: \(cases.prefix(5))", sourceLocation: sourceLocation)
    }
}

func zeroPad(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }

/// `%::z`: glibc writes a zero offset named "-00" (no local time, as in Antarctic stations) as -00:00:00.
func formatOffset(_ offset: Int32, abbreviation: String) -> String {
    let magnitude = Int(offset.magnitude)
    return (offset < 0 || (offset == 0 && abbreviation.hasPrefix("-")) ? "-" : "+") + zeroPad(magnitude / 3600) + ":" + zeroPad(magnitude / 60 % 60) + ":"
        + zeroPad(magnitude % 60)
}

/// `date -f FILE FORMAT` with TZ set: one line per instant.
func glibcDate(tz: String, instants: [Int64], format: String) throws -> [String] {
    let directory = try TemporaryDirectory()
    let input = try directory.write("instants", instants.map { "@\($0)\n" }.joined())
    let printed = try output(of: ["/usr/bin/date", "-f", input, format], environmentEntries: ["TZ=" + tz, "LC_ALL=C"])
    return printed.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
}

func readFile(_ path: String) throws -> [UInt8] {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw TestFailure("open \(path): errno \(errno)") }
    defer { close(fd) }
    var contents: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65_536)
    while true {
        let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count >= 0 else { throw TestFailure("read \(path): errno \(errno)") }
        if count == 0 { return contents }
        contents += chunk[0..<count]
    }
}
