// The ledger's tables and how a file becomes (or is verified to be) one.
// Versions are `PRAGMA user_version`; the file is stamped with a fixed
// `PRAGMA application_id` so a foreign SQLite file is recognised and refused.
import BlockerTime

enum Schema {
    /// "BLKR" in ASCII.
    static let applicationID: Int32 = 0x424C_4B52

    /// How long a statement waits for another connection's lock. Short: the
    /// daemon ticks once a second and must keep feeding the systemd watchdog.
    static let busyTimeoutMs: Milliseconds = 2000

    struct Migration: Sendable {
        /// The `user_version` after this migration.
        let version: Int64
        let sql: String
        /// What SQL cannot do, run after `sql` in the same transaction.
        var then: (@Sendable (SQLiteDatabase) throws(SQLiteError) -> Void)? = nil
    }

    /// Append only; never edit a shipped migration.
    static let migrations: [Migration] = [
        Migration(version: 1, sql: """
            -- One row. The CHECKs make the ledger's invariant part of the file:
            -- a write that would break it fails instead of being stored.
            CREATE TABLE account (
                id INTEGER PRIMARY KEY CHECK (id = 1),
                balance_ms INTEGER NOT NULL CHECK (balance_ms >= 0),
                earned_total_ms INTEGER NOT NULL CHECK (earned_total_ms >= 0),
                spent_total_ms INTEGER NOT NULL CHECK (spent_total_ms >= 0),
                CHECK (balance_ms = earned_total_ms - spent_total_ms)
            ) STRICT;
            INSERT INTO account (id, balance_ms, earned_total_ms, spent_total_ms) VALUES (1, 0, 0, 0);

            -- day: the local day the earning counts for in history.
            CREATE TABLE earnings (
                id INTEGER PRIMARY KEY,
                at_ms INTEGER NOT NULL,
                day TEXT NOT NULL,
                exercise TEXT NOT NULL,
                reps INTEGER NOT NULL CHECK (reps > 0),
                ms INTEGER NOT NULL CHECK (ms >= 0)
            ) STRICT;
            CREATE INDEX earnings_by_day ON earnings (day);

            -- Balance spent per local day; sums to account.spent_total_ms.
            CREATE TABLE spent_by_day (
                day TEXT PRIMARY KEY,
                spent_ms INTEGER NOT NULL CHECK (spent_ms >= 0)
            ) STRICT, WITHOUT ROWID;

            -- Time in front per (local day, group, app), metered or not.
            CREATE TABLE usage (
                day TEXT NOT NULL,
                group_name TEXT NOT NULL,
                app TEXT NOT NULL,
                ms INTEGER NOT NULL CHECK (ms >= 0),
                PRIMARY KEY (day, group_name, app)
            ) STRICT, WITHOUT ROWID;

            -- Absolute end instants (unix ms), so a restart or a clock zone
            -- change neither shortens nor extends a block. target is lowercase.
            CREATE TABLE timed_blocks (
                target TEXT PRIMARY KEY,
                until_ms INTEGER NOT NULL
            ) STRICT, WITHOUT ROWID;
            """),
        Migration(version: 2, sql: """
            -- Strict mode: each blocker.toml blockerd read, oldest first. The
            -- config in force is the newest row whose apply_ms has passed (the
            -- base), with the tightenings of every later row; a later row's
            -- loosenings wait for its apply_ms. Rows before the base are pruned.
            -- changes: what that row loosens, one line each (for `config pending`).
            -- cancelled: `blockerctl config cancel`: its loosenings never apply.
            CREATE TABLE config_versions (
                id INTEGER PRIMARY KEY,
                text TEXT NOT NULL,
                received_ms INTEGER NOT NULL,
                apply_ms INTEGER NOT NULL,
                changes TEXT NOT NULL,
                cancelled INTEGER NOT NULL DEFAULT 0 CHECK (cancelled IN (0, 1))
            ) STRICT;
            """),
        Migration(version: 3, sql: """
            -- Each run of blockerd: when it started, the last tick it noted
            -- (at most a minute old), when and why it ended. ended_ms NULL
            -- while it runs, or after a kill -9 or crash until the next start
            -- (or `blockerd --record-stop`) fills it from last_tick_ms.
            CREATE TABLE runs (
                id INTEGER PRIMARY KEY,
                pid INTEGER NOT NULL,
                started_ms INTEGER NOT NULL,
                last_tick_ms INTEGER NOT NULL,
                ended_ms INTEGER,
                end_reason TEXT
            ) STRICT;
            """),
        Migration(version: 4, sql: """
            -- Tamper evidence (LedgerSeal.swift). seal: a digest of every
            -- table above, as blocker's last write left them. ledger_edits:
            -- each time blocker found the tables not matching it (a hand
            -- edit), chained: hash covers the row and the previous row's hash.
            CREATE TABLE seal (
                id INTEGER PRIMARY KEY CHECK (id = 1),
                digest TEXT NOT NULL,
                at_ms INTEGER NOT NULL
            ) STRICT;
            CREATE TABLE ledger_edits (
                id INTEGER PRIMARY KEY,
                sealed_ms INTEGER NOT NULL,
                detected_ms INTEGER NOT NULL,
                hash TEXT NOT NULL
            ) STRICT;
            """),
        Migration(version: 5, sql: """
            -- The gap before this run: from when (unix ms) a graphical session
            -- logind still had at this start already existed (Unguarded.since;
            -- started_ms: none did). NULL: logind was not asked or not there.
            ALTER TABLE runs ADD COLUMN unguarded_since_ms INTEGER;
            """),
        Migration(version: 6, sql: """
            -- Each earning carries a hash of itself and the previous earning's
            -- chain (EarningChain), so doctor can name the first one edited,
            -- inserted or removed by hand. Existing rows are chained now.
            -- seal.format: which digest it holds (LedgerSeal.Format); 1 before this.
            ALTER TABLE earnings ADD COLUMN chain TEXT;
            ALTER TABLE seal ADD COLUMN format INTEGER NOT NULL DEFAULT 1;
            """, then: { db throws(SQLiteError) in try EarningChain.chainAll(db) }),
        Migration(version: 7, sql: """
            -- Each stretch blockerd ran but could not see the window in front
            -- (its probe failing 2 s or more: GNOME's extension disabled, the
            -- KWin script unloaded, the display gone), which history shows
            -- beside the gaps. to_ms NULL: blind still; the next start ends it
            -- where its run ended.
            CREATE TABLE blind (
                id INTEGER PRIMARY KEY,
                run_id INTEGER NOT NULL,
                from_ms INTEGER NOT NULL,
                to_ms INTEGER,
                reason TEXT NOT NULL
            ) STRICT;
            """),
        Migration(version: 8, sql: """
            -- EarnOnce: the caller's id for an earning, so that a retry after a
            -- timeout is answered with the first earning, not credited again.
            -- Kept on the newest earnings only (Ledger.requestIDsKept). Neither
            -- the seal nor the chain covers it: it decides no balance.
            ALTER TABLE earnings ADD COLUMN request_id TEXT;
            CREATE UNIQUE INDEX earnings_by_request ON earnings (request_id) WHERE request_id IS NOT NULL;
            """),
        Migration(version: 9, sql: """
            -- What blockerd saw that may have been a way around it (IntegrityNote):
            -- a lock it did not honour, a stall, another environment, strict
            -- mode running on the ledger's config. from_ms..to_ms: the time it
            -- concerned (to_ms grows while it lasts); text: in words.
            CREATE TABLE integrity_notes (
                id INTEGER PRIMARY KEY,
                kind TEXT NOT NULL,
                from_ms INTEGER NOT NULL,
                to_ms INTEGER NOT NULL CHECK (to_ms >= from_ms),
                text TEXT NOT NULL
            ) STRICT;
            CREATE INDEX integrity_notes_by_end ON integrity_notes (to_ms);
            -- The environment the newest run started with (RunEnvironment's
            -- text), so the next start can say what changed.
            CREATE TABLE last_environment (
                id INTEGER PRIMARY KEY CHECK (id = 1),
                run_id INTEGER NOT NULL,
                text TEXT NOT NULL
            ) STRICT;
            """),
        Migration(version: 10, sql: """
            -- Opens (BlockerCore's Opens.swift): a group coming to the front
            -- after being away, one row each. day: the local day it counts for
            -- (opens-per-day); last_seen_ms: the last tick it was in front as
            -- part of this open (written with a tick's batch); outcome:
            -- OpenOutcome's raw values; paused: a pause was shown (every
            -- outcome but opened and capped comes from one); reason: the
            -- answer to "why now?".
            CREATE TABLE opens (
                id INTEGER PRIMARY KEY,
                group_name TEXT NOT NULL CHECK (group_name <> ''),
                day TEXT NOT NULL,
                at_ms INTEGER NOT NULL,
                last_seen_ms INTEGER NOT NULL CHECK (last_seen_ms >= at_ms),
                outcome TEXT NOT NULL CHECK (outcome IN ('pausing', 'opened', 'not-now', 'left', 'capped', 'interrupted')),
                paused INTEGER NOT NULL CHECK (paused IN (0, 1)),
                reason TEXT,
                CHECK (paused = 1 OR outcome IN ('opened', 'capped'))
            ) STRICT;
            CREATE INDEX opens_by_day ON opens (day);
            CREATE INDEX opens_by_group ON opens (group_name);
            -- Emergency passes: each lifts its group's shield from at_ms to
            -- until_ms; day: the local day it counts for in history.
            CREATE TABLE passes (
                id INTEGER PRIMARY KEY,
                group_name TEXT NOT NULL CHECK (group_name <> ''),
                day TEXT NOT NULL,
                at_ms INTEGER NOT NULL,
                until_ms INTEGER NOT NULL,
                CHECK (until_ms > at_ms)
            ) STRICT;
            CREATE INDEX passes_by_at ON passes (at_ms);
            """),
    ]

