import BlockerSystem

/// Tamper evidence: after each of blocker's own writes the ledger stores a
/// digest of all its tables (`seal`). Anything else that changes them — a
/// hand edit with sqlite3 — leaves the seal behind: blockerd notices at its
/// next write or start and notes it in `ledger_edits` (a chain: each row's
/// hash covers the previous one's), and `blockerctl doctor` says so.
/// This is evidence, not protection: the digest has no secret, so whoever
/// recomputes it after an edit is not caught. It catches the casual edit.
enum LedgerSeal {
    /// Which digest a seal holds. Each format stays as it was shipped: a
    /// seal is checked with its own format and rewritten with the latest.
    enum Format: Int64 {
        /// Schemas 4–5: the growing tables by row count and sums only.
        case sums = 1
        /// Schema 6: also the earnings chain's head, and the rows of the two
        /// newest days of spent_by_day and usage one by one (moving today's
        /// time from a limited app to another keeps the sums).
        case recentRows = 2
        /// Schema 7: also the blind stretches, by count and sums (an open
        /// one's end is set once, when it ends).
        case blindTime = 3
        /// Schema 10: also the opens (by count and sums; the two newest days
        /// and each group's newest open row by row: they decide today's
        /// opens cap and whether an open goes on) and the passes (by count
        /// and sums; the newest 14 row by row: two weeks at the most
        /// `[pass] per-week` allows).
        case opensAndPasses = 4

        static let latest = Format.opensAndPasses
    }

    /// What the digest covers: the small tables row by row, each column
    /// `quote()`d so that NULL, 1 and '1' differ; the three that grow with
    /// every day (earnings, spent_by_day, usage) by their row count and exact
    /// sums, which SQLite computes from the rows without handing them over
    /// (a year of rows read one by one cost 19 ms a commit, measured). So an
    /// edit that moves time between two rows of those, keeping the sums, is
    /// not seen by `.sums`; `.recentRows` sees it for the days that decide
    /// today's limits, and the earnings chain for every earning.
    static func rowQueries(_ format: Format, runsUpgraded: Bool) -> [String] {
        var queries = [
            "SELECT quote(id)||','||quote(balance_ms)||','||quote(earned_total_ms)||','||quote(spent_total_ms) FROM account ORDER BY id",
            "SELECT count(*)||','||coalesce(sum(ms), 0)||','||coalesce(sum(reps), 0)||','||coalesce(sum(at_ms), 0)||','||coalesce(max(id), 0) FROM earnings",
            "SELECT count(*)||','||coalesce(sum(spent_ms), 0) FROM spent_by_day",
            "SELECT count(*)||','||coalesce(sum(ms), 0) FROM usage",
            "SELECT quote(target)||','||quote(until_ms) FROM timed_blocks ORDER BY target",
            "SELECT quote(id)||','||quote(text)||','||quote(received_ms)||','||quote(apply_ms)||','||quote(changes)||','||quote(cancelled) FROM config_versions ORDER BY id",
            runsQuery(upgraded: runsUpgraded),
            "SELECT quote(id)||','||quote(sealed_ms)||','||quote(detected_ms)||','||quote(hash) FROM ledger_edits ORDER BY id",
        ]
        if format.rawValue >= Format.recentRows.rawValue {
            queries += [
                "SELECT quote(chain) FROM earnings ORDER BY id DESC LIMIT 1",
                "SELECT quote(day)||','||quote(spent_ms) FROM spent_by_day WHERE day >= \(newestDays("spent_by_day")) ORDER BY day",
                "SELECT quote(day)||','||quote(group_name)||','||quote(app)||','||quote(ms) FROM usage WHERE day >= \(newestDays("usage")) ORDER BY day, group_name, app",
            ]
        }
        if format.rawValue >= Format.blindTime.rawValue {
            queries.append("SELECT count(*)||','||coalesce(sum(run_id), 0)||','||coalesce(sum(from_ms), 0)||','||"
                + "coalesce(sum(to_ms), 0)||','||count(to_ms)||','||coalesce(sum(length(reason)), 0) FROM blind")
        }
        if format.rawValue >= Format.opensAndPasses.rawValue {
            // last_seen_ms (a tick writes it) only in the rows of the second and
            // third: the sums, a full read of a year of opens (8 ms), are read
            // again at no tick's commit.
            queries += [
                "SELECT count(*)||','||coalesce(max(id), 0)||','||coalesce(sum(at_ms), 0)||','||coalesce(sum(paused), 0)||','||"
                    + "coalesce(sum(outcome = 'capped'), 0)||','||coalesce(sum(outcome = 'opened'), 0)||','||"
                    + "coalesce(sum(outcome = 'not-now'), 0)||','||coalesce(sum(outcome = 'left'), 0)||','||"
                    + "coalesce(sum(outcome = 'interrupted'), 0)||','||count(reason)||','||coalesce(sum(length(reason)), 0)||','||"
                    + "coalesce(sum(length(group_name)), 0) FROM opens",
                "SELECT \(openRow) FROM opens WHERE day >= \(newestDays("opens")) ORDER BY day, id",
                "WITH RECURSIVE names(name) AS (SELECT min(group_name) FROM opens UNION ALL "
                    + "SELECT (SELECT min(group_name) FROM opens WHERE group_name > names.name) FROM names WHERE names.name IS NOT NULL) "
                    + "SELECT \(openRow) FROM names JOIN opens ON opens.id = "
                    + "(SELECT max(id) FROM opens WHERE group_name = names.name) ORDER BY opens.id",
                "SELECT count(*)||','||coalesce(sum(at_ms), 0)||','||coalesce(sum(until_ms), 0)||','||coalesce(max(id), 0)||','||"
                    + "coalesce(sum(length(group_name)), 0)||','||coalesce(sum(CAST(replace(day, '-', '') AS INTEGER)), 0) FROM passes",
                "SELECT quote(id)||','||quote(group_name)||','||quote(day)||','||quote(at_ms)||','||quote(until_ms) "
                    + "FROM passes ORDER BY id DESC LIMIT 14",
            ]
        }
        return queries
    }

