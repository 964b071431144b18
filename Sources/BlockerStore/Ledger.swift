import BlockerCore
import BlockerSystem

/// The durable record of what happened: balance, earnings, usage per day and
/// timed blocks, in `blocker.db` (SQLite, WAL).
///
/// One owner, one thread (the daemon's loop). Blocker's daemon is the only
/// writer; other connections may read. The account row is cached: `balance`
/// and `timedBlocks` never touch the disk.
public final class Ledger {
    public let path: String
    /// The connection; internal so tests can reach the real file's pragmas.
    let database: SQLiteDatabase

    private struct Account: Equatable {
        var balance: Milliseconds
        var earnedTotal: Milliseconds
        var spentTotal: Milliseconds

        init(_ row: SQLiteRow) {
            balance = row.duration(0)
            earnedTotal = row.duration(1)
            spentTotal = row.duration(2)
        }
    }

    /// `PRAGMA data_version` after our last transaction (nil before the first).
    var lastDataVersion: Int64?
    /// Another connection's commit that one of blocker's own writes came
    /// upon (the write then moves `lastDataVersion` past it): still news for
    /// `changedOutside()` until `outsideChangeChecked()`.
    var outsideCommitUnchecked = false
    /// The rows blocker's last commit sealed (`LedgerSeal.SealRows`); nil
    /// after a failed write, and before the first.
    var sealRows: LedgerSeal.SealRows?
    /// Hand edits found since open (each also a `ledger_edits` row).
    public internal(set) var editsFound = 0
    /// Blocker's own write transactions since open.
    public private(set) var commits = 0
    /// When blocker last wrote, nil before its first write since open.
    public private(set) var lastWrite: WallInstant?

    /// As committed.
    private var account: Account
    /// Tick data not committed yet (and opens seen since the last commit).
    var pending = PendingWrites()
    /// Committed usage per group, for the few days `usedToday` was asked about.
    private var committedUsage: [CivilDate: [String: Milliseconds]] = [:]
    /// target → end instant, as committed.
    private var blocks: [String: WallInstant]
    /// The last instant `timedBlocks(activeAt:)` was asked about: blocks that
    /// ended by then are pruned on the next block write. The ledger has no clock.
    private var lastAsked: WallInstant?

    private static let accountColumns = "balance_ms, earned_total_ms, spent_total_ms"

    /// Opens `STATE_DIR/blocker.db`, creating the directory (0700, parents
    /// too) and the file (0600) when missing. An existing directory keeps its mode.
    public static func open(stateDirectory: String) throws(StoreError) -> Ledger {
        try StateFiles.createDirectory(stateDirectory)
        let directory = stateDirectory.hasSuffix("/") ? String(stateDirectory.dropLast()) : stateDirectory
        return try Ledger(path: directory + "/" + BlockerPaths.ledgerFileName)
    }

    /// Opens (or creates, 0600) the ledger at `path`. A file that is neither
    /// empty nor blocker's database is refused and left byte-for-byte as it was.
    public init(path: String) throws(StoreError) {
        self.path = path
        var kind = try StateFiles.prepareDatabaseFile(path)
        if kind == .missing || kind == .empty {
            try StateFiles.createAtomically(path, replacingEmpty: kind == .empty) { (temporary: String) throws(StoreError) in
                try Schema.create(at: temporary)
            }
            kind = try StateFiles.prepareDatabaseFile(path)
        }
        do throws(SQLiteError) {
            // No .create: the file exists by now, and SQLite must never make one.
            database = try SQLiteDatabase(path: path, flags: [.readWrite, .noMutex, .extendedResultCodes])
        } catch {
            throw StoreError(error, path: path, action: "cannot open the ledger")
        }
        try Schema.prepare(database, path: path)
        let loaded: (Account?, [String: WallInstant])
        do throws(SQLiteError) {
            let account = try database.firstRow("SELECT \(Self.accountColumns) FROM account WHERE id = 1", [], Account.init)
            var blocks: [String: WallInstant] = [:]
            for (target, until) in try database.rows("SELECT target, until_ms FROM timed_blocks", [], {
                ($0.text(0), $0.instant(1))
            }) { blocks[target] = until }
            loaded = (account, blocks)
        } catch {
            throw StoreError(error, path: path, action: "cannot read the ledger")
        }
        guard let account = loaded.0 else {
            throw StoreError(.inconsistent, path: path, action: "cannot read the ledger", detail: "the account row is missing")
        }
        self.account = account
        self.blocks = loaded.1
    }

