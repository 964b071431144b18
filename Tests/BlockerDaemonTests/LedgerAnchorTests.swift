import Foundation
import Testing
@testable import BlockerDaemon
import BlockerCore
@testable import BlockerStore
import TestSupport

/// Issue 20, row 8: a hand edit of the ledger that the seal alone does not
/// show (an earning moved to yesterday while blockerd runs, a restored older
/// file, a rewrite with the seal and chain recomputed) is noticed by blockerd
/// itself, from the earnings chain and the anchors it keeps outside the file.
@Suite struct LedgerAnchorTests {
    let pushups = Exercise(name: "pushups", perRep: 30_000)
    let environment = ["TZ": "UTC", "HOME": "/nonexistent"]

    func sandbox() throws -> Sandbox {
        let box = try Sandbox()
        let config = commandProbeConfig(frontFile: box.frontPath, earn: "pushups = 0.5\nmax-per-day = \"2m\"")
        try box.write(config, to: box.configPath)
        return box
    }

    func sqlite3(_ path: String, _ sql: String) throws {
        let edit = try run(["/usr/bin/sqlite3", path, sql])
        #expect(edit.status == 0, "\(edit.stderr)")
    }

    func edits(_ log: MemoryLog) -> [String] { log.events(.ledgerEdited).map(\.message) }

    /// blockerd started on `box`'s ledger at `wall`, keeping its anchors in `anchors`.
    func reopen(_ box: Sandbox, log: MemoryLog = MemoryLog(), at wall: WallInstant,
                anchors: LedgerAnchorStore = MemoryAnchorStore()) throws -> Daemon {
        try Daemon.reopened(options: box.options, log: log, environment: environment, wall: wall, anchors: anchors)
    }

    @Test func anEarningMovedToYesterdayWhileRunningIsNoticedAndStillCountsToday() throws {
        let box = try sandbox()
        let log = MemoryLog()
        let clock = Clock()
        let daemon = try reopen(box, log: log, at: clock.wall)
        _ = try daemon.earn(exercise: pushups, reps: 4, wall: clock.wall)                 // 2m: the day's cap
        try sqlite3(daemon.ledger.path, "UPDATE earnings SET day = '2026-11-29', at_ms = at_ms - 86400000")
        #expect(throws: EarnFailure.self) { try daemon.earn(exercise: pushups, reps: 1, wall: clock.wall + 1000) }
        #expect(edits(log).count == 1)
        #expect(edits(log).first?.contains("earning #1 does not follow from the one before it") == true, "\(edits(log))")
        #expect(try LedgerIntegrity.inspect(path: daemon.ledger.path).edits.count == 1)
        daemon.tick(clock)                                                                // said once, not at every tick
        #expect(edits(log).count == 1)
        // Kept for history and doctor (the integrity notes), not only said in the journal.
        let notes = try daemon.notes(since: 0).filter { $0.kind == .ledgerEdited }
        #expect(notes.count == 1 && notes.first?.text.contains("edited outside blocker") == true, "\(notes)")
    }

    /// Ticks look for a hand edit every `ledgerCheckEveryMs`, not at each
    /// one (a focus change does not touch SQLite); an earning looks at once.
    @Test func ticksLookForAnEditEveryTenSeconds() throws {
        let box = try sandbox()
        let log = MemoryLog()
        var clock = Clock()
        let daemon = try reopen(box, log: log, at: clock.wall)
        _ = try daemon.earn(exercise: pushups, reps: 2, wall: clock.wall)
        daemon.tick(clock)
        try sqlite3(daemon.ledger.path, "UPDATE earnings SET day = '2026-11-29', at_ms = at_ms - 86400000")
        for _ in 1..<10 {
            clock.advance(1000)
            daemon.tick(clock)
        }
        #expect(edits(log).isEmpty, "looked within 10 s of the last look: \(edits(log))")
        clock.advance(1000)
        daemon.tick(clock)
        #expect(edits(log).count == 1, "not found 10 s after the last look: \(edits(log))")
        #expect(edits(log).first?.contains("earning #1 does not follow from the one before it") == true, "\(edits(log))")
    }

