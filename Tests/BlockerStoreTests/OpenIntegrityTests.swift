import BlockerCore
import Testing
import TestSupport
@testable import BlockerStore

/// Opens and passes kept whole: a full disk, a hand edit, an upgrade, an anchor.
@Suite("Opens and passes kept whole")
struct OpenIntegrityTests {
    static let day: CivilDate = "2026-12-01"
    static let t0: WallInstant = 1_796_117_400_000   // Tue 2026-12-01 09:30 UTC

    func count(_ ledger: Ledger, _ table: String) throws -> Int64 {
        try #require(try ledger.database.firstRow("SELECT count(*) FROM \(table)") { $0.int64(0) })
    }

    /// The spending of a tick with 100 apps of long names: more than the pages the file has.
    func bigTick() -> TickRecord {
        TickRecord(debit: 2_000, spentDay: Self.day, usage: (0..<100).map {
            UsageEntry(day: Self.day, group: "video", app: "app-\($0)-" + String(repeating: "x", count: 200), ms: 10)
        })
    }

    @Test func anOpenOrAPassThatFailsToCommitIsWrittenOnceWhenRetried() throws {
        let temp = try TemporaryDirectory(create: false)
        let ledger = try Ledger.open(stateDirectory: temp.path)
        defer { ledger.close() }
        _ = try ledger.earn(exercise: "pushups", reps: 10, perRep: 60_000, at: 0, day: Self.day)
        let first = try ledger.addOpen(group: "social", day: Self.day, at: Self.t0, outcome: .opened, paused: false)
        ledger.seeOpen(id: first.id, at: Self.t0 + .seconds(8))
        ledger.pend(bigTick())
        try limitPages(ledger)
        // A name long enough to need pages of its own, so the insert itself fails too.
        let long = String(repeating: "g", count: 20_000)
        for _ in 0..<2 {   // the first try, and a retry while still full
            let open = #expect(throws: StoreError.self) {
                _ = try ledger.addOpen(group: long, day: Self.day, at: Self.t0 + .minutes(1), outcome: .opened, paused: false)
            }
            #expect(open?.isDiskFull == true)
            let pass = #expect(throws: StoreError.self) {
                _ = try ledger.addPass(group: long, day: Self.day, at: Self.t0, until: Self.t0 + .minutes(15))
            }
            #expect(pass?.isDiskFull == true)
            #expect(try [count(ledger, "opens"), count(ledger, "passes")] == [1, 0])
            #expect(ledger.hasPending)   // the spending before them is kept, as any failed commit's
            #expect(try ledger.openBook(day: Self.day, passesSince: Self.t0).latest["social"]?.lastSeen == Self.t0 + .seconds(8))
        }

        try limitPages(ledger, to: 1_000_000)
        let open = try ledger.addOpen(group: long, day: Self.day, at: Self.t0 + .minutes(1), outcome: .opened, paused: false)
        _ = try ledger.addPass(group: long, day: Self.day, at: Self.t0, until: Self.t0 + .minutes(15))
        #expect(!ledger.hasPending)
        ledger.close()
        let again = try Ledger(path: ledger.path)
        defer { again.close() }
        #expect(try [count(again, "opens"), count(again, "passes")] == [2, 1])
        #expect(try again.audit() == LedgerAudit(balance: 598_000, earnedTotal: 600_000, spentTotal: 2_000,
                                                 sumOfEarnings: 600_000, sumOfSpentByDay: 2_000))
        #expect(try count(again, "usage") == 100)
        let latest = try again.openBook(day: Self.day, passesSince: Self.t0).latest
        #expect(latest["social"]?.lastSeen == Self.t0 + .seconds(8) && latest[long] == open)
    }

    @Test func anAnswerThatFailsToCommitCountsOnceWhenRetried() throws {
        let temp = try TemporaryDirectory(create: false)
        let ledger = try Ledger.open(stateDirectory: temp.path)
        defer { ledger.close() }
        let open = try ledger.addOpen(group: "social", day: Self.day, at: Self.t0, outcome: .pausing, paused: true)
        try limitPages(ledger)
        let reason = String(repeating: "because ", count: 3_000)
        let full = #expect(throws: StoreError.self) {
            try ledger.answerOpen(id: open.id, outcome: .opened, reason: reason, at: Self.t0 + .seconds(15))
        }
        #expect(full?.isDiskFull == true)
        #expect(try ledger.openBook(day: Self.day, passesSince: Self.t0).latest["social"] == open)

        try limitPages(ledger, to: 1_000_000)
        try ledger.answerOpen(id: open.id, outcome: .opened, reason: reason, at: Self.t0 + .seconds(15))
        let twice = #expect(throws: StoreError.self) {
            try ledger.answerOpen(id: open.id, outcome: .opened, reason: reason, at: Self.t0 + .seconds(15))
        }
        #expect(twice?.reason == .notPausing(found: .opened))
        #expect(try ledger.opensHistory(fromDay: Self.day, toDay: Self.day)
            == [OpenDaySummary(day: Self.day, group: "social", opens: 1, paused: 1, reasons: [reason])])
    }

    /// Every write of opens and passes, and a tick's commit of last_seen,
    /// leave the file sealed (a debug build also checks each tick's seal
    /// against a full read: `LedgerSeal.tickTables`).
    func writeEverything(_ ledger: Ledger) throws -> (capped: OpenRecord, pass: PassRecord) {
        let yesterday: CivilDate = "2026-11-28"
        let reading = try ledger.addOpen(group: "reading", day: "2026-11-27", at: Self.t0 - .days(4), outcome: .opened, paused: false)
        let old = try ledger.addOpen(group: "games", day: yesterday, at: Self.t0 - .days(3), outcome: .capped, paused: false)
        _ = try ledger.addOpen(group: "games", day: "2026-11-30", at: Self.t0 - .days(1), outcome: .opened, paused: false)
        let capped = try ledger.addOpen(group: "social", day: Self.day, at: Self.t0, outcome: .capped, paused: false)
        let opened = try ledger.addOpen(group: "video", day: Self.day, at: Self.t0, outcome: .opened, paused: false)
        try ledger.record(TickRecord(usage: [UsageEntry(day: Self.day, group: "video", app: "mpv", ms: 1_000)]))
        ledger.seeOpen(id: opened.id, at: Self.t0 + .seconds(10))
        ledger.seeOpen(id: reading.id, at: Self.t0 + .seconds(10))   // days old, and still going on
        try ledger.record(TickRecord(usage: [UsageEntry(day: Self.day, group: "video", app: "mpv", ms: 1_000)]))
        let pausing = try ledger.addOpen(group: "news", day: Self.day, at: Self.t0, outcome: .pausing, paused: true)
        try ledger.answerOpen(id: pausing.id, outcome: .notNow, reason: "habit", at: Self.t0 + .seconds(11))
        let left = try ledger.addOpen(group: "news", day: Self.day, at: Self.t0 + .minutes(1), outcome: .pausing, paused: true)
        try ledger.endPausing(id: left.id, outcome: .left, at: Self.t0 + .minutes(1) + .seconds(2))
        _ = try ledger.addOpen(group: "news", day: Self.day, at: Self.t0 + .minutes(2), outcome: .pausing, paused: true)
        try ledger.interruptPausing()
        let pass = try ledger.addPass(group: "social", day: Self.day, at: Self.t0, until: Self.t0 + .minutes(15))
        #expect(old.id < capped.id)
        return (capped, pass)
    }

    @Test func blockersOwnWritesOfOpensAndPassesStaySealed() throws {
        let temp = try TemporaryDirectory(create: false)
        let ledger = try Ledger.open(stateDirectory: temp.path)
        defer { ledger.close() }
        _ = try writeEverything(ledger)
        #expect(ledger.editsFound == 0)
        #expect(try LedgerIntegrity.inspect(path: ledger.path).isClean)
        #expect(try LedgerSeal.stored(ledger.database)?.format == .opensAndPasses)
    }

    /// Each edit a user might make to get past a cap or a pass limit, by
    /// hand: seen by doctor at once, and noted at blocker's next write.
    @Test(arguments: [
        "UPDATE opens SET outcome = 'opened' WHERE outcome = 'capped' AND day = '2026-12-01'",   // today's cap lifted
        "UPDATE opens SET day = '2026-11-30' WHERE group_name = 'social'",                      // moved to yesterday
        "DELETE FROM opens WHERE group_name = 'news' AND outcome = 'not-now'",                   // an open forgotten
        "UPDATE opens SET outcome = 'opened' WHERE day = '2026-11-28'",                          // an old cap, outside the newest days
        "UPDATE opens SET last_seen_ms = last_seen_ms + 60000 WHERE group_name = 'video'",
        "UPDATE opens SET last_seen_ms = last_seen_ms + 3600000 WHERE group_name = 'reading'",            // an old open made to go on
        "DELETE FROM passes",                                                                    // a pass given back
        "UPDATE passes SET at_ms = at_ms - 604800000, until_ms = until_ms - 604800000",          // moved to last week
        "UPDATE passes SET group_name = 'games'",
    ])
    func aHandEditOfOpensOrPassesIsSeen(edit: String) throws {
        let temp = try TemporaryDirectory(create: false)
        let ledger = try Ledger.open(stateDirectory: temp.path)
        defer { ledger.close() }
        _ = try writeEverything(ledger)
        try sqlite3(ledger.path, edit)
        #expect(try LedgerIntegrity.inspect(path: ledger.path).unsealedSince != nil, "\(edit)")
        _ = try ledger.addOpen(group: "social", day: Self.day, at: Self.t0 + .hours(1), outcome: .capped, paused: false)
        #expect(ledger.editsFound == 1, "\(edit)")
        #expect(try LedgerIntegrity.inspect(path: ledger.path).edits.count == 1)
    }

    /// A ledger of schema 9 (the version before opens and passes, its seal
    /// in format 3) upgrades without looking edited, and seals the new tables.
    @Test func aSchema9LedgerGainsOpensAndPassesAndKeepsItsSeal() throws {
        let temp = try TemporaryDirectory(create: false)
        var path = ""
        do {
            let ledger = try Ledger.open(stateDirectory: temp.path)
            defer { ledger.close() }
            path = ledger.path
            _ = try ledger.earn(exercise: "pushups", reps: 2, perRep: 30_000, at: 1000, day: "2026-11-30")
            try ledger.record(TickRecord(debit: 5_000, spentDay: "2026-11-30",
                                         usage: [UsageEntry(day: "2026-11-30", group: "social", app: "discord", ms: 5_000)]))
            let (run, _) = try ledger.beginRun(pid: 1, now: 2000)
            _ = try ledger.beginBlind(runID: run, from: 3000, reason: "gnome: extension off")
            try ledger.addNote(IntegrityNote(kind: .stall, from: 4000, to: 5000, text: "stalled"))
        }
        try sqlite3(path, schema10Dropped + "PRAGMA user_version = 9")
        do {   // the seal schema 9's blocker wrote
            let db = try SQLiteDatabase(path: path, flags: [.readWrite, .noMutex])
            defer { db.close() }
            try db.run("UPDATE seal SET digest = ?, format = 3", [.text(try LedgerSeal.digest(db, .blindTime))])
        }
        #expect(try LedgerIntegrity.inspect(path: path).isClean)
        #expect(try pragma("user_version", of: path) == 9)

        let ledger = try Ledger(path: path)
        defer { ledger.close() }
        #expect(try ledger.database.firstRow("PRAGMA user_version") { $0.int64(0) } == Schema.latestVersion)
        #expect(try LedgerIntegrity.inspect(path: path).isClean)
        #expect(ledger.balance == 55_000 && ledger.usedToday(day: "2026-11-30") == ["social": 5_000])
        #expect(try ledger.openBook(day: Self.day, passesSince: 0) == OpenBook(day: Self.day))
        let (capped, _) = try writeEverything(ledger)
        #expect(ledger.editsFound == 0)
        #expect(try LedgerIntegrity.inspect(path: path).isClean)
        #expect(try LedgerSeal.stored(ledger.database)?.format == .opensAndPasses)
        try sqlite3(path, "DELETE FROM opens WHERE id = \(capped.id)")
        #expect(try LedgerIntegrity.inspect(path: path).unsealedSince != nil)
    }

    /// The seal has no secret: a user who deletes a pass and computes the
    /// seal again is caught by the anchor, which holds the counts.
    @Test func theAnchorCountsOpensAndPassesAndSeesOneRemovedWithTheSealRecomputed() throws {
        let temp = try TemporaryDirectory(create: false)
        let ledger = try Ledger.open(stateDirectory: temp.path)
        defer { ledger.close() }
        _ = try writeEverything(ledger)
        let anchor = try ledger.anchor(brokenEarning: nil, final: true, at: Self.t0)
        #expect(anchor.opens == 8 && anchor.passes == 1)
        #expect(anchor.departures(of: anchor, chainAtAnchoredCount: anchor.chain).isEmpty)

        try sqlite3(ledger.path, "DELETE FROM passes")
        do {
            let db = try SQLiteDatabase(path: ledger.path, flags: [.readWrite, .noMutex])
            defer { db.close() }
            _ = try db.transaction { () throws(SQLiteError) in try LedgerSeal.seal(db, now: Self.t0) }
        }
        #expect(try LedgerIntegrity.inspect(path: ledger.path).isClean)
        let file = try ledger.anchor(brokenEarning: nil, final: false, at: Self.t0 + .minutes(1))
        #expect(anchor.departures(of: file, chainAtAnchoredCount: file.chain)
            == ["it has 8 opens and 0 passes, blockerd had written 8 and 1"])
        // An anchor from before opens and passes were kept asks nothing of them.
        var older = anchor
        (older.opens, older.passes) = (0, 0)
        #expect(older.departures(of: file, chainAtAnchoredCount: file.chain).count == 1)   // only the seal, after the final stop
    }
}