    /// Closes the file. Unsaved tick data is dropped: call `flushPending` first.
    public func close() {
        database.close()
    }

    // MARK: Balance and earnings

    /// Spendable balance, including debits not saved yet.
    public var balance: Milliseconds { account.balance - pending.debit }

    /// True while tick data waits for a successful write.
    public var hasPending: Bool { !pending.isEmpty }
    /// The time in front what is pending holds (`PendingWrites.chargedMs`).
    public var pendingChargedMs: Milliseconds { pending.chargedMs }

    /// How many of the newest earnings keep their request id: a retry comes
    /// seconds after its call, so a few dozen are plenty.
    static let requestIDsKept: Int64 = 64

    /// What the earning first credited under `requestID` earned; nil when
    /// none is known (never seen, or too long ago).
    public func earning(requestID: String) throws(StoreError) -> Milliseconds? {
        try read("cannot read the earnings") { () throws(SQLiteError) in
            try database.firstRow("SELECT ms FROM earnings WHERE request_id = ?", [.text(requestID)]) { $0.duration(0) }
        }
    }

    /// Credits `reps × perRep` and returns when the earning is on disk (fsync'd).
    /// On failure nothing changes. `day` is the local day it counts for in
    /// history, from the caller's calendar (the daemon owns the time zone).
    /// `requestID`: the caller's id for it (`earning(requestID:)`).
    public func earn(exercise: String, reps: Int, perRep: Milliseconds, at: WallInstant,
                     day: CivilDate, requestID: String? = nil) throws(StoreError) -> (earned: Milliseconds, balance: Milliseconds) {
        guard reps > 0, perRep >= 0 else {
            throw invalid("cannot save the earning", "reps must be at least 1 and the rate not negative (got \(reps) × \(perRep) ms)")
        }
        let (product, overflow) = Int64(reps).multipliedReportingOverflow(by: perRep.ms)
        let earned = Milliseconds(ms: product)
        guard !overflow, earned <= Milliseconds.max - account.earnedTotal else {
            throw invalid("cannot save the earning", "\(reps) × \(perRep) ms does not fit in the ledger")
        }
        let totals = try write("cannot save the earning", durable: true) { () throws(SQLiteError) in
            let totals = try database.firstRow(
                """
                UPDATE account SET balance_ms = balance_ms + ?1, earned_total_ms = earned_total_ms + ?1
                WHERE id = 1 RETURNING \(Self.accountColumns)
                """, [.duration(earned)], Account.init)
            let chain = EarningChain.link(after: try EarningChain.head(database), at: at, day: day.description,
                                          exercise: exercise, reps: Int64(reps), ms: earned)
            let id = try database.firstRow("""
                INSERT INTO earnings (at_ms, day, exercise, reps, ms, chain, request_id) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id
                """, [.instant(at), .text(day.description), .text(exercise), .integer(Int64(reps)), .duration(earned), .text(chain),
                      requestID.map { .text($0) } ?? .null]) { $0.int64(0) } ?? 0
            if requestID != nil {
                try database.run("UPDATE earnings SET request_id = NULL WHERE request_id IS NOT NULL AND id <= ?",
                                 [.integer(id - Self.requestIDsKept)])
            }
            guard let totals else { throw SQLiteError(code: .corrupt, message: "the account row is missing") }
            return totals
        }
        account = totals
        return (earned, balance)
    }

    /// What `[earn] max-per-day` and `min-gap` are checked against: the sum
    /// earned on `day` and the newest earning's instant, read from the file.
    public func earningHistory(day: CivilDate) throws(StoreError) -> EarnLimits.History {
        try read("cannot read the earnings") { () throws(SQLiteError) in
            try database.firstRow("""
                SELECT (SELECT coalesce(sum(ms), 0) FROM earnings WHERE day = ?1),
                       (SELECT count(*) FROM earnings),
                       (SELECT coalesce(max(at_ms), 0) FROM earnings WHERE id = (SELECT max(id) FROM earnings))
                """, [.text(day.description)]) {
                EarnLimits.History(earnedToday: $0.duration(0), lastEarningAt: $0.int64(1) > 0 ? $0.instant(2) : nil)
            } ?? EarnLimits.History(earnedToday: 0, lastEarningAt: nil)
        }
    }