    /// An opens row, every column.
    private static let openRow = "quote(opens.id)||','||quote(opens.group_name)||','||quote(opens.day)||','||quote(opens.at_ms)||','||"
        + "quote(opens.last_seen_ms)||','||quote(opens.outcome)||','||quote(opens.paused)||','||quote(opens.reason)"

    /// The older of the two newest days in `table` (a primary key prefix: no scan).
    private static func newestDays(_ table: String) -> String {
        "(SELECT min(day) FROM (SELECT DISTINCT day FROM \(table) ORDER BY day DESC LIMIT 2))"
    }

    // unguarded_since_ms (schema 5) adds to a row only when set, so a seal
    // written before the column existed still matches after the upgrade; a
    // file not upgraded yet (doctor reads it as it is) is read without it.
    static func runsQuery(upgraded: Bool) -> String {
        "SELECT quote(id)||','||quote(pid)||','||quote(started_ms)||','||quote(last_tick_ms)||','||quote(ended_ms)||','||quote(end_reason)"
            + (upgraded ? "||coalesce(','||unguarded_since_ms, '')" : "") + " FROM runs ORDER BY id"
    }

    /// The tables' digest in `format`: FNV-1a (64 bits) over every row, table by table.
    /// `upgraded`: whether the file has the latest schema (blockerd writes only
    /// then), so `runs` has schema 5's column and schema 9's tables exist; nil: ask the file
    /// (doctor reads files that are not upgraded yet).
    static func digest(_ db: SQLiteDatabase, _ format: Format = .latest,
                       upgraded known: Bool? = nil) throws(SQLiteError) -> String {
        try SealRows.read(db, format, upgraded: known).digest
    }

    /// The rows a digest hashes, kept by blockerd between its commits: a
    /// tick's commit writes only `tickTables`, so the next seal queries only
    /// those again (the others are as its own last seal read them: a write by
    /// anyone else changes `PRAGMA data_version`, and then everything is read).
    struct SealRows {
        var tables: [[String]] = []
        var sparse: [(table: String, rows: [String])] = []