    @Test func theDaysEarningsAreAnchoredAcrossARestart() throws {
        let box = try sandbox()
        let anchors = MemoryAnchorStore()
        let clock = Clock()
        let path: String
        do {
            let daemon = try reopen(box, at: clock.wall, anchors: anchors)
            _ = try daemon.earn(exercise: pushups, reps: 4, wall: clock.wall)
            path = daemon.ledger.path
            daemon.shutdown(wall: clock.wall + 1000)
        }
        // While stopped: today's earnings moved to yesterday, the chain and the seal recomputed.
        try rewrite(path, "UPDATE earnings SET day = '2026-11-29', at_ms = at_ms - 86400000")
        let log = MemoryLog()
        let daemon = try reopen(box, log: log, at: clock.wall + 2000, anchors: anchors)
        #expect(edits(log).count == 1, "\(edits(log))")
        #expect(throws: EarnFailure.self) { try daemon.earn(exercise: pushups, reps: 1, wall: clock.wall + 3000) }
    }

    @Test func aRestoredOlderLedgerIsNoticedAtStart() throws {
        let box = try sandbox()
        let anchors = MemoryAnchorStore()
        var clock = Clock()
        let path = box.stateDirectory + "/blocker.db", backup = box.root + "/backup.db"
        do {
            let daemon = try reopen(box, at: clock.wall, anchors: anchors)
            _ = try daemon.earn(exercise: pushups, reps: 2, wall: clock.wall)
            daemon.shutdown(wall: clock.wall)
        }
        try FileManager.default.copyItem(atPath: path, toPath: backup)
        clock.advance(60_000)
        do {
            let log = MemoryLog()
            let daemon = try reopen(box, log: log, at: clock.wall, anchors: anchors)
            #expect(edits(log).isEmpty, "a plain restart is no edit: \(edits(log))")
            box.front("discord")
            daemon.tick(clock)
            clock.advance(1000)
            daemon.tick(clock)
            daemon.shutdown(wall: clock.wall)
        }
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.copyItem(atPath: backup, toPath: path)
        clock.advance(60_000)
        let log = MemoryLog()
        _ = try reopen(box, log: log, at: clock.wall, anchors: anchors)
        #expect(edits(log).count == 1)
        #expect(edits(log).first?.contains("an older copy of the file") == true, "\(edits(log))")
        #expect(try LedgerIntegrity.inspect(path: path).edits.count == 1)
    }

    @Test func aKillMinus9AndARestartAreNoEdit() throws {
        let box = try sandbox()
        let anchors = MemoryAnchorStore()
        var clock = Clock()
        do {
            let daemon = try reopen(box, at: clock.wall, anchors: anchors)
            _ = try daemon.earn(exercise: pushups, reps: 2, wall: clock.wall)
            box.front("discord")
            for _ in 0..<15 { clock.advance(1000); daemon.tick(clock) }                   // a commit after the last anchor
            // Dropped without shutdown(), as after kill -9.
        }
        clock.advance(60_000)
        let log = MemoryLog()
        _ = try reopen(box, log: log, at: clock.wall, anchors: anchors)
        #expect(edits(log).isEmpty, "\(edits(log))")
    }

    @Test func anAnchorReadsBackFromItsJournalFields() {
        var anchor = LedgerAnchor(runID: 3, seal: "0123456789abcdef", sealFormat: 2, earnings: 7, chain: "fedcba9876543210",
                                  earnedTotalMs: 120_000, spentTotalMs: 30_000, brokenEarning: 5, final: true, at: 1_796_000_000_000)
        (anchor.day, anchor.earnedOnDayMs, anchor.lastEarningAt) = ("2026-11-30", 60_000, WallInstant(ms: 1_795_999_000_000))
        (anchor.opens, anchor.passes) = (9, 1)
        let fields = Dictionary(LogEvent(anchor: anchor, ledgerPath: "/x/blocker.db").journalFields, uniquingKeysWith: { $1 })
        #expect(fields["BLOCKER_LEDGER"] == "/x/blocker.db")
        #expect(fields["MESSAGE_ID"] == EventKind.ledgerAnchor.messageID)
        #expect(LedgerAnchor(journalFields: fields) == anchor)
    }

    /// What a user who read LedgerSeal.swift does: the edit, then the chain
    /// and the seal computed again, so that neither shows it.
    func rewrite(_ path: String, _ sql: String) throws {
        try sqlite3(path, sql)
        let db = try SQLiteDatabase(path: path, flags: [.readWrite, .noMutex, .extendedResultCodes])
        defer { db.close() }
        try db.transaction { () throws(SQLiteError) in
            try EarningChain.chainAll(db)
            try LedgerSeal.seal(db, now: 1_796_000_000_000)
        }
        #expect(try LedgerIntegrity.inspect(path: path).isClean)
    }
}