    /// Newest first.
    public func earnings(limit: Int) throws(StoreError) -> [(at: WallInstant, exercise: String, reps: Int, ms: Milliseconds)] {
        try read("cannot read the earnings") { () throws(SQLiteError) in
            try database.rows("SELECT at_ms, exercise, reps, ms FROM earnings ORDER BY id DESC LIMIT ?",
                              [.integer(Int64(max(limit, 0)))]) {
                (at: $0.instant(0), exercise: $0.text(1), reps: Int($0.int64(2)), ms: $0.duration(3))
            }
        }
    }

    // MARK: Ticks

    /// Adds one tick to what is pending and saves everything pending in one
    /// transaction (blockerd batches with `pend`: see `Daemon.commitIsDue`).
    /// The debit is clamped so the balance stays ≥ 0; returns the clamped
    /// debit. Pending ticks count in `balance`, `usedToday` and `history`. On
    /// failure (disk full, I/O error) they stay in memory, are retried by the
    /// next commit or `flushPending`, and the error is thrown for the caller to report.
    /// `available`: the balance the debit is clamped to when it is more than
    /// this ledger's own (`[sync]`: every machine's); what goes beyond this
    /// ledger's balance is spent from another machine's earnings, and only the
    /// sync folder's log keeps it (the account never goes below zero).
    @discardableResult
    public func record(_ tick: TickRecord, available: Milliseconds? = nil) throws(StoreError) -> Milliseconds {
        let debit = pend(tick, available: available)
        try flushPending()
        return debit
    }

    /// `record` without the commit: the caller decides on it with the tick
    /// counted (`pendingChargedMs`), then calls `flushPending`.
    @discardableResult
    public func pend(_ tick: TickRecord, available: Milliseconds? = nil) -> Milliseconds {
        let debit = PendingWrites.clampedDebit(tick.debit, available: available ?? balance)
        pending.add(debit: PendingWrites.clampedDebit(debit, available: balance), spentDay: tick.spentDay, usage: tick.usage)
        return debit
    }

    /// Writes pending tick data without adding any (a batch that is due, a
    /// retry, the last one at shutdown).
    public func flushPending() throws(StoreError) {
        guard !pending.isEmpty else { return }
        let batch = pending
        // Synchronous NORMAL: under WAL a power cut may lose the last ticks but
        // never corrupts; an fsync a second would keep laptop disks awake.
        let totals = try write("cannot save usage", tick: true) { () throws(SQLiteError) in
            var totals: Account?
            if batch.debit > 0 {
                totals = try database.firstRow(
                    """
                    UPDATE account SET balance_ms = balance_ms - ?1, spent_total_ms = spent_total_ms + ?1
                    WHERE id = 1 RETURNING \(Self.accountColumns)
                    """, [.duration(batch.debit)], Account.init)
                guard totals != nil else { throw SQLiteError(code: .corrupt, message: "the account row is missing") }
            }
            for (day, ms) in batch.spentByDay {
                try database.run("""
                    INSERT INTO spent_by_day (day, spent_ms) VALUES (?1, ?2)
                    ON CONFLICT (day) DO UPDATE SET spent_ms = spent_ms + excluded.spent_ms
                    """, [.text(day?.description ?? PendingWrites.undatedDay), .duration(ms)])
            }
            for (key, ms) in batch.usage {
                try database.run("""
                    INSERT INTO usage (day, group_name, app, ms) VALUES (?1, ?2, ?3, ?4)
                    ON CONFLICT (day, group_name, app) DO UPDATE SET ms = ms + excluded.ms
                    """, [.text(key.day.description), .text(key.group), .text(key.app), .duration(ms)])
            }
            for (id, at) in batch.seen {
                try database.run("UPDATE opens SET last_seen_ms = max(last_seen_ms, ?) WHERE id = ?", [.instant(at), .integer(id)])
            }
            return totals
        }
        // Committed: move the batch from pending into the caches.
        if let totals { account = totals }
        for (key, ms) in batch.usage where committedUsage[key.day] != nil {
            committedUsage[key.day]![key.group, default: 0] += ms
        }
        pending = PendingWrites()
    }

