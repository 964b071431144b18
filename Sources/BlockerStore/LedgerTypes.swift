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
    public var receivedMs: Int64
    /// When its loosenings apply (= receivedMs when it had none).
    public var applyMs: Int64
    /// What it loosens, one line each, as `config pending` shows them.
    public var changes: [String]
    public var cancelled: Bool

    public init(id: Int64, text: String, receivedMs: Int64, applyMs: Int64, changes: [String], cancelled: Bool) {
        self.id = id
        self.text = text
        self.receivedMs = receivedMs
        self.applyMs = applyMs
        self.changes = changes
        self.cancelled = cancelled
    }
}

/// One run of blockerd (`runs`).
public struct RunRecord: Equatable, Sendable {
    public var id: Int64
    public var pid: Int32
    public var startedMs: Int64
    public var lastTickMs: Int64
    public var endedMs: Int64?
    /// `stopped`, `watchdog`, `killed (SIGKILL)`, `crashed (SIGSEGV)`, `unknown`…
    public var endReason: String?
    /// The gap before this run was unguarded from here to `startedMs`
    /// (`Unguarded.since`); nil: logind was not asked or did not answer.
    public var unguardedSinceMs: Int64?

    public init(id: Int64, pid: Int32, startedMs: Int64, lastTickMs: Int64, endedMs: Int64?, endReason: String?,
                unguardedSinceMs: Int64? = nil) {
        self.id = id
        self.pid = pid
        self.startedMs = startedMs
        self.lastTickMs = lastTickMs
        self.endedMs = endedMs
        self.endReason = endReason
        self.unguardedSinceMs = unguardedSinceMs
    }

    /// Where the run's record stops: its end, or the last tick it noted.
    public var lastSignMs: Int64 { endedMs ?? lastTickMs }
}

extension Gap {
    /// The gaps between consecutive runs (oldest first); even a restart's
    /// half second is unguarded time. A run with no end reason ended unknown
    /// (kill -9, a crash).
    public static func between(_ runs: [RunRecord]) -> [Gap] {
        zip(runs, runs.dropFirst()).compactMap { previous, next in
            let from = previous.lastSignMs
            guard next.startedMs > from else { return nil }
            return Gap(fromMs: from, toMs: next.startedMs, reason: previous.endReason ?? Gap.unknown,
                       unguardedSinceMs: next.unguardedSinceMs)
        }
    }
}
