import BlockerCore
import BlockerSystem

/// Tamper evidence (LedgerSeal.swift, LedgerAnchor.swift) and the integrity notes.
extension Ledger {
    /// Whether another connection committed since blockerd's last look (a
    /// hand edit with sqlite3): `PRAGMA data_version`, read from memory
    /// shared with the other connections, no disk read; or one of blocker's
    /// own writes came upon such a commit since `outsideChangeChecked()`.
    public func changedOutside() -> Bool {
        if outsideCommitUnchecked { return true }
        guard let version = try? database.firstRow("PRAGMA data_version", [], { $0.int64(0) }) else { return false }
        return version != lastDataVersion
    }

    /// The caller has looked at what `changedOutside()` said.
    public func outsideChangeChecked() { outsideCommitUnchecked = false }

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
    /// `since`, unless the seal check of this same write noted one already.
    public func noteEdit(since: WallInstant) throws(StoreError) {
        let before = editsFound
        try write("cannot note the edit") { () throws(SQLiteError) in
            guard editsFound == before else { return }
            try LedgerSeal.noteEdit(database, sealed: since, now: WallClock.now)
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
    public func anchor(sealFormat: Int64? = nil, brokenEarning: Int64?, final: Bool, at: WallInstant) throws(StoreError) -> LedgerAnchor {
        let format = sealFormat.flatMap(LedgerSeal.Format.init(rawValue:)) ?? .latest
        return try read("cannot read the ledger's state") { () throws(SQLiteError) in
            let digest = try LedgerSeal.digest(database, format, upgraded: true)
            var anchor = try database.firstRow("""
                SELECT coalesce((SELECT max(id) FROM runs), 0), (SELECT count(*) FROM earnings),
                       coalesce((SELECT chain FROM earnings ORDER BY id DESC LIMIT 1), ''), earned_total_ms, spent_total_ms
                FROM account WHERE id = 1
                """) {
                LedgerAnchor(runID: $0.int64(0), seal: digest, sealFormat: format.rawValue, earnings: $0.int64(1),
                             chain: $0.text(2), earnedTotalMs: $0.duration(3), spentTotalMs: $0.duration(4),
                             brokenEarning: brokenEarning, final: final, at: at)
            } ?? LedgerAnchor(runID: 0, seal: digest, sealFormat: format.rawValue, earnings: 0, chain: "", earnedTotalMs: 0,
                              spentTotalMs: 0, brokenEarning: brokenEarning, final: final, at: at)
            (anchor.opens, anchor.passes) = try database.firstRow("SELECT (SELECT count(*) FROM opens), (SELECT count(*) FROM passes)") {
                ($0.int64(0), $0.int64(1))
            } ?? (0, 0)
            return anchor
        }
    }

    // MARK: Integrity notes

    /// Stores `note`; returns its id, with which `extendNote` moves its end.
    @discardableResult
    public func addNote(_ note: IntegrityNote) throws(StoreError) -> Int64 {
        try write("cannot record what blockerd noticed") { () throws(SQLiteError) in
            try database.firstRow("INSERT INTO integrity_notes (kind, from_ms, to_ms, text) VALUES (?, ?, ?, ?) RETURNING id",
                                  [.text(note.kind.rawValue), .instant(note.from), .instant(note.to), .text(note.text)]) {
                $0.int64(0)
            } ?? 0
        }
    }

    /// Note `id` now lasts until `to` and says `text`.
    public func extendNote(_ id: Int64, to: WallInstant, text: String) throws(StoreError) {
        try write("cannot record what blockerd noticed") { () throws(SQLiteError) in
            try database.run("UPDATE integrity_notes SET to_ms = max(from_ms, ?), text = ? WHERE id = ?",
                             [.instant(to), .text(text), .integer(id)])
        }
    }

    private static func note(_ row: SQLiteRow) -> (id: Int64, note: IntegrityNote)? {
        guard let kind = IntegrityNote.Kind(rawValue: row.text(1)) else { return nil }
        return (row.int64(0), IntegrityNote(kind: kind, from: row.instant(2), to: row.instant(3), text: row.text(4)))
    }

    /// The notes that ended at or after `since`, oldest first (a kind this
    /// version does not know is left out).
    public func notes(since: WallInstant) throws(StoreError) -> [IntegrityNote] {
        try read("cannot read what blockerd noticed") { () throws(SQLiteError) in
            try database.rows("SELECT id, kind, from_ms, to_ms, text FROM integrity_notes WHERE to_ms >= ? ORDER BY from_ms, id",
                              [.instant(since)], Self.note).compactMap { $0?.note }
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
}
