// Pure: tick data that is not committed yet (the write failed, or is about to
// be made). Kept in memory and merged into the next transaction, so a full disk
// loses nothing and a retry writes everything exactly once.
import BlockerCore

struct UsageKey: Hashable, Sendable {
    var day: CivilDate
    var group: String
    var app: String
}

struct PendingWrites: Sendable {
    /// The `spent_by_day` row for a debit that came without a day: kept so
    /// the per-day table still sums to the spent total, never shown in history.
    static let undatedDay = ""

    private(set) var debit: Milliseconds = 0
    /// nil: debits that came without a day (`undatedDay`).
    private(set) var spentByDay: [CivilDate?: Milliseconds] = [:]
    private(set) var usage: [UsageKey: Milliseconds] = [:]
    /// Open id → the newest tick it was seen in front (`opens.last_seen_ms`).
    private(set) var seen: [Int64: WallInstant] = [:]

    var isEmpty: Bool { debit == 0 && usage.isEmpty && seen.isEmpty }

    /// The time in front these writes hold: what a kill -9 would lose. The
    /// debit, or the usage where it is more (a daily limit's group charges
    /// use, not balance; an app in two groups counts twice: commits sooner).
    var chargedMs: Milliseconds { max(debit, usage.values.reduce(0, +)) }

    /// A debit never takes the balance below zero, and is never negative.
    static func clampedDebit(_ requested: Milliseconds, available: Milliseconds) -> Milliseconds {
        min(max(requested, 0), max(available, 0))
    }

    /// Adds an already clamped debit and the tick's usage. Entries of zero or
    /// less are not time anyone spent; they are dropped.
    mutating func add(debit: Milliseconds, spentDay: CivilDate?, usage entries: [UsageEntry]) {
        if debit > 0 {
            self.debit += debit
            spentByDay[spentDay, default: 0] += debit
        }
        for entry in entries where entry.ms > 0 {
            usage[UsageKey(day: entry.day, group: entry.group, app: entry.app), default: 0] += entry.ms
        }
    }

    /// Open `id` was in front at `at`; its last_seen never moves back.
    mutating func see(open id: Int64, at: WallInstant) {
        seen[id] = max(seen[id] ?? at, at)
    }

    func usedByGroup(on day: CivilDate) -> [String: Milliseconds] {
        var totals: [String: Milliseconds] = [:]
        for (key, ms) in usage where key.day == day { totals[key.group, default: 0] += ms }
        return totals
    }
}
