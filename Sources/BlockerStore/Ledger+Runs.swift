import BlockerCore

/// Runs of blockerd and the stretches its probe was blind: what the gaps are told from.
extension Ledger {
    private static let runColumns = "id, pid, started_ms, last_tick_ms, ended_ms, end_reason, unguarded_since_ms"

    private static func run(_ row: SQLiteRow) -> RunRecord {
        RunRecord(id: row.int64(0), pid: Int32(truncatingIfNeeded: row.int64(1)), started: row.instant(2),
                  lastTick: row.instant(3), ended: row.isNull(4) ? nil : row.instant(4),
                  endReason: row.isNull(5) ? nil : row.text(5), unguardedSince: row.isNull(6) ? nil : row.instant(6))
    }

    /// Starts a run; the one before, if it never said how it ended, is closed
    /// at its last tick as `unknown`. Returns the new run's id and the one before.
    public func beginRun(pid: Int32, now: WallInstant) throws(StoreError) -> (id: Int64, previous: RunRecord?) {
        try write("cannot record the start", durable: true) { () throws(SQLiteError) in
            var previous = try database.firstRow("SELECT \(Self.runColumns) FROM runs ORDER BY id DESC LIMIT 1", [], Self.run)
            if var open = previous, open.ended == nil {
                open.ended = open.lastTick
                open.endReason = open.endReason ?? Gap.unknown
                try database.run("UPDATE runs SET ended_ms = ?, end_reason = ? WHERE id = ?",
                                 [.instant(open.lastTick), .text(open.endReason!), .integer(open.id)])
                previous = open
            }
            if let previous {
                // Blind until that run ended (a kill -9 leaves the stretch open).
                try database.run("UPDATE blind SET to_ms = max(from_ms, ?) WHERE to_ms IS NULL",
                                 [.instant(previous.lastSign)])
            }
            let id = try database.firstRow("INSERT INTO runs (pid, started_ms, last_tick_ms) VALUES (?, ?, ?) RETURNING id",
                                           [.integer(Int64(pid)), .instant(now), .instant(now)]) { $0.int64(0) } ?? 0
            return (id, previous)
        }
    }

    /// Notes from when the gap before run `id` was unguarded (`Unguarded.since`).
    public func noteUnguarded(_ id: Int64, since: WallInstant) throws(StoreError) {
        try write("cannot record the unguarded time") { () throws(SQLiteError) in
            try database.run("UPDATE runs SET unguarded_since_ms = ? WHERE id = ?", [.instant(since), .integer(id)])
        }
    }

    /// Notes that run `id` was alive at `now` (blockerd does so about once a minute).
    public func touchRun(_ id: Int64, now: WallInstant) throws(StoreError) {
        try write("cannot record the tick") { () throws(SQLiteError) in
            try database.run("UPDATE runs SET last_tick_ms = max(last_tick_ms, ?) WHERE id = ?", [.instant(now), .integer(id)])
        }
    }

    /// Ends run `id` at `now`.
    public func endRun(_ id: Int64, now: WallInstant, reason: String) throws(StoreError) {
        try write("cannot record the stop", durable: true) { () throws(SQLiteError) in
            try database.run("UPDATE runs SET last_tick_ms = max(last_tick_ms, ?1), ended_ms = ?1, end_reason = ?2 WHERE id = ?3",
                             [.instant(now), .text(reason), .integer(id)])
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
            if last.ended != nil && !override { return last }
            last.ended = last.ended ?? last.lastTick
            last.endReason = reason
            try database.run("UPDATE runs SET ended_ms = ?, end_reason = ? WHERE id = ?",
                             [.instant(last.ended!), .text(reason), .integer(last.id)])
            return last
        }
    }

    /// Notes that run `runID` has been blind since `from` (its probe failing);
    /// returns the stretch's id for `endBlind`.
    public func beginBlind(runID: Int64, from: WallInstant, reason: String) throws(StoreError) -> Int64 {
        try write("cannot record the blind time") { () throws(SQLiteError) in
            try database.firstRow("INSERT INTO blind (run_id, from_ms, reason) VALUES (?, ?, ?) RETURNING id",
                                  [.integer(runID), .instant(from), .text(reason)]) { $0.int64(0) } ?? 0
        }
    }

    /// Ends the blind stretch `id` at `to` (the probe sees again, or blockerd stops).
    public func endBlind(_ id: Int64, to: WallInstant) throws(StoreError) {
        try write("cannot record the end of the blind time") { () throws(SQLiteError) in
            try database.run("UPDATE blind SET to_ms = max(from_ms, ?) WHERE id = ? AND to_ms IS NULL",
                             [.instant(to), .integer(id)])
        }
    }

    /// Moves the end of the closed stretch `id` to `to` (a probe failing
    /// now and then: its next short streak joins the stretch).
    public func extendBlind(_ id: Int64, to: WallInstant) throws(StoreError) {
        try write("cannot record the blind time") { () throws(SQLiteError) in
            try database.run("UPDATE blind SET to_ms = max(from_ms, to_ms, ?) WHERE id = ? AND to_ms IS NOT NULL",
                             [.instant(to), .integer(id)])
        }
    }

    /// The blind stretches that ended at or after `since` (an open one ends
    /// at `now`), oldest first, as gaps (`Gap.blind`).
    public func blindStretches(since: WallInstant, now: WallInstant) throws(StoreError) -> [Gap] {
        try read("cannot read the blind time") { () throws(SQLiteError) in
            try database.rows("""
                SELECT from_ms, coalesce(to_ms, max(from_ms, ?2)), reason FROM blind
                WHERE coalesce(to_ms, ?2) >= ?1 ORDER BY from_ms, id
                """, [.instant(since), .instant(now)]) {
                Gap(from: $0.instant(0), to: $0.instant(1), reason: Gap.blind($0.text(2)))
            }
        }
    }

    /// The runs that ended at or after `since` (or still run), oldest first,
    /// with the one before them, so the gaps since `since` can be told.
    public func runs(since: WallInstant) throws(StoreError) -> [RunRecord] {
        try read("cannot read the runs") { () throws(SQLiteError) in
            try database.rows("""
                SELECT \(Self.runColumns) FROM runs
                WHERE id >= coalesce((SELECT max(id) FROM runs WHERE coalesce(ended_ms, last_tick_ms) < ?1), 0)
                ORDER BY id
                """, [.instant(since)], Self.run)
        }
    }
}
