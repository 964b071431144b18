/// `[earn] max-per-day` and `min-gap`: the cap a user sets on their future
/// self. Reps stay honor-system; what these bind is how much and how often.
/// Pure: the daemon passes what the ledger holds and the local day's end.
public struct EarnLimits: Sendable, Equatable {
    /// The most that may be earned per local day; nil = no cap.
    public var maxPerDay: Milliseconds?
    /// The least time between two earnings; nil = any spacing.
    public var minGap: Milliseconds?

    public init(maxPerDay: Milliseconds? = nil, minGap: Milliseconds? = nil) {
        self.maxPerDay = maxPerDay
        self.minGap = minGap
    }

    /// What the ledger holds about earlier earnings.
    public struct History: Sendable, Equatable {
        /// Earned so far on the local day of now.
        public var earnedToday: Milliseconds
        /// The newest earning's instant, nil before the first.
        public var lastEarningAt: WallInstant?

        public init(earnedToday: Milliseconds, lastEarningAt: WallInstant?) {
            self.earnedToday = earnedToday
            self.lastEarningAt = lastEarningAt
        }
    }

    /// Why an earning is refused and when it becomes possible again.
    public enum Refusal: Sendable, Equatable {
        /// The spacing: the last earning was too recent; possible at `possibleAt`.
        case tooSoon(minGap: Milliseconds, possibleAt: WallInstant)
        /// The day's cap: `left` may still be earned today (0: nothing until
        /// the next local day, which starts at `nextDay`).
        case dailyCap(maxPerDay: Milliseconds, left: Milliseconds, nextDay: WallInstant)

        /// The instant the same earning would be accepted (a smaller one may
        /// be accepted at once under `dailyCap` with something `left`).
        public var possibleAt: WallInstant {
            switch self {
            case let .tooSoon(_, at): at
            case let .dailyCap(_, _, nextDay): nextDay
            }
        }

        /// The line `blockerctl earn` prints, local times in `zone`.
        public func message(now: WallInstant, zone: TimeZoneRules) -> String {
            switch self {
            case let .tooSoon(gap, at):
                return tr("too soon: [earn] min-gap is {gap} between earnings; earn again in {wait} (at {time}); nothing was credited",
                          ["gap": DurationText.format(gap), "wait": DurationText.format(max(at - now, 1000)),
                           "time": Self.clock(at, zone: zone)])
            case let .dailyCap(cap, left, nextDay):
                let values = ["cap": DurationText.format(cap), "left": DurationText.format(left), "time": Self.clock(nextDay, zone: zone)]
                return left > 0
                    ? tr("over the daily cap: [earn] max-per-day is {cap}; only {left} more may be earned today; log fewer reps, or earn again from {time} (the next day); nothing was credited", values)
                    : tr("over the daily cap: [earn] max-per-day is {cap}; today's earnings reached it; earn again from {time} (the next day); nothing was credited", values)
            }
        }

        /// `Thu 00:00`, `14:35:20`: with seconds when it is close, the day when it is not today.
        static func clock(_ instant: WallInstant, zone: TimeZoneRules) -> String {
            let (date, second) = zone.local(at: instant)
            return "\(date.localWeekdayName) \(date) \(ClockText.hoursMinutesSeconds(secondOfDay: second))"
        }
    }

    /// Whether `earning` ms may be credited at `now`, given `history`.
    /// `nextDay` is when the local day of `now` ends (the cap resets then).
    /// The spacing is checked first: it is the sooner of the two to pass. A
    /// last earning in the future (the clock was set back) is not held
    /// against the user: the spacing cannot be measured then.
    public func refusal(earning: Milliseconds, now: WallInstant, history: History, nextDay: WallInstant) -> Refusal? {
        if let minGap, let last = history.lastEarningAt, last <= now {
            let possible = last + minGap
            if now < possible { return .tooSoon(minGap: minGap, possibleAt: possible) }
        }
        if let maxPerDay {
            let left = max(maxPerDay - history.earnedToday, 0)
            if earning > left { return .dailyCap(maxPerDay: maxPerDay, left: left, nextDay: nextDay) }
        }
        return nil
    }
}
