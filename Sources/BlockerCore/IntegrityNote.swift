/// Something blockerd saw that may have been a way around it, kept in the
/// ledger with the stretch of time it concerned, so that `blockerctl
/// history` (the chart, --json, --csv), `report` and `doctor` show it (and
/// the journal said it when it happened).
/// Notes never block; they make a way around visible.
public struct IntegrityNote: Equatable, Sendable {
    public enum Kind: String, Sendable, CaseIterable {
        /// A screen lock the evidence contradicted (the window in front
        /// changed, input went on): not honoured, so the time is charged.
        case lockNotHonoured = "lock-not-honoured"
        /// blockerd's loop did not run (SIGSTOP, a stall) while an app was
        /// charged; `text` says how much of it was charged.
        case stall
        /// blockerd started with another environment than its last run
        /// (time zone, state directory, display, LD_PRELOAD…).
        case environment
        /// Strict mode: blocker.toml did not load at start; blockerd ran on
        /// the version in force from the ledger until it loaded again.
        case configUnreadable = "config-unreadable"
        /// A shield with no cover drawn (blocker-overlay stopped, killed or
        /// drawing nothing): the time was charged; `text` says how much.
        case uncovered
        /// A program that is not blocker's cover claimed to be (owned the
        /// cover's bus name, called CoverShown): ignored.
        case coverRefused = "cover-refused"
        /// The ledger was edited outside blocker (the seal, the earnings
        /// chain or the journal's anchor says so).
        case ledgerEdited = "ledger-edited"

        /// The few words a history line starts with.
        public var label: String {
            switch self {
            case .lockNotHonoured: "lock not honoured"
            case .stall: "stalled"
            case .environment: "environment changed"
            case .configUnreadable: "config unreadable"
            case .uncovered: "uncovered"
            case .coverRefused: "cover refused"
            case .ledgerEdited: "ledger edited"
            }
        }
    }

    public var kind: Kind
    /// `to` ≥ `from` (equal for an instant, as an environment change).
    public var from: WallInstant
    public var to: WallInstant
    /// What happened, in words, for people.
    public var text: String

    public init(kind: Kind, from: WallInstant, to: WallInstant, text: String) {
        self.kind = kind
        self.from = from
        self.to = max(to, from)
        self.text = text
    }

    /// "lock not honoured 14:02 for 18m 00s: …", the time of day in `zone`;
    /// `duration` words the time it concerned (the report's picture: minutes).
    public func line(zone: TimeZoneRules, duration: (Milliseconds) -> String = DurationText.format) -> String {
        let at = ShieldText.clock(from, now: from, zone: zone)
        let span = to > from ? " for \(duration(to - from))" : ""
        return "\(kind.label) \(at)\(span): \(text)"
    }
}
