/// Why a time zone could not be loaded; `description` is the message a person sees.
public struct TimeZoneError: Error, CustomStringConvertible, Sendable, Equatable {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// The rules of one time zone: when its UTC offset changes and to what.
///
/// Parsed from a TZif file (RFC 8536, what `/usr/share/zoneinfo` holds; TZifReader.swift)
/// or a POSIX `TZ` string (PosixTimeZone.swift), in pure Swift, so several zones can be
/// used and tested in one process without touching the process-wide `TZ`. Leap-second
/// records ("right/" zones) are ignored: the clock we are given is POSIX time.
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
    public func local(at instant: WallInstant) -> (date: CivilDate, secondOfDay: Int) {
        let seconds = floorDivide(instant.ms, 1000)
        let wall = seconds + Int64(utcOffset(atUnixSeconds: seconds))
        let days = floorDivide(wall, 86_400)
        return (CivilDate(daysSinceEpoch: days), Int(wall - days * 86_400))
    }

    public func localDate(at instant: WallInstant) -> CivilDate {
        local(at: instant).date
    }

    /// The first instant whose local wall time is at or after `minuteOfDay` on `date`:
    /// a wall time skipped by a spring-forward gap resolves to the end of the gap (the transition instant);
    /// a wall time that happens twice resolves to its FIRST occurrence.
    ///
    /// `minuteOfDay` is 0…1439, or 1440 for midnight at the end of `date`.
    public func instant(of date: CivilDate, minuteOfDay: Int) -> WallInstant {
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
        return WallInstant(ms: best * 1000)
    }

    /// The instant local `date` begins: `instant(of: date, minuteOfDay: 0)`.
    public func startOfDay(_ date: CivilDate) -> WallInstant {
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
