import BlockerCore
import Foundation
import Testing
import TestSupport
@testable import BlockerStore

/// A hand edit with the real sqlite3 shows up; blocker's own writes never do.
@Suite struct SealTests {
    /// Takes the file back to schema 6's predecessor as 0.2.0 left it (no
    /// earnings chain, a seal in the sums format, no request ids, no
    /// integrity notes, no opens or passes), then runs `sql`.
    func downgrade(_ path: String, _ sql: String) throws {
        try sqlite3(path, schema10Dropped + "DROP TABLE integrity_notes; DROP TABLE last_environment; DROP INDEX earnings_by_request; ALTER TABLE earnings DROP COLUMN request_id; "
                    + "DROP TABLE blind; ALTER TABLE earnings DROP COLUMN chain; ALTER TABLE seal DROP COLUMN format; \(sql)")
        let db = try SQLiteDatabase(path: path, flags: [.readWrite, .noMutex])
        defer { db.close() }
        try db.run("UPDATE seal SET digest = ?", [.text(try LedgerSeal.digest(db, .sums))])
    }

    /// A ledger in `temp` that `fill` wrote and blocker closed; its path.
    func writtenLedger(in temp: TemporaryDirectory, _ fill: (Ledger) throws -> Void) throws -> String {
        let ledger = try Ledger.open(stateDirectory: temp.path)
        defer { ledger.close() }
        try fill(ledger)
        return ledger.path
    }

    @Test func blockersOwnWritesAcrossConnectionsStayClean() throws {
        let temp = try TemporaryDirectory(create: false)
        let path = try writtenLedger(in: temp) { ledger in
            _ = try ledger.earn(exercise: "pushups", reps: 2, perRep: 30_000, at: 1000, day: "2024-05-01")
            try ledger.record(TickRecord(debit: 5000, spentDay: "2024-05-01"))
        }
        // Another blocker connection (blockerd --record-stop) writes too.
        do {
            let other = try Ledger(path: path)
            defer { other.close() }
            _ = try other.beginRun(pid: 1, now: 2000)
        }
        let ledger = try Ledger(path: path)
        defer { ledger.close() }
        try ledger.record(TickRecord(debit: 1000, spentDay: "2024-05-01"))
        #expect(ledger.editsFound == 0)
        #expect(try LedgerIntegrity.inspect(path: path).isClean)
    }

    /// blockerd looks for outside commits every few ticks, not every tick: an
    /// edit that one of blocker's own writes comes upon first stays news
    /// until it is looked at (the write moves `data_version`'s mark past it).
    @Test func anEditBlockersOwnWriteCameUponFirstIsStillNewsUntilLookedAt() throws {
        let temp = try TemporaryDirectory(create: false)
        let ledger = try Ledger.open(stateDirectory: temp.path)
        defer { ledger.close() }
        _ = try ledger.earn(exercise: "pushups", reps: 2, perRep: 30_000, at: 1000, day: "2024-05-01")
        #expect(!ledger.changedOutside())
        try sqlite3(ledger.path, "UPDATE account SET balance_ms = balance_ms + 3600000, earned_total_ms = earned_total_ms + 3600000")
        try ledger.record(TickRecord(debit: 1000, spentDay: "2024-05-01"))
        #expect(ledger.changedOutside(), "blocker's own write after the edit hid it")
        #expect(ledger.changedOutside(), "asking twice is still news: only a look clears it")
        ledger.outsideChangeChecked()
        #expect(!ledger.changedOutside())
        try ledger.record(TickRecord(debit: 1000, spentDay: "2024-05-01"))
        #expect(!ledger.changedOutside(), "blocker's own write is no news")
    }

