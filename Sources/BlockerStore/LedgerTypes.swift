import BlockerCore

/// What one tick of the daemon's loop has to save.
public struct TickRecord: Sendable {
    /// Balance spent this tick (≥ 0; the ledger clamps it to what is left).
    public var debit: Milliseconds
    /// The local day the debit counts for in history; nil: no day.
    public var spentDay: CivilDate?
    public var usage: [UsageEntry]

    public init(debit: Milliseconds = 0, spentDay: CivilDate? = nil, usage: [UsageEntry] = []) {
        self.debit = debit
        self.spentDay = spentDay
        self.usage = usage
    }
}

/// One local day of history.
public struct DaySummary: Equatable, Sendable {
    public var day: CivilDate
    public var earnedMs: Milliseconds
    public var spentMs: Milliseconds
    public var usedByGroup: [String: Milliseconds]

    public init(day: CivilDate, earnedMs: Milliseconds = 0, spentMs: Milliseconds = 0,
                usedByGroup: [String: Milliseconds] = [:]) {
        self.day = day
        self.earnedMs = earnedMs
        self.spentMs = spentMs
        self.usedByGroup = usedByGroup
    }
}

/// The stored totals and the sums they must equal, read from the file (for
/// `blockerctl doctor` and the tests).
public struct LedgerAudit: Equatable, Sendable {
    public var balance: Milliseconds
    public var earnedTotal: Milliseconds
    public var spentTotal: Milliseconds
    /// Sum of every row of the earnings table.
    public var sumOfEarnings: Milliseconds
    /// Sum of the per-day spent table (including debits without a day).
    public var sumOfSpentByDay: Milliseconds

    public var isConsistent: Bool {
        balance >= 0 && balance == earnedTotal - spentTotal
            && sumOfEarnings == earnedTotal && sumOfSpentByDay == spentTotal
    }
}

/// One blocker.toml as blockerd read it, kept for strict mode (`config_versions`).
public struct StoredConfigVersion: Equatable, Sendable {
    public var id: Int64
    /// The file's text, parsed again at each start.
    public var text: String
    public var receivedAt: WallInstant
    /// When its loosenings apply (= receivedAt when it had none).
    public var applyAt: WallInstant
    /// What it loosens, one line each, as `config pending` shows them.
    public var changes: [String]
    public var cancelled: Bool

    public init(id: Int64, text: String, receivedAt: WallInstant, applyAt: WallInstant, changes: [String], cancelled: Bool) {
        self.id = id
        self.text = text
        self.receivedAt = receivedAt
        self.applyAt = applyAt
        self.changes = changes
        self.cancelled = cancelled
    }
}

/// One run of blockerd (`runs`).
public struct RunRecord: Equatable, Sendable {
    public var id: Int64
    public var pid: Int32
    public var started: WallInstant
    public var lastTick: WallInstant
    public var ended: WallInstant?
    /// `stopped`, `watchdog`, `killed (SIGKILL)`, `crashed (SIGSEGV)`, `unknown`…
    public var endReason: String?
    /// The gap before this run was unguarded from here to `started`
    /// (`Unguarded.since`); nil: logind was not asked or did not answer.
    public var unguardedSince: WallInstant?

    public init(id: Int64, pid: Int32, started: WallInstant, lastTick: WallInstant, ended: WallInstant?, endReason: String?,
                unguardedSince: WallInstant? = nil) {
        self.id = id
        self.pid = pid
        self.started = started
        self.lastTick = lastTick
        self.ended = ended
        self.endReason = endReason
        self.unguardedSince = unguardedSince
    }

    /// Where the run's record stops: its end, or the last tick it noted.
    public var lastSign: WallInstant { ended ?? lastTick }
}

extension Gap {
    /// The gaps between consecutive runs (oldest first); even a restart's
    /// half second is unguarded time. A run with no end reason ended unknown
    /// (kill -9, a crash).
    public static func between(_ runs: [RunRecord]) -> [Gap] {
        zip(runs, runs.dropFirst()).compactMap { previous, next in
            let from = previous.lastSign
            guard next.started > from else { return nil }
            return Gap(from: from, to: next.started, reason: previous.endReason ?? Gap.unknown,
                       unguardedSince: next.unguardedSince)
        }
    }
}
