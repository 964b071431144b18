import Foundation
@testable import BlockerCore

/// Real tzdata from the system (the `tzdata` package), parsed by BlockerCore.
func zone(_ name: String) -> TimeZoneRules {
    let path = "/usr/share/zoneinfo/" + name
    guard let data = FileManager.default.contents(atPath: path) else { fatalError("missing \(path): apt-get install tzdata") }
    return try! TimeZoneRules(identifier: name, tzif: [UInt8](data))
}

/// The instant of a local wall time in `zone` (first occurrence; skipped times → end of gap).
func at(_ zone: TimeZoneRules, _ iso: String, _ hhmm: String, seconds: Int = 0) -> WallInstant {
    let parts = hhmm.split(separator: ":").map { Int($0)! }
    return zone.instant(of: CivilDate(iso: iso)!, minuteOfDay: parts[0] * 60 + parts[1]) + .seconds(Int64(seconds))
}

/// The instant of a UTC time "2026-03-29T01:00:00Z".
func utc(_ text: String) -> WallInstant {
    let f = ISO8601DateFormatter()
    return WallInstant(ms: Int64(f.date(from: text)!.timeIntervalSince1970 * 1000))
}

func group(_ name: String, apps: [String], metered: Bool = true, titles: [String] = [],
           dailyLimit: Milliseconds? = nil, schedules: [Schedule] = []) -> AppGroup {
    AppGroup(name: name, apps: apps, titles: titles.map { try! TitlePattern($0) }, metered: metered,
             dailyLimit: dailyLimit, schedules: schedules)
}

func schedule(_ days: String, _ from: String, _ to: String) -> Schedule {
    func minutes(_ s: String) -> Int { let p = s.split(separator: ":").map { Int($0)! }; return p[0] * 60 + p[1] }
    return Schedule(days: try! Weekdays.parse(days).get(), span: .between(from: minutes(from), to: minutes(to)))
}

let minute: Milliseconds = .minutes(1)
let hour: Milliseconds = .hours(1)