    // MARK: Usage and history

    /// Time used per group on `day`, unsaved ticks included. Served from memory
    /// after the first call for a day. If that first read fails, only unsaved
    /// usage is shown and the read is retried next call (a failing disk is
    /// reported by the next write).
    public func usedToday(day: CivilDate) -> [String: Milliseconds] {
        var totals = committedUsage[day] ?? loadCommittedUsage(day: day) ?? [:]
        for (group, ms) in pending.usedByGroup(on: day) { totals[group, default: 0] += ms }
        return totals
    }

    private func loadCommittedUsage(day: CivilDate) -> [String: Milliseconds]? {
        guard let rows = try? database.rows(
            "SELECT group_name, sum(ms) FROM usage WHERE day = ? GROUP BY group_name", [.text(day.description)],
            { ($0.text(0), $0.duration(1)) }) else { return nil }
        // The daemon asks about today; keep just a few days.
        if committedUsage.count >= 3 { committedUsage = [:] }
        let totals = Dictionary(rows, uniquingKeysWith: +)
        committedUsage[day] = totals
        return totals
    }

    /// Per-day summaries for `fromDay…toDay` (inclusive), ascending; days
    /// without any activity are omitted. Unsaved ticks are included. A row
    /// whose day is not a date (written by hand) is left out.
    public func history(fromDay: CivilDate, toDay: CivilDate) throws(StoreError) -> [DaySummary] {
        var days: [CivilDate: DaySummary] = [:]
        func update(_ text: String, _ change: (inout DaySummary) -> Void) {
            guard let day = CivilDate(iso: text) else { return }
            update(day, change)
        }
        func update(_ day: CivilDate, _ change: (inout DaySummary) -> Void) {
            change(&days[day, default: DaySummary(day: day)])
        }
        let range: [SQLValue] = [.text(fromDay.description), .text(toDay.description)]
        try read("cannot read the history") { () throws(SQLiteError) in
            for (day, ms) in try database.rows(
                "SELECT day, sum(ms) FROM earnings WHERE day BETWEEN ?1 AND ?2 GROUP BY day", range,
                { ($0.text(0), $0.duration(1)) }) { update(day) { $0.earnedMs += ms } }
            for (day, ms) in try database.rows(
                "SELECT day, spent_ms FROM spent_by_day WHERE day BETWEEN ?1 AND ?2", range,
                { ($0.text(0), $0.duration(1)) }) { update(day) { $0.spentMs += ms } }
            for (day, group, ms) in try database.rows(
                "SELECT day, group_name, sum(ms) FROM usage WHERE day BETWEEN ?1 AND ?2 GROUP BY day, group_name", range,
                { ($0.text(0), $0.text(1), $0.duration(2)) }) { update(day) { $0.usedByGroup[group, default: 0] += ms } }
        }
        func inRange(_ day: CivilDate) -> Bool { fromDay <= day && day <= toDay }
        for case let (day?, ms) in pending.spentByDay where inRange(day) { update(day) { $0.spentMs += ms } }
        for (key, ms) in pending.usage where inRange(key.day) {
            update(key.day) { $0.usedByGroup[key.group, default: 0] += ms }
        }
        return days.values.sorted { $0.day < $1.day }
    }

    /// The stored totals and their sums, read from the file, not the cache.
    public func audit() throws(StoreError) -> LedgerAudit {
        let audit = try read("cannot audit the ledger") { () throws(SQLiteError) in
            try database.firstRow("""
                SELECT balance_ms, earned_total_ms, spent_total_ms,
                       (SELECT coalesce(sum(ms), 0) FROM earnings),
                       (SELECT coalesce(sum(spent_ms), 0) FROM spent_by_day)
                FROM account WHERE id = 1
                """) {
                LedgerAudit(balance: $0.duration(0), earnedTotal: $0.duration(1), spentTotal: $0.duration(2),
                            sumOfEarnings: $0.duration(3), sumOfSpentByDay: $0.duration(4))
            }
        }
        guard let audit else {
            throw StoreError(.inconsistent, path: path, action: "cannot audit the ledger", detail: "the account row is missing")
        }
        return audit
    }

    // MARK: Timed blocks

