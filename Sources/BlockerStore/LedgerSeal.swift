import BlockerSystem

/// Tamper evidence: after each of blocker's own writes the ledger stores a
/// digest of all its tables (`seal`). Anything else that changes them — a
/// hand edit with sqlite3 — leaves the seal behind: blockerd notices at its
/// next write or start and notes it in `ledger_edits` (a chain: each row's
/// hash covers the previous one's), and `blockerctl doctor` says so.
/// This is evidence, not protection: the digest has no secret, so whoever
/// recomputes it after an edit is not caught. It catches the casual edit.
enum LedgerSeal {
    /// What the digest covers: the small tables row by row, each column
    /// `quote()`d so that NULL, 1 and '1' differ; the three that grow with
    /// every day (earnings, spent_by_day, usage) by their row count and exact
    /// sums, which SQLite computes from the rows without handing them over
    /// (a year of rows read one by one cost 19 ms a commit, measured). So an
    /// edit that moves time between two rows of those, keeping the sums, is
    /// not seen; any other change of a value or a row is.
    static let rowQueries = [
        "SELECT quote(id)||','||quote(balance_ms)||','||quote(earned_total_ms)||','||quote(spent_total_ms) FROM account ORDER BY id",
        "SELECT count(*)||','||coalesce(sum(ms), 0)||','||coalesce(sum(reps), 0)||','||coalesce(sum(at_ms), 0)||','||coalesce(max(id), 0) FROM earnings",
        "SELECT count(*)||','||coalesce(sum(spent_ms), 0) FROM spent_by_day",
        "SELECT count(*)||','||coalesce(sum(ms), 0) FROM usage",
        "SELECT quote(target)||','||quote(until_ms) FROM timed_blocks ORDER BY target",
        "SELECT quote(id)||','||quote(text)||','||quote(received_ms)||','||quote(apply_ms)||','||quote(changes)||','||quote(cancelled) FROM config_versions ORDER BY id",
        runsQuery(upgraded: true),
        "SELECT quote(id)||','||quote(sealed_ms)||','||quote(detected_ms)||','||quote(hash) FROM ledger_edits ORDER BY id",
    ]

    // unguarded_since_ms (schema 5) adds to a row only when set, so a seal
    // written before the column existed still matches after the upgrade; a
    // file not upgraded yet (doctor reads it as it is) is read without it.
    static func runsQuery(upgraded: Bool) -> String {
        "SELECT quote(id)||','||quote(pid)||','||quote(started_ms)||','||quote(last_tick_ms)||','||quote(ended_ms)||','||quote(end_reason)"
            + (upgraded ? "||coalesce(','||unguarded_since_ms, '')" : "") + " FROM runs ORDER BY id"
    }

    /// The tables' digest: FNV-1a (64 bits) over every row, table by table.
    static func digest(_ db: SQLiteDatabase) throws(SQLiteError) -> String {
        var hash = FNV1a()
        let upgraded = try db.firstRow("SELECT count(*) FROM pragma_table_info('runs') WHERE name = 'unguarded_since_ms'") {
            $0.int64(0)
        } == 1
        let queries = upgraded ? rowQueries : rowQueries.map { $0 == runsQuery(upgraded: true) ? runsQuery(upgraded: false) : $0 }
        for (index, query) in queries.enumerated() {
            hash.add("table \(index)\n")
            for row in try db.rows(query, [], { $0.text(0) }) {
                hash.add(row)
                hash.add("\n")
            }
        }
        return hash.hex
    }

    /// The stored seal, nil before blocker's first sealed write.
    static func stored(_ db: SQLiteDatabase) throws(SQLiteError) -> (digest: String, atMs: Int64)? {
        try db.firstRow("SELECT digest, at_ms FROM seal WHERE id = 1") { ($0.text(0), $0.int64(1)) }
    }