    /// Schema 5 adds runs.unguarded_since_ms: a seal written by schema 4 still
    /// matches after the upgrade, and an edit of the new column is seen.
    @Test func theUnguardedColumnKeepsAnOlderSealAndIsCoveredOnceSet() throws {
        let temp = try TemporaryDirectory(create: false)
        let path = try writtenLedger(in: temp) { ledger in
            _ = try ledger.beginRun(pid: 1, now: 1000)
            try ledger.endRun(1, now: 2000, reason: "stopped")
        }
        // Back to schema 4 as 0.2.0 without it left the file (its seal was written then).
        try downgrade(path, "ALTER TABLE runs DROP COLUMN unguarded_since_ms; PRAGMA user_version = 4")
        #expect(try LedgerIntegrity.inspect(path: path).isClean)
        do {
            let ledger = try Ledger.open(stateDirectory: temp.path)
            defer { ledger.close() }
            let (second, _) = try ledger.beginRun(pid: 2, now: 5000)
            try ledger.noteUnguarded(second, since: 4000)
            #expect(ledger.editsFound == 0)
            #expect(Gap.between(try ledger.runs(since: 0)).map(\.unguarded) == [1000])
        }
        #expect(try LedgerIntegrity.inspect(path: path).isClean)
        try sqlite3(path, "UPDATE runs SET unguarded_since_ms = 5000 WHERE id = 2")
        #expect(try LedgerIntegrity.inspect(path: path).unsealedSince != nil)
    }

    @Test func aHandEditIsSeenByDoctorAtOnceAndNotedAtBlockersNextWrite() throws {
        let temp = try TemporaryDirectory(create: false)
        let path = try writtenLedger(in: temp) { ledger in
            _ = try ledger.earn(exercise: "pushups", reps: 2, perRep: 30_000, at: 1000, day: "2024-05-01")
        }
        #expect(try LedgerIntegrity.inspect(path: path).isClean)
        // An hour more, by hand, keeping the account's CHECKs happy.
        try sqlite3(path, "UPDATE account SET balance_ms = balance_ms + 3600000, earned_total_ms = earned_total_ms + 3600000")
        let seen = try LedgerIntegrity.inspect(path: path)
        #expect(seen.unsealedSince != nil && seen.edits.isEmpty && seen.chainIntact)

        // blocker runs on: its next write notes the edit (and seals again).
        let ledger = try Ledger(path: path)
        defer { ledger.close() }
        #expect(ledger.balance == 3_660_000)
        try ledger.record(TickRecord(debit: 1000, spentDay: "2024-05-01"))
        #expect(ledger.editsFound == 1)
        let noted = try LedgerIntegrity.inspect(path: path)
        #expect(noted.edits.count == 1 && noted.unsealedSince == nil && noted.chainIntact)
        // Further writes do not lose or repeat it.
        try ledger.record(TickRecord(debit: 1000, spentDay: "2024-05-01"))
        #expect(try LedgerIntegrity.inspect(path: path).edits.count == 1)

        // Deleting that record by hand is itself an edit, and breaks nothing else.
        try sqlite3(path, "DELETE FROM ledger_edits")
        try ledger.record(TickRecord(debit: 1000, spentDay: "2024-05-01"))
        #expect(try LedgerIntegrity.inspect(path: path).edits.count == 1)
    }

    @Test func alteringTheRecordOfEditsBreaksItsChain() throws {
        let temp = try TemporaryDirectory(create: false)
        let ledger = try Ledger.open(stateDirectory: temp.path)
        defer { ledger.close() }
        try ledger.record(TickRecord(debit: 0, spentDay: "2024-05-01"))
        _ = try ledger.earn(exercise: "pushups", reps: 1, perRep: 30_000, at: 1000, day: "2024-05-01")
        try sqlite3(ledger.path, "UPDATE earnings SET ms = ms")   // a no-op commit: same tables, same seal
        try sqlite3(ledger.path, "INSERT INTO earnings (at_ms, day, exercise, reps, ms) VALUES (2, '2024-05-01', 'x', 1, 0)")
        _ = try ledger.earn(exercise: "pushups", reps: 1, perRep: 30_000, at: 3000, day: "2024-05-01")
        #expect(try LedgerIntegrity.inspect(path: ledger.path).edits.count == 1)
        try sqlite3(ledger.path, "UPDATE ledger_edits SET detected_ms = detected_ms + 1")
        #expect(try LedgerIntegrity.inspect(path: ledger.path).chainIntact == false)
    }

