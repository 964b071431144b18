/// Opens, pauses and passes (issue 23): what the ledger keeps of them and
/// what the policy reads. The words are in docs/ARCHITECTURE.md ("Opens").

/// How an open ended, or that it has not yet.
public enum OpenOutcome: String, Sendable, CaseIterable {
    /// The pause's countdown is on, or over and unanswered: the window is covered.
    case pausing
    /// It went on: "Open" after the countdown, or no pause was due.
    case opened
    /// The user chose "Not now" on the pause cover.
    case notNow = "not-now"
    /// Another window came to the front before an answer.
    case left
    /// Over `opens-per-day`: the group is covered until the next local midnight.
    case capped
    /// blockerd stopped during the pause (found so at the next start).
    case interrupted
}

/// One open of a group: a row of the ledger's `opens`.
public struct OpenRecord: Equatable, Sendable {
    public var id: Int64
    /// The group's name, lowercased.
    public var group: String
    /// The local day it counts for.
    public var day: CivilDate
    public var at: WallInstant
    /// The last tick the group was in front as part of this open (an
    /// `opened` open goes on while it comes back within `after` of this).
    public var lastSeen: WallInstant
    public var outcome: OpenOutcome
    /// Whether a pause was shown.
    public var paused: Bool
    /// The answer to "why now?", when asked and given.
    public var reason: String?

    public init(id: Int64, group: String, day: CivilDate, at: WallInstant, lastSeen: WallInstant,
                outcome: OpenOutcome, paused: Bool, reason: String? = nil) {
        self.id = id
        self.group = group.lowercased()
        self.day = day
        self.at = at
        self.lastSeen = lastSeen
        self.outcome = outcome
        self.paused = paused
        self.reason = reason
    }
}

/// One emergency pass: a row of the ledger's `passes`.
public struct PassRecord: Equatable, Sendable {
    public var id: Int64
    /// The group's name, lowercased.
    public var group: String
    public var at: WallInstant
    public var until: WallInstant

    public init(id: Int64, group: String, at: WallInstant, until: WallInstant) {
        self.id = id
        self.group = group.lowercased()
        self.at = at
        self.until = until
    }

    public func isRunning(at now: WallInstant) -> Bool { at <= now && now < until }
}

/// What the policy needs of opens and passes: the ledger's view on one local day.
public struct OpenBook: Equatable, Sendable {
    /// The local day `opensToday` and `cappedToday` are of.
    public var day: CivilDate
    /// Per group (lowercased): its newest open, of any day.
    public var latest: [String: OpenRecord]
    /// Per group (lowercased): its opens on `day`, any outcome.
    public var opensToday: [String: Int]
    /// The groups (lowercased) with a `capped` open on `day`.
    public var cappedToday: Set<String>
    /// The passes of this local week (Monday 00:00 on), running or over.
    public var passes: [PassRecord]

    public init(day: CivilDate, latest: [String: OpenRecord] = [:], opensToday: [String: Int] = [:],
                cappedToday: Set<String> = [], passes: [PassRecord] = []) {
        self.day = day
        self.latest = latest
        self.opensToday = opensToday
        self.cappedToday = cappedToday
        self.passes = passes
    }

    /// The pass of `group` running at `now`, if any (the longest-running one).
    public func runningPass(_ group: String, at now: WallInstant) -> PassRecord? {
        let key = group.lowercased()
        return passes.filter { $0.group == key && $0.isRunning(at: now) }.max { $0.until < $1.until }
    }
}

/// Per local day and group: what `history`, `report` and `status --json` show of opens and passes.
public struct OpenDaySummary: Equatable, Sendable {
    public var day: CivilDate
    /// The group's name, lowercased.
    public var group: String
    /// Opens of any outcome.
    public var opens: Int
    /// Opens that showed a pause.
    public var paused: Int
    /// Pauses answered "Not now" (the figure the study reports as given up).
    public var notNow: Int
    /// Pauses left for another window before an answer.
    public var left: Int
    /// Pauses given up: answered "Not now", or left before an answer (the share the study reports).
    public var givenUp: Int { notNow + left }
    /// Opens refused by `opens-per-day`.
    public var capped: Int
    /// Passes used.
    public var passes: Int
    /// The answers to "why now?", oldest first.
    public var reasons: [String]

    public init(day: CivilDate, group: String, opens: Int = 0, paused: Int = 0, notNow: Int = 0, left: Int = 0,
                capped: Int = 0, passes: Int = 0, reasons: [String] = []) {
        self.day = day
        self.group = group.lowercased()
        self.opens = opens
        self.paused = paused
        self.notNow = notNow
        self.left = left
        self.capped = capped
        self.passes = passes
        self.reasons = reasons
    }
}