        var digest: String {
            var hash = FNV1a()
            for (index, rows) in tables.enumerated() {
                hash.add(tableHeadings[index])
                for row in rows {
                    hash.add(row)
                    hash.add("\n")
                }
            }
            for (table, rows) in sparse where !rows.isEmpty {
                hash.add("table \(table)\n")
                for row in rows {
                    hash.add(row)
                    hash.add("\n")
                }
            }
            return hash.hex
        }

        /// Every row `format`'s digest hashes (`upgraded`: see `digest`; by
        /// default the latest format of a file blockerd writes).
        static func read(_ db: SQLiteDatabase, _ format: Format = .latest,
                         upgraded known: Bool? = true) throws(SQLiteError) -> SealRows {
            let upgraded: Bool
            if let known { upgraded = known } else { upgraded = try hasColumn(db, "runs", "unguarded_since_ms") }
            var rows = SealRows()
            for query in format == .latest && upgraded ? latestQueries : rowQueries(format, runsUpgraded: upgraded) {
                rows.tables.append(try db.rows(query, [], { $0.text(0) }))
            }
            // Schema 9's tables join the digest only once they have rows: a seal
            // written before they existed still matches after the upgrade.
            for (table, query) in sparseQueries {
                if known != true, try !hasTable(db, table) { continue }
                rows.sparse.append((table, try db.rows(query, [], { $0.text(0) })))
            }
            return rows
        }

        /// These rows with the queries of `tickTables` read again.
        func updatedAfterATick(_ db: SQLiteDatabase) throws(SQLiteError) -> SealRows {
            var rows = self
            for index in tickTables { rows.tables[index] = try db.rows(latestQueries[index], [], { $0.text(0) }) }
            return rows
        }
    }

    /// The latest format's queries a tick's commit (`Ledger.flushPending`:
    /// account, spent_by_day, usage, opens' last_seen_ms) can change: 0
    /// account, 2 and 9 spent_by_day, 3 and 10 usage, 13 and 14 the opens'
    /// rows. A debug build checks each such seal against a full read.
    static let tickTables = [0, 2, 3, 9, 10, 13, 14]

    static let latestQueries = rowQueries(.latest, runsUpgraded: true)
    static let tableHeadings = (0..<latestQueries.count).map { "table \($0)\n" }

    /// Tables hashed row by row once they have any (see `digest`).
    static let sparseQueries = [
        ("integrity_notes", "SELECT quote(id)||','||quote(kind)||','||quote(from_ms)||','||quote(to_ms)||','||quote(text) FROM integrity_notes ORDER BY id"),
        ("last_environment", "SELECT quote(run_id)||','||quote(text) FROM last_environment"),
    ]

    static func hasTable(_ db: SQLiteDatabase, _ table: String) throws(SQLiteError) -> Bool {
        try db.firstRow("SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?", [.text(table)]) {
            $0.int64(0)
        } == 1
    }

    static func hasColumn(_ db: SQLiteDatabase, _ table: String, _ column: String) throws(SQLiteError) -> Bool {
        try db.firstRow("SELECT count(*) FROM pragma_table_info(?) WHERE name = ?", [.text(table), .text(column)]) {
            $0.int64(0)
        } == 1
    }

    /// The stored seal, nil before blocker's first sealed write.
    static func stored(_ db: SQLiteDatabase) throws(SQLiteError) -> (digest: String, at: WallInstant, format: Format)? {
        let format = try hasColumn(db, "seal", "format") ? "format" : "1"
        return try db.firstRow("SELECT digest, at_ms, \(format) FROM seal WHERE id = 1") {
            ($0.text(0), $0.instant(1), Format(rawValue: $0.int64(2)) ?? .latest)
        }
    }

    /// Whether the tables match the stored seal; nil when nothing was sealed yet.
    static func matches(_ db: SQLiteDatabase) throws(SQLiteError) -> (matches: Bool, sealed: WallInstant)? {
        guard let seal = try stored(db) else { return nil }
        return (try digest(db, seal.format) == seal.digest, seal.at)
    }

