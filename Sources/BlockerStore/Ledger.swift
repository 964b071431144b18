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
            balance = row.int64(0)
            earnedTotal = row.int64(1)
            spentTotal = row.int64(2)
        }
    }

    /// `PRAGMA data_version` after our last transaction (nil before the first).
    private var lastDataVersion: Int64?
    /// Hand edits found since open (each also a `ledger_edits` row).
    public private(set) var editsFound = 0
    /// Blocker's own write transactions since open.
    public private(set) var commits = 0
    /// When blocker last wrote (unix ms), nil before its first write since open.
    public private(set) var lastWriteMs: Int64?

    /// As committed.
    private var account: Account
    /// Tick data not committed yet.
    private var pending = PendingWrites()
    /// Committed usage per group, for the few days `usedToday` was asked about.
    private var committedUsage: [String: [String: Milliseconds]] = [:]
    /// target → end instant, as committed.
    private var blocks: [String: Int64]
    /// The last instant `timedBlocks(activeAtMs:)` was asked about: blocks that
    /// ended by then are pruned on the next block write. The ledger has no clock.
    private var lastAskedMs: Int64?

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
        let loaded: (Account?, [String: Int64])
        do throws(SQLiteError) {
            let account = try database.firstRow("SELECT \(Self.accountColumns) FROM account WHERE id = 1", [], Account.init)
            var blocks: [String: Int64] = [:]
            for (target, until) in try database.rows("SELECT target, until_ms FROM timed_blocks", [], {
                ($0.text(0), $0.int64(1))
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

    /// How many of the newest earnings keep their request id: a retry comes
    /// seconds after its call, so a few dozen are plenty.
    static let requestIDsKept: Int64 = 64

    /// What the earning first credited under `requestID` earned; nil when
    /// none is known (never seen, or too long ago).
    public func earning(requestID: String) throws(StoreError) -> Milliseconds? {
        try read("cannot read the earnings") { () throws(SQLiteError) in
            try database.firstRow("SELECT ms FROM earnings WHERE request_id = ?", [.text(requestID)]) { $0.int64(0) }
        }
    }

    /// Credits `reps × perRep` and returns when the earning is on disk (fsync'd).
    /// On failure nothing changes. `day` is the local day it counts for in
    /// history, from the caller's calendar (the daemon owns the time zone).
    /// `requestID`: the caller's id for it (`earning(requestID:)`).
    public func earn(exercise: String, reps: Int, perRep: Milliseconds, atMs: Int64,
                     day: String, requestID: String? = nil) throws(StoreError) -> (earned: Milliseconds, balance: Milliseconds) {
        guard reps > 0, perRep >= 0 else {
            throw invalid("cannot save the earning", "reps must be at least 1 and the rate not negative (got \(reps) × \(perRep) ms)")
        }
        let (earned, overflow) = Int64(reps).multipliedReportingOverflow(by: perRep)
        guard !overflow, earned <= Int64.max - account.earnedTotal else {
            throw invalid("cannot save the earning", "\(reps) × \(perRep) ms does not fit in the ledger")
        }
        let totals = try write("cannot save the earning", durable: true) { () throws(SQLiteError) in
            let totals = try database.firstRow(
                """
                UPDATE account SET balance_ms = balance_ms + ?1, earned_total_ms = earned_total_ms + ?1
                WHERE id = 1 RETURNING \(Self.accountColumns)
                """, [.integer(earned)], Account.init)
            let chain = EarningChain.link(after: try EarningChain.head(database), atMs: atMs, day: day,
                                          exercise: exercise, reps: Int64(reps), ms: earned)
            let id = try database.firstRow("""
                INSERT INTO earnings (at_ms, day, exercise, reps, ms, chain, request_id) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id
                """, [.integer(atMs), .text(day), .text(exercise), .integer(Int64(reps)), .integer(earned), .text(chain),
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
    public func earningHistory(day: String) throws(StoreError) -> EarnLimits.History {
        try read("cannot read the earnings") { () throws(SQLiteError) in
            try database.firstRow("""
                SELECT (SELECT coalesce(sum(ms), 0) FROM earnings WHERE day = ?1),
                       (SELECT count(*) FROM earnings),
                       (SELECT coalesce(max(at_ms), 0) FROM earnings WHERE id = (SELECT max(id) FROM earnings))
                """, [.text(day)]) {
                EarnLimits.History(earnedToday: $0.int64(0), lastEarningAtMs: $0.int64(1) > 0 ? $0.int64(2) : nil)
            } ?? EarnLimits.History(earnedToday: 0, lastEarningAtMs: nil)
        }
    }

    /// Newest first.
    public func earnings(limit: Int) throws(StoreError) -> [(atMs: Int64, exercise: String, reps: Int, ms: Milliseconds)] {
        try read("cannot read the earnings") { () throws(SQLiteError) in
            try database.rows("SELECT at_ms, exercise, reps, ms FROM earnings ORDER BY id DESC LIMIT ?",
                              [.integer(Int64(max(limit, 0)))]) {
                (atMs: $0.int64(0), exercise: $0.text(1), reps: Int($0.int64(2)), ms: $0.int64(3))
            }
        }
    }

    // MARK: Ticks

    /// Adds one tick to what is pending and, when `commit`, saves everything
    /// pending in one transaction (blockerd batches: see `Daemon.commitEveryMs`).
    /// The debit is clamped so the balance stays ≥ 0; returns the clamped
    /// debit. Pending ticks count in `balance`, `usedToday` and `history`. On
    /// failure (disk full, I/O error) they stay in memory, are retried by the
    /// next commit or `flushPending`, and the error is thrown for the caller to report.
    @discardableResult
    public func record(_ tick: TickRecord, commit: Bool = true) throws(StoreError) -> Milliseconds {
        let debit = PendingWrites.clampedDebit(tick.debit, available: balance)
        pending.add(debit: debit, spentDay: tick.spentDay, usage: tick.usage)
        if commit { try flushPending() }
        return debit
    }

    /// Writes pending tick data without adding any (a batch that is due, a
    /// retry, the last one at shutdown).
    public func flushPending() throws(StoreError) {
        guard !pending.isEmpty else { return }
        let batch = pending
        // Synchronous NORMAL: under WAL a power cut may lose the last ticks but
        // never corrupts; an fsync a second would keep laptop disks awake.
        let totals = try write("cannot save usage") { () throws(SQLiteError) in
            var totals: Account?
            if batch.debit > 0 {
                totals = try database.firstRow(
                    """
                    UPDATE account SET balance_ms = balance_ms - ?1, spent_total_ms = spent_total_ms + ?1
                    WHERE id = 1 RETURNING \(Self.accountColumns)
                    """, [.integer(batch.debit)], Account.init)
                guard totals != nil else { throw SQLiteError(code: .corrupt, message: "the account row is missing") }
            }
            for (day, ms) in batch.spentByDay {
                try database.run("""
                    INSERT INTO spent_by_day (day, spent_ms) VALUES (?1, ?2)
                    ON CONFLICT (day) DO UPDATE SET spent_ms = spent_ms + excluded.spent_ms
                    """, [.text(day), .integer(ms)])
            }
            for (key, ms) in batch.usage {
                try database.run("""
                    INSERT INTO usage (day, group_name, app, ms) VALUES (?1, ?2, ?3, ?4)
                    ON CONFLICT (day, group_name, app) DO UPDATE SET ms = ms + excluded.ms
                    """, [.text(key.day), .text(key.group), .text(key.app), .integer(ms)])
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
    public func usedToday(day: String) -> [String: Milliseconds] {
        var totals = committedUsage[day] ?? loadCommittedUsage(day: day) ?? [:]
        for (group, ms) in pending.usedByGroup(on: day) { totals[group, default: 0] += ms }
        return totals
    }

    private func loadCommittedUsage(day: String) -> [String: Milliseconds]? {
        guard let rows = try? database.rows(
            "SELECT group_name, sum(ms) FROM usage WHERE day = ? GROUP BY group_name", [.text(day)],
            { ($0.text(0), $0.int64(1)) }) else { return nil }
        // The daemon asks about today; keep just a few days.
        if committedUsage.count >= 3 { committedUsage = [:] }
        let totals = Dictionary(rows, uniquingKeysWith: +)
        committedUsage[day] = totals
        return totals
    }

    /// Per-day summaries for `fromDay…toDay` (inclusive), ascending; days
    /// without any activity are omitted. Unsaved ticks are included.
    public func history(fromDay: String, toDay: String) throws(StoreError) -> [DaySummary] {
        var days: [String: DaySummary] = [:]
        func update(_ day: String, _ change: (inout DaySummary) -> Void) {
            change(&days[day, default: DaySummary(day: day)])
        }
        let range: [SQLValue] = [.text(fromDay), .text(toDay)]
        try read("cannot read the history") { () throws(SQLiteError) in
            for (day, ms) in try database.rows(
                "SELECT day, sum(ms) FROM earnings WHERE day BETWEEN ?1 AND ?2 GROUP BY day", range,
                { ($0.text(0), $0.int64(1)) }) { update(day) { $0.earnedMs += ms } }
            for (day, ms) in try database.rows(
                "SELECT day, spent_ms FROM spent_by_day WHERE day BETWEEN ?1 AND ?2", range,
                { ($0.text(0), $0.int64(1)) }) { update(day) { $0.spentMs += ms } }
            for (day, group, ms) in try database.rows(
                "SELECT day, group_name, sum(ms) FROM usage WHERE day BETWEEN ?1 AND ?2 GROUP BY day, group_name", range,
                { ($0.text(0), $0.text(1), $0.int64(2)) }) { update(day) { $0.usedByGroup[group, default: 0] += ms } }
        }
        func inRange(_ day: String) -> Bool {
            day != PendingWrites.undatedDay && fromDay <= day && day <= toDay
        }
        for (day, ms) in pending.spentByDay where inRange(day) { update(day) { $0.spentMs += ms } }
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
                LedgerAudit(balance: $0.int64(0), earnedTotal: $0.int64(1), spentTotal: $0.int64(2),
                            sumOfEarnings: $0.int64(3), sumOfSpentByDay: $0.int64(4))
            }
        }
        guard let audit else {
            throw StoreError(.inconsistent, path: path, action: "cannot audit the ledger", detail: "the account row is missing")
        }
        return audit
    }

    // MARK: Timed blocks

    /// Blocks `target` (stored lowercase) until `untilMs`. A running block is
    /// never shortened: the later end wins. Returns the effective end.
    public func setTimedBlock(target: String, untilMs: Int64) throws(StoreError) -> Int64 {
        let key = target.lowercased()
        guard !key.isEmpty else { throw invalid("cannot save the timed block", "the target is empty") }
        let prune = lastAskedMs
        let end = try write("cannot save the timed block", durable: true) { () throws(SQLiteError) in
            if let prune { try database.run("DELETE FROM timed_blocks WHERE until_ms <= ?", [.integer(prune)]) }
            return try database.firstRow("""
                INSERT INTO timed_blocks (target, until_ms) VALUES (?1, ?2)
                ON CONFLICT (target) DO UPDATE SET until_ms = max(until_ms, excluded.until_ms)
                RETURNING until_ms
                """, [.text(key), .integer(untilMs)]) { $0.int64(0) } ?? untilMs
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
                                  [.text(key)]) { $0.int64(0) }
        }
        blocks[key] = nil
        guard let removed else { return false }
        return lastAskedMs.map { removed > $0 } ?? true
    }

    /// Blocks still running at `activeAtMs` (ending strictly after it), by target.
    public func timedBlocks(activeAtMs: Int64) -> [TimedBlock] {
        lastAskedMs = activeAtMs
        return blocks.filter { $0.value > activeAtMs }
            .map { TimedBlock(target: $0.key, untilMs: $0.value) }
            .sorted { $0.target < $1.target }
    }

    // MARK: Config versions (strict mode)

    /// Every stored config version, oldest first.
    public func configVersions() throws(StoreError) -> [StoredConfigVersion] {
        try read("cannot read the config versions") { () throws(SQLiteError) in
            try database.rows("SELECT id, text, received_ms, apply_ms, changes, cancelled FROM config_versions ORDER BY id") {
                StoredConfigVersion(id: $0.int64(0), text: $0.text(1), receivedMs: $0.int64(2), applyMs: $0.int64(3),
                                    changes: $0.text(4).split(separator: "\n").map(String.init), cancelled: $0.int64(5) != 0)
            }
        }
    }

    /// Stores a config version (durably: a loosening must not be forgotten
    /// or restarted by a power cut) and, when `prune`, drops every older one.
    @discardableResult
    public func addConfigVersion(text: String, receivedMs: Int64, applyMs: Int64, changes: [String],
                                 pruneOlder prune: Bool) throws(StoreError) -> Int64 {
        try write("cannot save the config version", durable: true) { () throws(SQLiteError) in
            let id = try database.firstRow("""
                INSERT INTO config_versions (text, received_ms, apply_ms, changes) VALUES (?, ?, ?, ?) RETURNING id
                """, [.text(text), .integer(receivedMs), .integer(applyMs), .text(changes.joined(separator: "\n"))]) {
                $0.int64(0)
            } ?? 0
            if prune { try database.run("DELETE FROM config_versions WHERE id < ?", [.integer(id)]) }
            return id
        }
    }

    /// Drops the versions older than `id` (it became the base).
    public func pruneConfigVersions(before id: Int64) throws(StoreError) {
        try write("cannot prune the config versions") { () throws(SQLiteError) in
            try database.run("DELETE FROM config_versions WHERE id < ?", [.integer(id)])
        }
    }

    /// Marks every version still waiting at `nowMs` cancelled; returns how many.
    public func cancelPendingConfigVersions(nowMs: Int64) throws(StoreError) -> Int {
        try write("cannot cancel the pending changes", durable: true) { () throws(SQLiteError) in
            try database.rows("UPDATE config_versions SET cancelled = 1 WHERE apply_ms > ? AND cancelled = 0 RETURNING id",
                              [.integer(nowMs)]) { $0.int64(0) }.count
        }
    }

    // MARK: Runs (gaps)

    private static let runColumns = "id, pid, started_ms, last_tick_ms, ended_ms, end_reason, unguarded_since_ms"

    private static func run(_ row: SQLiteRow) -> RunRecord {
        RunRecord(id: row.int64(0), pid: Int32(truncatingIfNeeded: row.int64(1)), startedMs: row.int64(2),
                  lastTickMs: row.int64(3), endedMs: row.isNull(4) ? nil : row.int64(4),
                  endReason: row.isNull(5) ? nil : row.text(5), unguardedSinceMs: row.isNull(6) ? nil : row.int64(6))
    }

    /// Starts a run; the one before, if it never said how it ended, is closed
    /// at its last tick as `unknown`. Returns the new run's id and the one before.
    public func beginRun(pid: Int32, nowMs: Int64) throws(StoreError) -> (id: Int64, previous: RunRecord?) {
        try write("cannot record the start", durable: true) { () throws(SQLiteError) in
            var previous = try database.firstRow("SELECT \(Self.runColumns) FROM runs ORDER BY id DESC LIMIT 1", [], Self.run)
            if var open = previous, open.endedMs == nil {
                open.endedMs = open.lastTickMs
                open.endReason = open.endReason ?? Gap.unknown
                try database.run("UPDATE runs SET ended_ms = ?, end_reason = ? WHERE id = ?",
                                 [.integer(open.lastTickMs), .text(open.endReason!), .integer(open.id)])
                previous = open
            }
            if let previous {
                // Blind until that run ended (a kill -9 leaves the stretch open).
                try database.run("UPDATE blind SET to_ms = max(from_ms, ?) WHERE to_ms IS NULL",
                                 [.integer(previous.lastSignMs)])
            }
            let id = try database.firstRow("INSERT INTO runs (pid, started_ms, last_tick_ms) VALUES (?, ?, ?) RETURNING id",
                                           [.integer(Int64(pid)), .integer(nowMs), .integer(nowMs)]) { $0.int64(0) } ?? 0
            return (id, previous)
        }
    }

    /// Notes from when the gap before run `id` was unguarded (`Unguarded.since`).
    public func noteUnguarded(_ id: Int64, sinceMs: Int64) throws(StoreError) {
        try write("cannot record the unguarded time") { () throws(SQLiteError) in
            try database.run("UPDATE runs SET unguarded_since_ms = ? WHERE id = ?", [.integer(sinceMs), .integer(id)])
        }
    }

    /// Notes that run `id` was alive at `nowMs` (blockerd does so about once a minute).
    public func touchRun(_ id: Int64, nowMs: Int64) throws(StoreError) {
        try write("cannot record the tick") { () throws(SQLiteError) in
            try database.run("UPDATE runs SET last_tick_ms = max(last_tick_ms, ?) WHERE id = ?", [.integer(nowMs), .integer(id)])
        }
    }

    /// Ends run `id` at `nowMs`.
    public func endRun(_ id: Int64, nowMs: Int64, reason: String) throws(StoreError) {
        try write("cannot record the stop", durable: true) { () throws(SQLiteError) in
            try database.run("UPDATE runs SET last_tick_ms = max(last_tick_ms, ?1), ended_ms = ?1, end_reason = ?2 WHERE id = ?3",
                             [.integer(nowMs), .text(reason), .integer(id)])
        }
    }

    /// `blockerd --record-stop`: what systemd says ended the newest run. A
    /// clean stop keeps its own record unless `override`; a run that never
    /// said how it ended ends at its last tick. Returns the run, nil when none.
    @discardableResult
    public func recordStop(reason: String, override: Bool) throws(StoreError) -> RunRecord? {
        try write("cannot record the stop", durable: true) { () throws(SQLiteError) in
            guard var last = try database.firstRow("SELECT \(Self.runColumns) FROM runs ORDER BY id DESC LIMIT 1", [], Self.run)
            else { return nil }
            if last.endedMs != nil && !override { return last }
            last.endedMs = last.endedMs ?? last.lastTickMs
            last.endReason = reason
            try database.run("UPDATE runs SET ended_ms = ?, end_reason = ? WHERE id = ?",
                             [.integer(last.endedMs!), .text(reason), .integer(last.id)])
            return last
        }
    }

    /// Notes that run `runID` has been blind since `fromMs` (its probe failing);
    /// returns the stretch's id for `endBlind`.
    public func beginBlind(runID: Int64, fromMs: Int64, reason: String) throws(StoreError) -> Int64 {
        try write("cannot record the blind time") { () throws(SQLiteError) in
            try database.firstRow("INSERT INTO blind (run_id, from_ms, reason) VALUES (?, ?, ?) RETURNING id",
                                  [.integer(runID), .integer(fromMs), .text(reason)]) { $0.int64(0) } ?? 0
        }
    }

    /// Ends the blind stretch `id` at `toMs` (the probe sees again, or blockerd stops).
    public func endBlind(_ id: Int64, toMs: Int64) throws(StoreError) {
        try write("cannot record the end of the blind time") { () throws(SQLiteError) in
            try database.run("UPDATE blind SET to_ms = max(from_ms, ?) WHERE id = ? AND to_ms IS NULL",
                             [.integer(toMs), .integer(id)])
        }
    }

    /// Moves the end of the closed stretch `id` to `toMs` (a probe failing
    /// now and then: its next short streak joins the stretch).
    public func extendBlind(_ id: Int64, toMs: Int64) throws(StoreError) {
        try write("cannot record the blind time") { () throws(SQLiteError) in
            try database.run("UPDATE blind SET to_ms = max(from_ms, to_ms, ?) WHERE id = ? AND to_ms IS NOT NULL",
                             [.integer(toMs), .integer(id)])
        }
    }

    /// The blind stretches that ended at or after `sinceMs` (an open one ends
    /// at `nowMs`), oldest first, as gaps (`Gap.blind`).
    public func blindStretches(sinceMs: Int64, nowMs: Int64) throws(StoreError) -> [Gap] {
        try read("cannot read the blind time") { () throws(SQLiteError) in
            try database.rows("""
                SELECT from_ms, coalesce(to_ms, max(from_ms, ?2)), reason FROM blind
                WHERE coalesce(to_ms, ?2) >= ?1 ORDER BY from_ms, id
                """, [.integer(sinceMs), .integer(nowMs)]) {
                Gap(fromMs: $0.int64(0), toMs: $0.int64(1), reason: Gap.blind($0.text(2)))
            }
        }
    }

    /// The runs that ended at or after `sinceMs` (or still run), oldest first,
    /// with the one before them, so the gaps since `sinceMs` can be told.
    public func runs(sinceMs: Int64) throws(StoreError) -> [RunRecord] {
        try read("cannot read the runs") { () throws(SQLiteError) in
            try database.rows("""
                SELECT \(Self.runColumns) FROM runs
                WHERE id >= coalesce((SELECT max(id) FROM runs WHERE coalesce(ended_ms, last_tick_ms) < ?1), 0)
                ORDER BY id
                """, [.integer(sinceMs)], Self.run)
        }
    }

    // MARK: Integrity (tamper evidence, LedgerSeal.swift and LedgerAnchor.swift)

    /// Whether another connection committed since blockerd's last look (a
    /// hand edit with sqlite3): `PRAGMA data_version`, read from memory
    /// shared with the other connections, no disk read.
    public func changedOutside() -> Bool {
        guard let version = try? database.firstRow("PRAGMA data_version", [], { $0.int64(0) }) else { return false }
        return version != lastDataVersion
    }

    /// Checks the tables against the seal now, not at the next write: an edit
    /// is noted (`ledger_edits`) and the file sealed again. Returns whether it noted one.
    @discardableResult
    public func checkSeal() throws(StoreError) -> Bool {
        let before = editsFound
        try write("cannot check the ledger for edits") { () throws(SQLiteError) in }
        return editsFound > before
    }

    /// Notes in `ledger_edits` an edit blockerd found otherwise than by the
    /// seal (an anchor, the earnings chain), after blocker's write at
    /// `sinceMs`, unless the seal check of this same write noted one already.
    public func noteEdit(sinceMs: Int64) throws(StoreError) {
        let before = editsFound
        try write("cannot note the edit") { () throws(SQLiteError) in
            guard editsFound == before else { return }
            try LedgerSeal.noteEdit(database, sealedMs: sinceMs, nowMs: WallClock.nowMs)
            editsFound += 1
        }
    }

    /// The first earning that does not follow from the one before it.
    public func firstBrokenEarning() throws(StoreError) -> Int64? {
        try read("cannot check the earnings") { () throws(SQLiteError) in try EarningChain.firstBroken(database)?.id }
    }

    /// The chain of earning number `count` (by id; nil: fewer earnings).
    public func chain(atEarning count: Int64) throws(StoreError) -> String? {
        guard count > 0 else { return "" }
        return try read("cannot read the earnings") { () throws(SQLiteError) in
            try database.firstRow("SELECT coalesce(chain, '') FROM earnings ORDER BY id LIMIT 1 OFFSET ?",
                                  [.integer(count - 1)]) { $0.text(0) }
        }
    }

    /// The file as an anchor would describe it now, its digest in `sealFormat`
    /// (nil: the latest; a format this blocker does not know: the latest too).
    public func anchor(sealFormat: Int64? = nil, brokenEarning: Int64?, final: Bool, atMs: Int64) throws(StoreError) -> LedgerAnchor {
        let format = sealFormat.flatMap(LedgerSeal.Format.init(rawValue:)) ?? .latest
        return try read("cannot read the ledger's state") { () throws(SQLiteError) in
            let digest = try LedgerSeal.digest(database, format, upgraded: true)
            return try database.firstRow("""
                SELECT coalesce((SELECT max(id) FROM runs), 0), (SELECT count(*) FROM earnings),
                       coalesce((SELECT chain FROM earnings ORDER BY id DESC LIMIT 1), ''), earned_total_ms, spent_total_ms
                FROM account WHERE id = 1
                """) {
                LedgerAnchor(runID: $0.int64(0), seal: digest, sealFormat: format.rawValue, earnings: $0.int64(1),
                             chain: $0.text(2), earnedTotalMs: $0.int64(3), spentTotalMs: $0.int64(4),
                             brokenEarning: brokenEarning, final: final, atMs: atMs)
            } ?? LedgerAnchor(runID: 0, seal: digest, sealFormat: format.rawValue, earnings: 0, chain: "", earnedTotalMs: 0,
                              spentTotalMs: 0, brokenEarning: brokenEarning, final: final, atMs: atMs)
        }
    }

    // MARK: Integrity notes

    /// Stores `note`; returns its id, with which `extendNote` moves its end.
    @discardableResult
    public func addNote(_ note: IntegrityNote) throws(StoreError) -> Int64 {
        try write("cannot record what blockerd noticed") { () throws(SQLiteError) in
            try database.firstRow("INSERT INTO integrity_notes (kind, from_ms, to_ms, text) VALUES (?, ?, ?, ?) RETURNING id",
                                  [.text(note.kind.rawValue), .integer(note.fromMs), .integer(note.toMs), .text(note.text)]) {
                $0.int64(0)
            } ?? 0
        }
    }

    /// Note `id` now lasts until `toMs` and says `text`.
    public func extendNote(_ id: Int64, toMs: Int64, text: String) throws(StoreError) {
        try write("cannot record what blockerd noticed") { () throws(SQLiteError) in
            try database.run("UPDATE integrity_notes SET to_ms = max(from_ms, ?), text = ? WHERE id = ?",
                             [.integer(toMs), .text(text), .integer(id)])
        }
    }

    private static func note(_ row: SQLiteRow) -> (id: Int64, note: IntegrityNote)? {
        guard let kind = IntegrityNote.Kind(rawValue: row.text(1)) else { return nil }
        return (row.int64(0), IntegrityNote(kind: kind, fromMs: row.int64(2), toMs: row.int64(3), text: row.text(4)))
    }

    /// The notes that ended at or after `sinceMs`, oldest first (a kind this
    /// version does not know is left out).
    public func notes(sinceMs: Int64) throws(StoreError) -> [IntegrityNote] {
        try read("cannot read what blockerd noticed") { () throws(SQLiteError) in
            try database.rows("SELECT id, kind, from_ms, to_ms, text FROM integrity_notes WHERE to_ms >= ? ORDER BY from_ms, id",
                              [.integer(sinceMs)], Self.note).compactMap { $0?.note }
        }
    }

    /// The newest note of `kind`, with its id.
    public func lastNote(_ kind: IntegrityNote.Kind) throws(StoreError) -> (id: Int64, note: IntegrityNote)? {
        try read("cannot read what blockerd noticed") { () throws(SQLiteError) in
            try database.firstRow("SELECT id, kind, from_ms, to_ms, text FROM integrity_notes WHERE kind = ? ORDER BY id DESC LIMIT 1",
                                  [.text(kind.rawValue)], Self.note) ?? nil
        }
    }

    /// The environment the last run started with (nil: none recorded), and
    /// now `text` for run `id`; returns the previous one.
    public func swapEnvironment(run id: Int64, text: String) throws(StoreError) -> String? {
        try write("cannot record the environment") { () throws(SQLiteError) in
            let previous = try database.firstRow("SELECT text FROM last_environment WHERE id = 1") { $0.text(0) }
            try database.run("INSERT OR REPLACE INTO last_environment (id, run_id, text) VALUES (1, ?, ?)",
                             [.integer(id), .text(text)])
            return previous
        }
    }

    // MARK: Plumbing

    /// One transaction; SQLite errors become a StoreError naming the file.
    /// `durable`: synchronous=FULL for this commit, so the WAL is fsync'd before
    /// the call returns (a user's action must survive a power cut; ticks need not).
    private func write<T>(_ action: String, durable: Bool = false,
                          _ body: () throws(SQLiteError) -> T) throws(StoreError) -> T {
        do throws(SQLiteError) {
            if durable { try database.run("PRAGMA synchronous = FULL") }
            // If switching back fails we merely stay on FULL: slower, not less safe.
            defer { if durable { try? database.run("PRAGMA synchronous = NORMAL") } }
            defer { commits &+= 1 }   // counts attempts too: only "anything new?" is asked of it
            return try database.transaction { () throws(SQLiteError) -> T in
                // Only another connection's commit changes data_version (read
                // under the write lock, so none can slip in after it): then the
                // tables may not match the seal (a hand edit), and it is noted.
                let version = try database.firstRow("PRAGMA data_version") { $0.int64(0) }
                let now = WallClock.nowMs
                if version != lastDataVersion, try LedgerSeal.checkBeforeWrite(database, nowMs: now) { editsFound += 1 }
                let value = try body()
                try LedgerSeal.seal(database, nowMs: now)
                lastDataVersion = version   // our own commit leaves it as it is
                lastWriteMs = now
                return value
            }
        } catch {
            throw StoreError(error, path: path, action: action)
        }
    }

    private func read<T>(_ action: String, _ body: () throws(SQLiteError) -> T) throws(StoreError) -> T {
        do throws(SQLiteError) { return try body() } catch { throw StoreError(error, path: path, action: action) }
    }

    private func invalid(_ action: String, _ detail: String) -> StoreError {
        StoreError(.invalidArgument, path: path, action: action, detail: detail)
    }
}
