import BlockerCore

/// The config versions strict mode keeps (`StrictHistory`), oldest first.
extension Ledger {
    /// Every stored config version, oldest first.
    public func configVersions() throws(StoreError) -> [StoredConfigVersion] {
        try read("cannot read the config versions") { () throws(SQLiteError) in
            try database.rows("SELECT id, text, received_ms, apply_ms, changes, cancelled FROM config_versions ORDER BY id") {
                StoredConfigVersion(id: $0.int64(0), text: $0.text(1), receivedAt: $0.instant(2), applyAt: $0.instant(3),
                                    changes: $0.text(4).split(separator: "\n").map(String.init), cancelled: $0.int64(5) != 0)
            }
        }
    }

    /// Stores a config version (durably: a loosening must not be forgotten
    /// or restarted by a power cut) and, when `prune`, drops every older one.
    @discardableResult
    public func addConfigVersion(text: String, receivedAt: WallInstant, applyAt: WallInstant, changes: [String],
                                 pruneOlder prune: Bool) throws(StoreError) -> Int64 {
        try write("cannot save the config version", durable: true) { () throws(SQLiteError) in
            let id = try database.firstRow("""
                INSERT INTO config_versions (text, received_ms, apply_ms, changes) VALUES (?, ?, ?, ?) RETURNING id
                """, [.text(text), .instant(receivedAt), .instant(applyAt), .text(changes.joined(separator: "\n"))]) {
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

    /// Marks every version still waiting at `now` cancelled; returns how many.
    public func cancelPendingConfigVersions(now: WallInstant) throws(StoreError) -> Int {
        try write("cannot cancel the pending changes", durable: true) { () throws(SQLiteError) in
            try database.rows("UPDATE config_versions SET cancelled = 1 WHERE apply_ms > ? AND cancelled = 0 RETURNING id",
                              [.instant(now)]) { $0.int64(0) }.count
        }
    }
}