    /// Moving credit between two earnings keeps every sum the seal holds:
    /// the chain names the row, and a removed one is seen at the row after it.
    @Test func theEarningsChainNamesTheFirstEarningEditedOrRemovedByHand() throws {
        let temp = try TemporaryDirectory(create: false)
        let ledger = try Ledger.open(stateDirectory: temp.path)
        defer { ledger.close() }
        for (index, day) in (["2024-05-01", "2024-05-02", "2024-05-03", "2024-05-04"] as [CivilDate]).enumerated() {
            _ = try ledger.earn(exercise: "pushups", reps: 2, perRep: 30_000, at: WallInstant(ms: Int64(index) * 1000), day: day)
        }
        #expect(try LedgerIntegrity.inspect(path: ledger.path).isClean)
        try sqlite3(ledger.path, "UPDATE earnings SET ms = ms + 30000 WHERE id = 2; UPDATE earnings SET ms = ms - 30000 WHERE id = 3")
        let moved = try LedgerIntegrity.inspect(path: ledger.path)
        #expect(moved.brokenEarning == .init(id: 2, day: "2024-05-02", exercise: "pushups"))
        #expect(!moved.isClean)

        try sqlite3(ledger.path, "UPDATE earnings SET ms = ms - 30000 WHERE id = 2; UPDATE earnings SET ms = ms + 30000 WHERE id = 3")
        #expect(try LedgerIntegrity.inspect(path: ledger.path).brokenEarning == nil)
        try sqlite3(ledger.path, "DELETE FROM earnings WHERE id = 3")
        #expect(try LedgerIntegrity.inspect(path: ledger.path).brokenEarning?.id == 4)

        // blocker's next earning links to the newest row as it finds it: the break stays where it was.
        _ = try ledger.earn(exercise: "squats", reps: 1, perRep: 30_000, at: 9000, day: "2024-05-05")
        #expect(try LedgerIntegrity.inspect(path: ledger.path).brokenEarning?.id == 4)
    }

    /// Today's use moved from a limited app to another keeps the sums; the
    /// seal holds the two newest days row by row, and sees it.
    @Test func todaysUseMovedBetweenAppsIsSeen() throws {
        let temp = try TemporaryDirectory(create: false)
        let ledger = try Ledger.open(stateDirectory: temp.path)
        defer { ledger.close() }
        try ledger.record(TickRecord(debit: 0, usage: [
            UsageEntry(day: "2024-05-01", group: "games", app: "steam", ms: 50_000),
            UsageEntry(day: "2024-05-02", group: "social", app: "firefox", ms: 60_000),
            UsageEntry(day: "2024-05-02", group: "work", app: "emacs", ms: 1000),
        ]))
        #expect(try LedgerIntegrity.inspect(path: ledger.path).isClean)
        try sqlite3(ledger.path, """
            UPDATE usage SET ms = 1000 WHERE app = 'firefox'; UPDATE usage SET ms = 60000 WHERE app = 'emacs'
            """)
        #expect(try LedgerIntegrity.inspect(path: ledger.path).unsealedSince != nil)
        try ledger.record(TickRecord(debit: 0, usage: [UsageEntry(day: "2024-05-02", group: "work", app: "emacs", ms: 1)]))
        #expect(ledger.editsFound == 1)
    }

