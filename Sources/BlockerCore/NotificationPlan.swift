/// A desktop notification blockerd wants shown (org.freedesktop.Notifications).
public struct NotificationRequest: Equatable, Sendable {
    public enum Kind: Equatable, Sendable {
        /// A `[warn] before` threshold was crossed.
        case warning
        /// Under the last threshold: one notification, updated in place.
        case countdown
        /// The shield went up.
        case shieldUp
    }
    public enum Urgency: UInt8, Sendable { case low = 0, normal = 1, critical = 2 }

    public var kind: Kind
    /// Plain text: the specification keeps markup out of the summary, and
    /// servers show it as it is (dunst escapes it itself).
    public var summary: String
    /// Plain text; servers parse the body as markup, so it is sent as `markupBody`.
    public var body: String
    public var urgency: Urgency

    /// The body as `Notify` carries it: an app id, a group name or a title
    /// in it shows as typed, never as markup.
    public var markupBody: String { MarkupText.escaped(body) }
}

/// Decides which notifications a tick deserves: one per threshold crossing,
/// a countdown updated in place under the last threshold, "Time's up" when
/// the shield goes up — and none while the screen is locked. Pure; the daemon
/// sends what it returns and remembers the countdown's id.
public struct NotificationPlan: Sendable {
    public let thresholds: [Milliseconds]
    /// The countdown's text last shown, so an unchanged text is not re-sent.
    private var countdownText: String?

    public init(thresholds: [Milliseconds]) {
        self.thresholds = thresholds.sorted(by: >)
    }

    public struct Tick: Sendable {
        public var app: String?
        public var metered: Bool
        public var locked: Bool
        public var balance: Milliseconds
        /// Thresholds the balance crossed this tick.
        public var crossed: [Milliseconds]
        /// The shield, when it just went up this tick.
        public var shieldRaised: Shield?
        public var shieldText: String?

        public init(app: String?, metered: Bool, locked: Bool, balance: Milliseconds, crossed: [Milliseconds],
                    shieldRaised: Shield? = nil, shieldText: String? = nil) {
            self.app = app; self.metered = metered; self.locked = locked; self.balance = balance
            self.crossed = crossed; self.shieldRaised = shieldRaised; self.shieldText = shieldText
        }
    }

    public mutating func plan(_ tick: Tick) -> [NotificationRequest] {
        if tick.locked { return [] }
        var out: [NotificationRequest] = []
        let app = tick.app ?? tr("this app")
        if let shield = tick.shieldRaised {
            countdownText = nil
            let summary = shield.reason == .balance ? tr("Time's up for {app}", ["app": shield.app])
                : tr("{app} is blocked", ["app": shield.app])
            let why = tick.shieldText ?? ""
            let body = shield.reason == .balance ? tr("{why} — earn more with: blockerctl earn REPS", ["why": why]) : why
            return [NotificationRequest(kind: .shieldUp, summary: summary, body: body, urgency: .normal)]
        }
        guard tick.metered, tick.balance > 0 else {
            countdownText = nil
            return []
        }
        // The smallest crossed threshold speaks for the tick (a jump over several says one thing).
        if let threshold = tick.crossed.min(), threshold != thresholds.last {
            out.append(NotificationRequest(kind: .warning,
                                           summary: tr("{time} left for {app}", ["time": DurationText.format(threshold), "app": app]),
                                           body: tr("Earned time left: {time}", ["time": DurationText.format(tick.balance)]),
                                           urgency: .normal))
        }
        if let last = thresholds.last, tick.balance <= last {
            let text = tr("{time} left for {app}", ["time": DurationText.format(tick.balance), "app": app])
            if text != countdownText {
                countdownText = text
                out.append(NotificationRequest(kind: .countdown, summary: text,
                                               body: tr("Earn more with: blockerctl earn REPS"), urgency: .low))
            }
        }
        return out
    }
}