    /// Inside blocker's write transaction, before its change: notes an edit
    /// made since the last seal. Returns whether there was one.
    @discardableResult
    static func checkBeforeWrite(_ db: SQLiteDatabase, nowMs: Int64) throws(SQLiteError) -> Bool {
        guard let seal = try stored(db), try digest(db) != seal.digest else { return false }
        let previous = try db.firstRow("SELECT hash FROM ledger_edits ORDER BY id DESC LIMIT 1") { $0.text(0) } ?? ""
        var hash = FNV1a()
        hash.add("\(previous)|\(seal.atMs)|\(nowMs)")
        try db.run("INSERT INTO ledger_edits (sealed_ms, detected_ms, hash) VALUES (?, ?, ?)",
                   [.integer(seal.atMs), .integer(nowMs), .text(hash.hex)])
        return true
    }

    /// After blocker's change, in the same transaction.
    static func seal(_ db: SQLiteDatabase, nowMs: Int64) throws(SQLiteError) {
        try db.run("INSERT INTO seal (id, digest, at_ms) VALUES (1, ?1, ?2) ON CONFLICT (id) DO UPDATE SET digest = ?1, at_ms = ?2",
                   [.text(try digest(db)), .integer(nowMs)])
    }
}

/// What `blockerctl doctor` reports about hand edits.
public struct LedgerIntegrity: Equatable, Sendable {
    /// Edits blockerd found: the last seal before it (unix ms) and when it found it.
    public var edits: [(sealedMs: Int64, detectedMs: Int64)]
    /// The tables do not match the seal now: edited after `sealedMs`, not yet noted.
    public var unsealedSinceMs: Int64?
    /// Whether the ledger_edits chain links up (a deleted or altered row breaks it).
    public var chainIntact: Bool

    public static func == (a: LedgerIntegrity, b: LedgerIntegrity) -> Bool {
        a.edits.map(\.sealedMs) == b.edits.map(\.sealedMs) && a.edits.map(\.detectedMs) == b.edits.map(\.detectedMs)
            && a.unsealedSinceMs == b.unsealedSinceMs && a.chainIntact == b.chainIntact
    }

    public var isClean: Bool { edits.isEmpty && unsealedSinceMs == nil && chainIntact }

    /// Reads the ledger at `path` (read-only, one consistent snapshot).
    public static func inspect(path: String) throws(StoreError) -> LedgerIntegrity {
        do throws(SQLiteError) {
            let db = try SQLiteDatabase(path: path, flags: [.readOnly, .noMutex, .extendedResultCodes])
            defer { db.close() }
            try db.run("PRAGMA busy_timeout = \(Schema.busyTimeoutMs)")
            let version = try db.firstRow("PRAGMA user_version") { $0.int64(0) } ?? 0
            guard version >= 4 else { return LedgerIntegrity(edits: [], unsealedSinceMs: nil, chainIntact: true) }
            return try db.readTransaction { () throws(SQLiteError) in
                var previous = ""
                var intact = true
                var edits: [(sealedMs: Int64, detectedMs: Int64)] = []
                for (sealed, detected, hash) in try db.rows("SELECT sealed_ms, detected_ms, hash FROM ledger_edits ORDER BY id", [],
                                                            { ($0.int64(0), $0.int64(1), $0.text(2)) }) {
                    var expected = FNV1a()
                    expected.add("\(previous)|\(sealed)|\(detected)")
                    if expected.hex != hash { intact = false }
                    previous = hash
                    edits.append((sealed, detected))
                }
                var unsealed: Int64?
                if let seal = try LedgerSeal.stored(db), try LedgerSeal.digest(db) != seal.digest { unsealed = seal.atMs }
                return LedgerIntegrity(edits: edits, unsealedSinceMs: unsealed, chainIntact: intact)
            }
        } catch {
            throw StoreError(error, path: path, action: "cannot check the ledger for edits")
        }
    }
}

/// FNV-1a, 64 bits: a fixed, dependency-free digest (not a secret one).
struct FNV1a {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    mutating func add(_ text: String) {
        for byte in text.utf8 {
            value ^= UInt64(byte)
            value &*= 0x0000_0100_0000_01b3
        }
    }

    var hex: String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