    /// Inside blocker's write transaction, before its change: notes an edit
    /// made since the last seal. Returns whether there was one.
    @discardableResult
    static func checkBeforeWrite(_ db: SQLiteDatabase, now: WallInstant) throws(SQLiteError) -> Bool {
        guard let seal = try matches(db), !seal.matches else { return false }
        try noteEdit(db, sealed: seal.sealed, now: now)
        return true
    }

    /// One `ledger_edits` row, chained to the one before: an edit after
    /// blocker's write at `sealed`, found at `now`.
    static func noteEdit(_ db: SQLiteDatabase, sealed: WallInstant, now: WallInstant) throws(SQLiteError) {
        let previous = try db.firstRow("SELECT hash FROM ledger_edits ORDER BY id DESC LIMIT 1") { $0.text(0) } ?? ""
        var hash = FNV1a()
        // The unix ms as numbers (an instant's description adds " ms").
        hash.add("\(previous)|\(sealed.ms)|\(now.ms)")
        try db.run("INSERT INTO ledger_edits (sealed_ms, detected_ms, hash) VALUES (?, ?, ?)",
                   [.instant(sealed), .instant(now), .text(hash.hex)])
    }

    /// After blocker's change, in the same transaction: the ledger writes
    /// only once upgraded to the latest schema, so nothing is asked of the
    /// file's columns (a query a commit, every 10 s while charging).
    /// `previous`: the rows of blocker's own last seal when only a tick was
    /// written since (see `SealRows`); nil: everything is read. Returns the rows sealed.
    @discardableResult
    static func seal(_ db: SQLiteDatabase, now: WallInstant, afterATick previous: SealRows? = nil) throws(SQLiteError) -> SealRows {
        let rows: SealRows
        if let previous { rows = try previous.updatedAfterATick(db) } else { rows = try SealRows.read(db) }
        assert(previous == nil || rows.digest == (try? SealRows.read(db).digest), "a tick's commit wrote a table outside tickTables")
        try db.run("""
            INSERT INTO seal (id, digest, at_ms, format) VALUES (1, ?1, ?2, ?3)
            ON CONFLICT (id) DO UPDATE SET digest = ?1, at_ms = ?2, format = ?3
            """, [.text(rows.digest), .instant(now), .integer(Format.latest.rawValue)])
        return rows
    }
}

/// Each earning's `chain`: FNV-1a over the previous earning's chain and the
/// row's own columns. Changing, inserting or removing an earning by hand
/// breaks the link at that row (or the next), which doctor names. No secret:
/// whoever recomputes the chain after an edit is not caught (the seal's caveat).
enum EarningChain {
    struct Row {
        var id: Int64
        var at: WallInstant
        var day: String
        var exercise: String
        var reps: Int64
        var ms: Milliseconds
        var chain: String?
    }

    static func link(after previous: String, at: WallInstant, day: String, exercise: String, reps: Int64, ms: Milliseconds) -> String {
        var hash = FNV1a()
        // The free-text field goes last, after its length: no two rows read alike.
        // The instant and the length as the bare numbers of ms they are stored as (an instant's description adds " ms").
        hash.add("\(previous)|\(at.ms)|\(day)|\(reps)|\(ms.ms)|\(exercise.utf8.count):\(exercise)")
        return hash.hex
    }

    static func link(after previous: String, _ row: Row) -> String {
        link(after: previous, at: row.at, day: row.day, exercise: row.exercise, reps: row.reps, ms: row.ms)
    }

    /// The newest earning's chain ("" before the first), for the next insert.
    static func head(_ db: SQLiteDatabase) throws(SQLiteError) -> String {
        try db.firstRow("SELECT coalesce(chain, '') FROM earnings ORDER BY id DESC LIMIT 1") { $0.text(0) } ?? ""
    }

