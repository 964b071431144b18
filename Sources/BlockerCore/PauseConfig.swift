/// `[pause]`, `[group.pause]`, `[pass]` and `opens-per-day` (issue 23): what
/// the user wants of opens, read from blocker.toml. The words ("open",
/// "continuation", "pass") are in docs/ARCHITECTURE.md ("Opens").

/// The pause one group gets, every key resolved.
public struct PauseRule: Sendable, Equatable {
    /// The countdown; 0 only in `Config.resolvedPause` (no pause: `pauseRule` is nil then).
    public var seconds: Milliseconds
    /// A pause (and an open) only when the group was away this long; 0: every time.
    public var after: Milliseconds
    /// Whether the pause cover asks "why now?".
    public var askReason: Bool

    public init(seconds: Milliseconds, after: Milliseconds, askReason: Bool) {
        self.seconds = seconds
        self.after = after
        self.askReason = askReason
    }

    public static let defaultSeconds: Milliseconds = .seconds(10)
    public static let maximumSeconds: Int64 = 120
    /// Also the `after` of a group with only `opens-per-day`.
    public static let defaultAfter: Milliseconds = .minutes(15)
    public static let maximumAfter: Milliseconds = .days(1)
}

/// `[pause]` or `[group.pause]` as written: a key left out is nil. A group's
/// own table replaces `[pause]` key by key; what neither sets is the default.
public struct PauseSettings: Sendable, Equatable {
    /// `seconds`: the countdown; 0 = no pause.
    public var seconds: Milliseconds?
    /// `after`
    public var after: Milliseconds?
    /// `ask-reason`
    public var askReason: Bool?

    public init(seconds: Milliseconds? = nil, after: Milliseconds? = nil, askReason: Bool? = nil) {
        self.seconds = seconds
        self.after = after
        self.askReason = askReason
    }

    /// These keys, and `base`'s where these leave one out.
    public func over(_ base: PauseSettings) -> PauseSettings {
        PauseSettings(seconds: seconds ?? base.seconds, after: after ?? base.after, askReason: askReason ?? base.askReason)
    }

    /// Every key, the defaults where none is set.
    public var resolved: PauseRule {
        PauseRule(seconds: seconds ?? PauseRule.defaultSeconds, after: after ?? PauseRule.defaultAfter,
                  askReason: askReason ?? false)
    }
}

/// `[pass]`: the emergency pass, present only when the table is.
public struct PassRule: Sendable, Equatable {
    /// Passes per local ISO week (from Monday 00:00): 0…7.
    public var perWeek: Int
    /// How long one pass lifts a group's shield: 1m…2h.
    public var length: Milliseconds

    public init(perWeek: Int = 1, length: Milliseconds = .minutes(15)) {
        self.perWeek = perWeek
        self.length = length
    }

    public static let maximumPerWeek = 7
    public static let lengths: ClosedRange<Milliseconds> = Milliseconds.minutes(1)...Milliseconds.hours(2)
}

extension Config {
    /// The pause of `group` with every key resolved; `seconds` is 0 when it
    /// has none (no `[pause]` and no `[group.pause]`, or `seconds = 0`).
    public func resolvedPause(for group: AppGroup) -> PauseRule {
        // `[pause]` is for metered groups (what the balance pays for); an
        // unmetered group pauses only with a `[group.pause]` of its own.
        guard group.pause != nil || (pause != nil && group.metered) else {
            return PauseRule(seconds: 0, after: PauseRule.defaultAfter, askReason: false)
        }
        return (group.pause ?? PauseSettings()).over(pause ?? PauseSettings()).resolved
    }

    /// The pause `group` gets when it opens; nil: none.
    public func pauseRule(for group: AppGroup) -> PauseRule? {
        let rule = resolvedPause(for: group)
        return rule.seconds > 0 ? rule : nil
    }

    /// How long `group` must be away for its next appearance to be an open:
    /// its pause's `after`, or for a group with only `opens-per-day` the
    /// `after` of its tables (default 15m).
    public func openAfter(for group: AppGroup) -> Milliseconds {
        resolvedPause(for: group).after
    }

    /// Whether `group`'s opens are recorded: it has a pause or an opens cap.
    public func tracksOpens(of group: AppGroup) -> Bool {
        group.opensPerDay != nil || pauseRule(for: group) != nil
    }
}

// MARK: reading them from blocker.toml

extension PauseSettings {
    /// `[pause]` or `[group.pause]`.
    init(_ pause: ConfigSection) throws(ConfigError) {
        try pause.rejectUnknownKeys(known: ConfigKeys.pause.keys)
        self.init()
        let secondsExample = "seconds = 10"
        if let count = try pause.wholeNumber("seconds", expected: "a whole number of seconds", example: secondsExample) {
            guard (0...PauseRule.maximumSeconds).contains(count) else {
                throw pause.error("seconds", "\(count) is out of range: seconds must be from 0 to "
                    + "\(PauseRule.maximumSeconds); 0 means no pause (example: \(secondsExample))")
            }
            seconds = .seconds(count)
        }
        let afterExample = "after = \"15m\""
        if let (text, ms) = try pause.duration("after", example: afterExample) {
            guard ms >= 0 && ms <= PauseRule.maximumAfter else {
                throw pause.error("after", "\"\(text)\" is out of range: after must be from 0s (a pause every "
                    + "time) to 24h (example: \(afterExample))")
            }
            after = ms
        }
        askReason = try pause.bool("ask-reason", example: "ask-reason = true")
    }
}

extension PassRule {
    /// `[pass]`
    init(_ pass: ConfigSection) throws(ConfigError) {
        try pass.rejectUnknownKeys(known: ConfigKeys.pass.keys)
        self.init()
        let perWeekExample = "per-week = 1"
        if let count = try pass.wholeNumber("per-week", expected: "a whole number of passes", example: perWeekExample) {
            guard (0...Int64(Self.maximumPerWeek)).contains(count) else {
                throw pass.error("per-week", "\(count) is out of range: per-week must be from 0 to "
                    + "\(Self.maximumPerWeek) passes a week (from Monday 00:00) (example: \(perWeekExample))")
            }
            perWeek = Int(count)
        }
        let lengthExample = "length = \"15m\""
        if let (text, ms) = try pass.duration("length", example: lengthExample) {
            guard Self.lengths.contains(ms) else {
                throw pass.error("length", "\"\(text)\" is out of range: length must be from 1m to 2h "
                    + "(example: \(lengthExample))")
            }
            length = ms
        }
    }
}

extension ConfigSection {
    /// An integer, or a float with no fraction (JSON cannot tell 1.0 from 1).
    func wholeNumber(_ key: String, expected: String, example: String) throws(ConfigError) -> Int64? {
        guard let value = table[key] else { return nil }
        switch value {
        case .integer(let number):
            return number
        case .float(let number) where number.rounded() == number && abs(number) < 1e15:
            return Int64(number)
        default:
            throw typeError(key, expected: expected, example: example, found: value)
        }
    }
}
