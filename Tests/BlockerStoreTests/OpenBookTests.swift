import BlockerCore
import Testing
import TestSupport
@testable import BlockerStore

/// Opens, pauses and passes in a real ledger file (issue 23).
@Suite("Opens and passes in the ledger")
struct OpenBookTests {
    static let day: CivilDate = "2026-12-01"
    static let monday: WallInstant = 1_795_996_800_000   // Mon 2026-11-30 00:00 UTC
    static let t0: WallInstant = 1_796_117_400_000       // Tue 2026-12-01 09:30 UTC

    func rows(_ ledger: Ledger, _ table: String) throws -> Int64 {
        try #require(try ledger.database.firstRow("SELECT count(*) FROM \(table)") { $0.int64(0) })
    }

    @Test func anOpenIsCommittedAtOnceAndShowsInTheBook() throws {
        let temp = try TemporaryDirectory(create: false)
        let ledger = try Ledger.open(stateDirectory: temp.path)
        defer { ledger.close() }
        let open = try ledger.addOpen(group: "Social", day: Self.day, at: Self.t0, outcome: .pausing, paused: true)
        #expect(open == OpenRecord(id: open.id, group: "social", day: Self.day, at: Self.t0, lastSeen: Self.t0,
                                   outcome: .pausing, paused: true))
        // A second connection sees the row while the first stays open.
        let reader = try Ledger(path: ledger.path)
        defer { reader.close() }
        let book = try reader.openBook(day: Self.day, passesSince: Self.monday)
        #expect(book == OpenBook(day: Self.day, latest: ["social": open], opensToday: ["social": 1]))
    }

    @Test func theBookHasEachGroupsNewestOpenAndTheDaysCountsAndCaps() throws {
        let temp = try TemporaryDirectory(create: false)
        let ledger = try Ledger.open(stateDirectory: temp.path)
        defer { ledger.close() }
        let yesterday: CivilDate = "2026-11-30"
        let old = try ledger.addOpen(group: "games", day: yesterday, at: Self.t0 - .hours(20), outcome: .opened, paused: false)
        var social: [OpenRecord] = []
        for (index, outcome) in [OpenOutcome.opened, .notNow, .opened, .capped].enumerated() {
            social.append(try ledger.addOpen(group: "social", day: Self.day, at: Self.t0 + .minutes(Int64(index) * 20),
                                             outcome: outcome, paused: outcome == .notNow))
        }
        _ = try ledger.addOpen(group: "video", day: yesterday, at: Self.t0 - .hours(19), outcome: .capped, paused: false)
        let video = try ledger.addOpen(group: "video", day: Self.day, at: Self.t0 + .minutes(5), outcome: .opened, paused: false)

        let book = try ledger.openBook(day: Self.day, passesSince: Self.monday)
        #expect(book.latest == ["games": old, "social": social[3], "video": video])
        #expect(book.opensToday == ["social": 4, "video": 1])
        #expect(book.cappedToday == ["social"])   // video's cap was yesterday's
        let before = try ledger.openBook(day: yesterday, passesSince: Self.monday)
        #expect(before.opensToday == ["games": 1, "video": 1] && before.cappedToday == ["video"])
    }

    @Test func everyOutcomeIsStoredAndReadBack() throws {
        let temp = try TemporaryDirectory(create: false)
        let ledger = try Ledger.open(stateDirectory: temp.path)
        defer { ledger.close() }
        for (index, outcome) in OpenOutcome.allCases.enumerated() {
            let open = try ledger.addOpen(group: "g\(index)", day: Self.day, at: Self.t0, outcome: outcome, paused: true)
            #expect(try ledger.openBook(day: Self.day, passesSince: Self.monday).latest["g\(index)"] == open)
        }
        // The file's CHECK refuses an outcome it does not know, whoever writes it.
        #expect(throws: SQLiteError.self) {
            try ledger.database.run("INSERT INTO opens (group_name, day, at_ms, last_seen_ms, outcome, paused) "
                                    + "VALUES ('x', '2026-12-01', 1, 1, 'skipped', 1)")
        }
    }

    @Test func anOpenTheLedgerCannotHoldIsRefusedAndNothingIsWritten() throws {
        let temp = try TemporaryDirectory(create: false)
        let ledger = try Ledger.open(stateDirectory: temp.path)
        defer { ledger.close() }
        let empty = #expect(throws: StoreError.self) {
            _ = try ledger.addOpen(group: "", day: Self.day, at: Self.t0, outcome: .opened, paused: false)
        }
        #expect(empty?.reason == .invalidArgument)
        for outcome in [OpenOutcome.pausing, .notNow, .left, .interrupted] {
            let error = #expect(throws: StoreError.self) {
                _ = try ledger.addOpen(group: "social", day: Self.day, at: Self.t0, outcome: outcome, paused: false)
            }
            #expect(error?.description.contains("without a pause") == true, "\(String(describing: error))")
        }
        #expect(try rows(ledger, "opens") == 0)
    }

    @Test func aPauseIsAnsweredOnceAndASecondAnswerIsRefused() throws {
        let temp = try TemporaryDirectory(create: false)
        let ledger = try Ledger.open(stateDirectory: temp.path)
        defer { ledger.close() }
        let open = try ledger.addOpen(group: "social", day: Self.day, at: Self.t0, outcome: .pausing, paused: true)
        try ledger.answerOpen(id: open.id, outcome: .notNow, reason: "bored, honestly", at: Self.t0 + .seconds(12))
        var answered = open
        (answered.outcome, answered.reason, answered.lastSeen) = (.notNow, "bored, honestly", Self.t0 + .seconds(12))
        #expect(try ledger.openBook(day: Self.day, passesSince: Self.monday).latest["social"] == answered)

        // A second answer (a double click, a retried call) counts nothing.
        for outcome in [OpenOutcome.opened, .notNow] {
            let again = #expect(throws: StoreError.self) {
                try ledger.answerOpen(id: open.id, outcome: outcome, reason: "again", at: Self.t0 + .seconds(20))
            }
            #expect(again?.reason == .notPausing(found: .notNow))
            #expect(again?.description.contains("open #\(open.id) is `not-now` already") == true, "\(String(describing: again))")
        }
        let left = #expect(throws: StoreError.self) { try ledger.endPausing(id: open.id, outcome: .left, at: Self.t0 + .seconds(30)) }
        #expect(left?.reason == .notPausing(found: .notNow))
        let missing = #expect(throws: StoreError.self) {
            try ledger.answerOpen(id: open.id + 100, outcome: .opened, reason: nil, at: Self.t0)
        }
        #expect(missing?.reason == .notPausing(found: nil))
        #expect(missing?.description.contains("there is no open #\(open.id + 100)") == true)
        #expect(try ledger.openBook(day: Self.day, passesSince: Self.monday).latest["social"] == answered)
        #expect(try ledger.opensHistory(fromDay: Self.day, toDay: Self.day).first?.notNow == 1)
    }

    @Test func anOpenWithoutAPauseIsNeverAnswered() throws {
        let temp = try TemporaryDirectory(create: false)
        let ledger = try Ledger.open(stateDirectory: temp.path)
        defer { ledger.close() }
        let open = try ledger.addOpen(group: "social", day: Self.day, at: Self.t0, outcome: .opened, paused: false)
        let error = #expect(throws: StoreError.self) {
            try ledger.answerOpen(id: open.id, outcome: .notNow, reason: nil, at: Self.t0 + .seconds(1))
        }
        #expect(error?.reason == .notPausing(found: .opened))
        #expect(try ledger.openBook(day: Self.day, passesSince: Self.monday).latest["social"] == open)
    }

    @Test func anAnswerOrAnEndMustBeOneOfItsOutcomes() throws {
        let temp = try TemporaryDirectory(create: false)
        let ledger = try Ledger.open(stateDirectory: temp.path)
        defer { ledger.close() }
        let open = try ledger.addOpen(group: "social", day: Self.day, at: Self.t0, outcome: .pausing, paused: true)
        for outcome in [OpenOutcome.pausing, .left, .capped, .interrupted] {
            let error = #expect(throws: StoreError.self) { try ledger.answerOpen(id: open.id, outcome: outcome, reason: nil, at: Self.t0) }
            #expect(error?.reason == .invalidArgument)
        }
        for outcome in [OpenOutcome.pausing, .opened, .notNow, .capped] {
            let error = #expect(throws: StoreError.self) { try ledger.endPausing(id: open.id, outcome: outcome, at: Self.t0) }
            #expect(error?.reason == .invalidArgument)
        }
        #expect(try ledger.openBook(day: Self.day, passesSince: Self.monday).latest["social"]?.outcome == .pausing)
        // A blank answer to "why now?" is none.
        try ledger.answerOpen(id: open.id, outcome: .opened, reason: "  ", at: Self.t0 + .seconds(10))
        let answered = try ledger.openBook(day: Self.day, passesSince: Self.monday).latest["social"]
        #expect(answered?.outcome == .opened && answered?.reason == nil)
    }

    @Test func aPauseLeftForAnotherWindowEndsAtOnce() throws {
        let temp = try TemporaryDirectory(create: false)
        let ledger = try Ledger.open(stateDirectory: temp.path)
        defer { ledger.close() }
        let open = try ledger.addOpen(group: "social", day: Self.day, at: Self.t0, outcome: .pausing, paused: true)
        try ledger.endPausing(id: open.id, outcome: .left, at: Self.t0 + .seconds(4))
        #expect(!ledger.hasPending)
        ledger.close()
        let again = try Ledger(path: ledger.path)
        defer { again.close() }
        let left = try again.openBook(day: Self.day, passesSince: Self.monday).latest["social"]
        #expect(left?.outcome == .left && left?.lastSeen == Self.t0 + .seconds(4))
        let answer = #expect(throws: StoreError.self) { try again.answerOpen(id: open.id, outcome: .opened, reason: nil, at: Self.t0) }
        #expect(answer?.reason == .notPausing(found: .left))
    }

    /// last_seen goes with the tick's batch: a commit keeps it, a kill -9
    /// (a close without a commit) loses only what came after the last one.
    @Test func lastSeenGoesWithTheTicksBatch() throws {
        let temp = try TemporaryDirectory(create: false)
        var ledger = try Ledger.open(stateDirectory: temp.path)
        let open = try ledger.addOpen(group: "social", day: Self.day, at: Self.t0, outcome: .opened, paused: false)
        ledger.seeOpen(id: open.id, at: Self.t0 + .seconds(5))
        #expect(ledger.hasPending)
        #expect(try ledger.openBook(day: Self.day, passesSince: Self.monday).latest["social"]?.lastSeen == Self.t0 + .seconds(5))
        ledger.seeOpen(id: open.id, at: Self.t0 + .seconds(3))   // never back
        let usage = [UsageEntry(day: Self.day, group: "social", app: "discord", ms: 10_000)]
        ledger.pend(TickRecord(usage: usage))
        ledger.seeOpen(id: open.id, at: Self.t0 + .seconds(10))
        try ledger.record(TickRecord(usage: usage))
        #expect(!ledger.hasPending)
        ledger.seeOpen(id: open.id, at: Self.t0 + .seconds(20))
        ledger.pend(TickRecord(usage: usage))
        ledger.close()   // kill -9: the batch after the commit is gone

        ledger = try Ledger(path: ledger.path)
        defer { ledger.close() }
        let seen = try ledger.openBook(day: Self.day, passesSince: Self.monday).latest["social"]
        #expect(seen?.lastSeen == Self.t0 + .seconds(10))
        #expect(ledger.usedToday(day: Self.day) == ["social": 20_000])
        #expect(try rows(ledger, "opens") == 1)

        // Seen alone, with nothing charged, still commits.
        ledger.seeOpen(id: open.id, at: Self.t0 + .seconds(30))
        try ledger.flushPending()
        ledger.close()
        ledger = try Ledger(path: ledger.path)
        #expect(try ledger.openBook(day: Self.day, passesSince: Self.monday).latest["social"]?.lastSeen == Self.t0 + .seconds(30))
        #expect(try LedgerIntegrity.inspect(path: ledger.path).isClean)
    }

    @Test func aStartEndsThePausesAStoppedBlockerdLeft() throws {
        let temp = try TemporaryDirectory(create: false)
        var ledger = try Ledger.open(stateDirectory: temp.path)
        let social = try ledger.addOpen(group: "social", day: Self.day, at: Self.t0, outcome: .pausing, paused: true)
        let games = try ledger.addOpen(group: "games", day: Self.day, at: Self.t0 + .seconds(1), outcome: .pausing, paused: true)
        let video = try ledger.addOpen(group: "video", day: Self.day, at: Self.t0 + .seconds(2), outcome: .opened, paused: false)
        ledger.close()   // killed during both pauses

        ledger = try Ledger(path: ledger.path)
        defer { ledger.close() }
        #expect(try ledger.interruptPausing() == 2)
        let latest = try ledger.openBook(day: Self.day, passesSince: Self.monday).latest
        #expect(latest["social"]?.outcome == .interrupted && latest["games"]?.outcome == .interrupted)
        #expect(latest["video"] == video)
        #expect(try ledger.interruptPausing() == 0)
        // The user's answer, arriving late, is refused: the pause is over.
        let late = #expect(throws: StoreError.self) { try ledger.answerOpen(id: games.id, outcome: .opened, reason: nil, at: Self.t0) }
        #expect(late?.reason == .notPausing(found: .interrupted))
        #expect(social.id != games.id)
    }

    @Test func passesAreCommittedAtOnceAndTheBookHasThoseSinceTheWeeksStart() throws {
        let temp = try TemporaryDirectory(create: false)
        let ledger = try Ledger.open(stateDirectory: temp.path)
        defer { ledger.close() }
        let lastWeek = try ledger.addPass(group: "Social", day: "2026-11-29", at: Self.monday - .hours(2), until: Self.monday - .hours(1))
        #expect(lastWeek == PassRecord(id: lastWeek.id, group: "social", at: Self.monday - .hours(2), until: Self.monday - .hours(1)))
        let pass = try ledger.addPass(group: "social", day: Self.day, at: Self.t0, until: Self.t0 + .minutes(15))
        let games = try ledger.addPass(group: "games", day: Self.day, at: Self.t0 + .minutes(1), until: Self.t0 + .minutes(31))
        let reader = try Ledger(path: ledger.path)
        defer { reader.close() }
        let book = try reader.openBook(day: Self.day, passesSince: Self.monday)
        #expect(book.passes == [pass, games])
        #expect(book.runningPass("SOCIAL", at: Self.t0 + .minutes(14)) == pass)
        #expect(book.runningPass("social", at: Self.t0 + .minutes(15)) == nil)
        #expect(try reader.openBook(day: Self.day, passesSince: Self.monday - .days(7)).passes == [lastWeek, pass, games])

        for (group, until) in [("", Self.t0 + .minutes(15)), ("social", Self.t0), ("social", Self.t0 - .seconds(1))] {
            let error = #expect(throws: StoreError.self) {
                _ = try ledger.addPass(group: group, day: Self.day, at: Self.t0, until: until)
            }
            #expect(error?.reason == .invalidArgument)
        }
        #expect(try rows(ledger, "passes") == 3)
    }

    /// An open or a pass is written after the spending pending before it.
    @Test func theSpendingPendingBeforeAnOpenIsCommittedWithIt() throws {
        let temp = try TemporaryDirectory(create: false)
        let ledger = try Ledger.open(stateDirectory: temp.path)
        defer { ledger.close() }
        _ = try ledger.earn(exercise: "pushups", reps: 10, perRep: 30_000, at: 0, day: Self.day)
        ledger.pend(TickRecord(debit: 4_000, spentDay: Self.day,
                               usage: [UsageEntry(day: Self.day, group: "video", app: "mpv", ms: 4_000)]))
        _ = try ledger.addOpen(group: "social", day: Self.day, at: Self.t0, outcome: .opened, paused: false)
        #expect(!ledger.hasPending)
        #expect(try ledger.audit().spentTotal == 4_000)
        ledger.pend(TickRecord(debit: 1_000, spentDay: Self.day))
        _ = try ledger.addPass(group: "social", day: Self.day, at: Self.t0, until: Self.t0 + .minutes(15))
        #expect(!ledger.hasPending)
        #expect(try ledger.audit().spentTotal == 5_000)
    }
}