    static func rows(_ db: SQLiteDatabase) throws(SQLiteError) -> [Row] {
        try db.rows("SELECT id, at_ms, day, exercise, reps, ms, chain FROM earnings ORDER BY id", []) {
            Row(id: $0.int64(0), at: $0.instant(1), day: $0.text(2), exercise: $0.text(3), reps: $0.int64(4),
                ms: $0.duration(5), chain: $0.isNull(6) ? nil : $0.text(6))
        }
    }

    /// Schema 6: chains the earnings a schema 5 ledger already has.
    static func chainAll(_ db: SQLiteDatabase) throws(SQLiteError) {
        var previous = ""
        for row in try rows(db) {
            previous = link(after: previous, row)
            try db.run("UPDATE earnings SET chain = ? WHERE id = ?", [.text(previous), .integer(row.id)])
        }
    }

    /// The first earning whose chain does not follow from the one before.
    static func firstBroken(_ db: SQLiteDatabase) throws(SQLiteError) -> Row? {
        var previous = ""
        for row in try rows(db) {
            let expected = link(after: previous, row)
            if row.chain != expected { return row }
            previous = expected
        }
        return nil
    }
}

/// What `blockerctl doctor` reports about hand edits.
public struct LedgerIntegrity: Equatable, Sendable {
    /// Edits blockerd found: the last seal before it and when it found it.
    public var edits: [(sealed: WallInstant, detected: WallInstant)]
    /// The tables do not match the seal now: edited after `unsealedSince`, not yet noted.
    public var unsealedSince: WallInstant?
    /// Whether the ledger_edits chain links up (a deleted or altered row breaks it).
    public var chainIntact: Bool
    /// The first earning not following from the one before it (changed,
    /// inserted, or one before it removed by hand), nil when the chain holds.
    public var brokenEarning: BrokenEarning? = nil

    public struct BrokenEarning: Equatable, Sendable {
        public var id: Int64
        public var day: String
        public var exercise: String
    }

    public static func == (a: LedgerIntegrity, b: LedgerIntegrity) -> Bool {
        a.edits.map(\.sealed) == b.edits.map(\.sealed) && a.edits.map(\.detected) == b.edits.map(\.detected)
            && a.unsealedSince == b.unsealedSince && a.chainIntact == b.chainIntact && a.brokenEarning == b.brokenEarning
    }

    public var isClean: Bool { edits.isEmpty && unsealedSince == nil && chainIntact && brokenEarning == nil }

    /// Reads the ledger at `path` (read-only, one consistent snapshot).
    public static func inspect(path: String) throws(StoreError) -> LedgerIntegrity {
        do throws(SQLiteError) {
            let db = try SQLiteDatabase(path: path, flags: [.readOnly, .noMutex, .extendedResultCodes])
            defer { db.close() }
            try db.run("PRAGMA busy_timeout = \(Schema.busyTimeoutMs.ms)")
            let version = try db.firstRow("PRAGMA user_version") { $0.int64(0) } ?? 0
            guard version >= 4 else { return LedgerIntegrity(edits: [], unsealedSince: nil, chainIntact: true) }
            return try db.readTransaction { () throws(SQLiteError) in
                var previous = ""
                var intact = true
                var edits: [(sealed: WallInstant, detected: WallInstant)] = []
                for (sealed, detected, hash) in try db.rows("SELECT sealed_ms, detected_ms, hash FROM ledger_edits ORDER BY id", [],
                                                            { ($0.int64(0), $0.int64(1), $0.text(2)) }) {
                    var expected = FNV1a()
                    expected.add("\(previous)|\(sealed)|\(detected)")
                    if expected.hex != hash { intact = false }
                    previous = hash
                    edits.append((WallInstant(ms: sealed), WallInstant(ms: detected)))
                }
                var unsealed: WallInstant?
                if let seal = try LedgerSeal.matches(db), !seal.matches { unsealed = seal.sealed }
                let broken = version >= 6 ? try EarningChain.firstBroken(db) : nil
                return LedgerIntegrity(edits: edits, unsealedSince: unsealed, chainIntact: intact,
                                       brokenEarning: broken.map { BrokenEarning(id: $0.id, day: $0.day, exercise: $0.exercise) })
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
