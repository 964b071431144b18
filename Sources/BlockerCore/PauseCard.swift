/// The pause before an app opens and the emergency pass (issue 23), as the
/// cover shows them: the pure half, so the countdown and the words are tested
/// without a display.

extension OverlayCard {
    /// A pause's countdown and its two answers ("Not now", "Open").
    public struct Pause: Equatable, Sendable {
        /// The group the answer is for (`AnswerPause`).
        public var group: String
        /// "Still want discord?"
        public var question: String
        /// The countdown's end (nil only from a malformed shield: "Open" at once); a new pause has a new one.
        public var until: WallInstant?
        /// Whole seconds until "Open" is enabled: rounded up, never below 0.
        public var secondsLeft: Int64
        /// Whether the one-line "why now?" field is shown.
        public var asksReason: Bool

        /// "Open" once the countdown is over; blockerd refuses it before.
        public var canOpen: Bool { secondsLeft == 0 }

        public init(group: String, question: String, until: WallInstant?, secondsLeft: Int64, asksReason: Bool) {
            self.group = group; self.question = question; self.until = until
            self.secondsLeft = secondsLeft; self.asksReason = asksReason
        }
    }

    /// The emergency pass's button, for a shield a pass lifts.
    public struct PassOffer: Equatable, Sendable {
        /// The group the pass is for (`UsePass`).
        public var group: String
        /// "Use a pass · 1 left this week".
        public var label: String

        public init(group: String, label: String) { self.group = group; self.label = label }
    }
}

/// The pause's countdown: whole seconds down to 0, when the number changes.
public enum PauseCountdown {
    /// Rounded up, so "0" shows exactly when "Open" is enabled (now ≥ until).
    public static func secondsLeft(until: WallInstant, now: WallInstant) -> Int64 {
        let left = until - now
        guard left > .zero else { return 0 }
        return (left + .seconds(1) - Milliseconds(ms: 1)).count(of: .seconds(1))
    }

    /// How long until the shown number next changes; nil once it shows 0
    /// (the cover's timer stops then).
    public static func nextTick(until: WallInstant, now: WallInstant) -> Milliseconds? {
        let left = until - now
        guard left > .zero else { return nil }
        let intoSecond = left % .seconds(1)
        return intoSecond == .zero ? .seconds(1) : intoSecond
    }
}

/// The "why now?" field: one line, at most what blockerd records.
public enum PauseReasonInput {
    /// `text` on one line, cut at a character so it fits `limitBytes` of UTF-8
    /// (a paste may bring more, or line ends).
    public static func fitted(_ text: String, limitBytes: Int) -> String {
        let line = String(text.map { $0 == "\n" || $0 == "\r" || $0 == "\r\n" ? " " : $0 })
        guard line.utf8.count > limitBytes else { return line }
        var kept = "", bytes = 0
        for character in line {
            bytes += character.utf8.count
            guard bytes <= limitBytes else { break }
            kept.append(character)
        }
        return kept
    }
}

/// What the pass's button and its answer say.
public enum PassText {
    /// "Use a pass · 1 left this week".
    public static func offer(passesLeft: Int) -> String {
        trn("Use a pass · {count} left this week", "Use a pass · {count} left this week", count: passesLeft)
    }

    /// What the card says when blockerd took the pass: "Pass used: open until 14:50".
    public static func used(until: WallInstant, now: WallInstant, zone: TimeZoneRules) -> String {
        tr("Pass used: open until {time}", ["time": ShieldText.clock(until, now: now, zone: zone)])
    }
}
