/// Why `UsePass` is refused: the words name the fix or when the next pass comes.
public struct PassRefusal: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    /// When a pass is allowed again (the next week's start); nil when only
    /// blocker.toml can allow one.
    public var next: WallInstant?

    public init(message: String, next: WallInstant? = nil) {
        self.message = message
        self.next = next
    }

    public var description: String { message }
}

/// Whether `[pass]` allows a pass now, as a pure function of the rule, the
/// passes used and now. Passes are counted per local ISO week: those that
/// started at or after the local Monday 00:00 of now (any group; a pass
/// dated later than now, after the clock was set back, still counts).
public enum PassAllowance {
    /// The local Monday 00:00 of `now`'s week (the first instant of that day
    /// when a DST change skips midnight).
    public static func weekStart(of now: WallInstant, zone: TimeZoneRules) -> WallInstant {
        zone.startOfDay(monday(of: now, zone: zone))
    }

    /// Passes used in `now`'s week.
    public static func used(_ passes: [PassRecord], now: WallInstant, zone: TimeZoneRules) -> Int {
        let start = weekStart(of: now, zone: zone)
        return passes.count(where: { $0.at >= start })
    }

    /// nil when a pass may start now; else why not.
    public static func check(rule: PassRule?, passes: [PassRecord], now: WallInstant,
                             zone: TimeZoneRules) -> PassRefusal? {
        guard let rule else {
            return PassRefusal(message: "no [pass] in blocker.toml: add [pass] per-week = 1 (and length = \"15m\") "
                + "for one emergency pass a week, then blockerctl reload")
        }
        guard rule.perWeek > 0 else {
            return PassRefusal(message: "no passes: [pass] per-week = 0 in blocker.toml; set per-week = 1 "
                + "for one a week, then blockerctl reload")
        }
        let count = used(passes, now: now, zone: zone)
        guard count >= rule.perWeek else { return nil }
        let nextMonday = monday(of: now, zone: zone).adding(days: 7)
        let next = zone.startOfDay(nextMonday)
        let clock = ClockText.hoursMinutes(secondOfDay: zone.local(at: next).secondOfDay)
        return PassRefusal(message: "no pass left this week (\(count) of \(rule.perWeek) used); the next from "
            + "\(nextMonday.weekdayName) \(nextMonday) \(clock)", next: next)
    }

    /// The local Monday of `now`'s week.
    static func monday(of now: WallInstant, zone: TimeZoneRules) -> CivilDate {
        let today = zone.localDate(at: now)
        return today.adding(days: 1 - today.isoWeekday)
    }
}