    /// A schema 6 ledger (its seal in the recentRows format) upgrades to 7
    /// without looking edited; the blind time it records then is sealed
    /// (format 3), a hand edit of it is seen, and a stretch a kill -9 left
    /// open ends where its run did at the next start.
    @Test func aSchema6LedgerGainsBlindTimeKeepsItsSealAndSealsTheNewTable() throws {
        let temp = try TemporaryDirectory(create: false)
        let path = try writtenLedger(in: temp) { ledger in
            _ = try ledger.earn(exercise: "pushups", reps: 2, perRep: 30_000, at: 1000, day: "2024-05-01")
        }
        try sqlite3(path, schema10Dropped + "DROP TABLE integrity_notes; DROP TABLE last_environment; DROP INDEX earnings_by_request; ALTER TABLE earnings DROP COLUMN request_id; DROP TABLE blind; "
                    + "PRAGMA user_version = 6")
        do {
            let db = try SQLiteDatabase(path: path, flags: [.readWrite, .noMutex])
            defer { db.close() }
            try db.run("UPDATE seal SET digest = ?, format = 2", [.text(try LedgerSeal.digest(db, .recentRows))])
        }
        #expect(try LedgerIntegrity.inspect(path: path).isClean)
        do {
            let ledger = try Ledger.open(stateDirectory: temp.path)
            defer { ledger.close() }
            #expect(try ledger.database.firstRow("PRAGMA user_version") { $0.int64(0) } == Schema.latestVersion)
            let (run, _) = try ledger.beginRun(pid: 1, now: 10_000)
            let first = try ledger.beginBlind(runID: run, from: 12_000, reason: "gnome: extension off")
            try ledger.endBlind(first, to: 15_000)
            _ = try ledger.beginBlind(runID: run, from: 20_000, reason: "gnome: extension off again")
            try ledger.touchRun(run, now: 70_000)
            #expect(ledger.editsFound == 0)
            #expect(try ledger.blindStretches(since: 0, now: 30_000).map { [$0.from, $0.to] }
                == [[12_000, 15_000], [20_000, 30_000]])
            #expect(try ledger.blindStretches(since: 0, now: 30_000).first?.reason == Gap.blind("gnome: extension off"))
        }
        #expect(try LedgerIntegrity.inspect(path: path).isClean)
        do {
            // killed: the open stretch ends at the run's last sign of life.
            let ledger = try Ledger(path: path)
            defer { ledger.close() }
            _ = try ledger.beginRun(pid: 2, now: 100_000)
            #expect(try ledger.blindStretches(since: 16_000, now: 100_000).map { [$0.from, $0.to] } == [[20_000, 70_000]])
        }
        #expect(try LedgerIntegrity.inspect(path: path).isClean)
        try sqlite3(path, "DELETE FROM blind WHERE id = 2")
        #expect(try LedgerIntegrity.inspect(path: path).unsealedSince != nil)
    }

    /// A schema 5 ledger (its seal in the sums format) upgrades to 6 without
    /// looking edited: its earnings are chained, and the old seal still matches.
    @Test func aSchema5LedgerIsChainedAtTheUpgradeAndKeepsItsSeal() throws {
        let temp = try TemporaryDirectory(create: false)
        let path = try writtenLedger(in: temp) { ledger in
            _ = try ledger.earn(exercise: "pushups", reps: 2, perRep: 30_000, at: 1000, day: "2024-05-01")
            _ = try ledger.earn(exercise: "squats", reps: 1, perRep: 60_000, at: 2000, day: "2024-05-01")
        }
        try downgrade(path, "PRAGMA user_version = 5")
        #expect(try LedgerIntegrity.inspect(path: path).isClean)

        let ledger = try Ledger(path: path)
        defer { ledger.close() }
        #expect(try LedgerIntegrity.inspect(path: path).isClean)
        _ = try ledger.earn(exercise: "pushups", reps: 1, perRep: 30_000, at: 3000, day: "2024-05-02")
        #expect(ledger.editsFound == 0)
        #expect(try LedgerIntegrity.inspect(path: path).isClean)
        try sqlite3(path, "UPDATE earnings SET exercise = 'burpees' WHERE id = 1")
        #expect(try LedgerIntegrity.inspect(path: path).brokenEarning?.id == 1)
    }
}