    /// Blocks `target` (stored lowercase) until `until`. A running block is
    /// never shortened: the later end wins. Returns the effective end.
    public func setTimedBlock(target: String, until: WallInstant) throws(StoreError) -> WallInstant {
        let key = target.lowercased()
        guard !key.isEmpty else { throw invalid("cannot save the timed block", "the target is empty") }
        let prune = lastAsked
        let end = try write("cannot save the timed block", durable: true) { () throws(SQLiteError) in
            if let prune { try database.run("DELETE FROM timed_blocks WHERE until_ms <= ?", [.instant(prune)]) }
            return try database.firstRow("""
                INSERT INTO timed_blocks (target, until_ms) VALUES (?1, ?2)
                ON CONFLICT (target) DO UPDATE SET until_ms = max(until_ms, excluded.until_ms)
                RETURNING until_ms
                """, [.text(key), .instant(until)]) { $0.instant(0) } ?? until
        }
        if let prune { blocks = blocks.filter { $0.value > prune } }
        blocks[key] = end
        return end
    }

    /// Removes the block on `target`; true if one was still running (ending
    /// after the last instant `timedBlocks` was asked about).
    public func removeTimedBlock(target: String) throws(StoreError) -> Bool {
        let key = target.lowercased()
        let removed = try write("cannot remove the timed block", durable: true) { () throws(SQLiteError) in
            try database.firstRow("DELETE FROM timed_blocks WHERE target = ? RETURNING until_ms",
                                  [.text(key)]) { $0.instant(0) }
        }
        blocks[key] = nil
        guard let removed else { return false }
        return lastAsked.map { removed > $0 } ?? true
    }

    /// Blocks still running at `activeAt` (ending strictly after it), by target.
    public func timedBlocks(activeAt: WallInstant) -> [TimedBlock] {
        lastAsked = activeAt
        return blocks.filter { $0.value > activeAt }
            .map { TimedBlock(target: $0.key, until: $0.value) }
            .sorted { $0.target < $1.target }
    }

    // MARK: Plumbing

    /// One transaction; SQLite errors become a StoreError naming the file.
    /// `durable`: synchronous=FULL for this commit, so the WAL is fsync'd before
    /// the call returns (a user's action must survive a power cut; ticks need not).
    /// `tick`: the body writes only what a tick's commit writes (see
    /// `LedgerSeal.tickTables`), so the seal reads only those tables again.
    func write<T>(_ action: String, durable: Bool = false, tick: Bool = false,
                          _ body: () throws(SQLiteError) -> T) throws(StoreError) -> T {
        do throws(SQLiteError) {
            if durable { try database.run("PRAGMA synchronous = FULL") }
            // If switching back fails we merely stay on FULL: slower, not less safe.
            defer { if durable { try? database.run("PRAGMA synchronous = NORMAL") } }
            defer { commits &+= 1 }   // counts attempts too: only "anything new?" is asked of it
            // Kept only once a transaction committed (a rolled-back one leaves the file as it was).
            let previous = sealRows
            sealRows = nil
            var sealed: LedgerSeal.SealRows?
            let value = try database.transaction { () throws(SQLiteError) -> T in
                // Only another connection's commit changes data_version (read
                // under the write lock, so none can slip in after it): then the
                // tables may not match the seal (a hand edit), and it is noted.
                let version = try database.firstRow("PRAGMA data_version") { $0.int64(0) }
                let now = WallClock.now
                if version != lastDataVersion {
                    if lastDataVersion != nil { outsideCommitUnchecked = true }
                    if try LedgerSeal.checkBeforeWrite(database, now: now) { editsFound += 1 }
                }
                let value = try body()
                let unchanged = version == lastDataVersion && tick ? previous : nil
                let rows = try LedgerSeal.seal(database, now: now, afterATick: unchanged)
                lastDataVersion = version   // our own commit leaves it as it is
                lastWrite = now
                sealed = rows
                return value
            }
            sealRows = sealed
            return value
        } catch {
            throw StoreError(error, path: path, action: action)
        }
    }

    func read<T>(_ action: String, _ body: () throws(SQLiteError) -> T) throws(StoreError) -> T {
        do throws(SQLiteError) { return try body() } catch { throw StoreError(error, path: path, action: action) }
    }

    func invalid(_ action: String, _ detail: String) -> StoreError {
        StoreError(.invalidArgument, path: path, action: action, detail: detail)
    }
}