    static var latestVersion: Int64 { migrations.last!.version }

    /// Fills the new, empty file at `path` with the latest schema, stamped
    /// with blocker's application_id, in rollback mode (the WAL is switched on
    /// once the file has its real name: WAL side files follow the name).
    static func create(at path: String) throws(StoreError) {
        do throws(SQLiteError) {
            let db = try SQLiteDatabase(path: path, flags: [.readWrite, .noMutex, .extendedResultCodes])
            defer { db.close() }
            try db.run("PRAGMA busy_timeout = \(busyTimeoutMs.ms)")
            try db.run("PRAGMA synchronous = FULL")
            try migrate(db, stampApplicationID: true)
        } catch {
            throw StoreError(error, path: path, action: "cannot create the ledger's tables")
        }
    }

    /// Verifies the open file is ours and undamaged (reading only), brings it
    /// to the latest schema, then switches to WAL.
    static func prepare(_ db: SQLiteDatabase, path: String) throws(StoreError) {
        func sqlite<T>(_ action: String, _ body: () throws(SQLiteError) -> T) throws(StoreError) -> T {
            do throws(SQLiteError) { return try body() } catch { throw StoreError(error, path: path, action: action) }
        }
        try sqlite("cannot open the ledger") { () throws(SQLiteError) in
            try db.run("PRAGMA busy_timeout = \(busyTimeoutMs.ms)")
        }
        // Read-only look first: journal_mode=WAL below writes to the file.
        let (applicationID, version) = try sqlite("cannot read the ledger") { () throws(SQLiteError) in
            let id = try db.firstRow("PRAGMA application_id") { $0.int64(0) } ?? 0
            let version = try db.firstRow("PRAGMA user_version") { $0.int64(0) } ?? 0
            return (id, version)
        }
        guard applicationID == Int64(Schema.applicationID) else {
            throw StoreError(.notALedger, path: path, action: "refusing to open the ledger",
                             detail: "the file is not blocker's database (application_id \(applicationID))")
        }
        guard version <= latestVersion else {
            throw StoreError(.newerSchema(found: version, supported: latestVersion), path: path,
                             action: "refusing to open the ledger",
                             detail: "its schema version is \(version), this blocker knows up to \(latestVersion)")
        }
        // A damaged page found now is reported before anything writes over it.
        // A damaged schema (sqlite_schema outgrew page 1 at schema 10) fails
        // the check itself: that file is damaged too.
        let problems: [String]
        do throws(SQLiteError) {
            problems = try db.rows("PRAGMA quick_check(5)") { $0.text(0) }
        } catch where error.code.primary == .corrupt || error.code.primary == .notADatabase {
            problems = [error.message]
        } catch {
            throw StoreError(error, path: path, action: "cannot check the ledger")
        }
        guard problems == ["ok"] else {
            throw StoreError(.damaged, path: path, action: "refusing to open the ledger",
                             detail: "it is damaged (\(problems.joined(separator: "; ")))")
        }
        if version < latestVersion {
            try sqlite("cannot upgrade the ledger's tables") { () throws(SQLiteError) in
                try migrate(db, stampApplicationID: false)
            }
        }
        try sqlite("cannot switch the ledger to WAL mode") { () throws(SQLiteError) in
            let mode = try db.firstRow("PRAGMA journal_mode = WAL") { $0.text(0) }
            guard mode?.lowercased() == "wal" else {
                throw SQLiteError(code: .error, message: "the file system does not support WAL (journal mode stayed \(mode ?? "unknown"))")
            }
            // Under WAL, NORMAL never corrupts; it only may lose the last
            // ticks on power loss. Earnings are committed with FULL (Ledger.earn).
            try db.run("PRAGMA synchronous = NORMAL")
        }
    }

    /// Applies every migration newer than the file's `user_version` in one
    /// transaction. Running it again is a no-op.
    static func migrate(_ db: SQLiteDatabase, stampApplicationID: Bool) throws(SQLiteError) {
        try db.transaction { () throws(SQLiteError) in
            if stampApplicationID {
                // In the same transaction as the tables, and (for a new file)
                // before WAL exists, so the id lands in the main file's header.
                try db.execute("PRAGMA application_id = \(applicationID)")
            }
            let current = try db.firstRow("PRAGMA user_version") { $0.int64(0) } ?? 0
            for migration in migrations where migration.version > current {
                try db.execute(migration.sql)
                try migration.then?(db)
                try db.execute("PRAGMA user_version = \(migration.version)")
            }
        }
    }
}
