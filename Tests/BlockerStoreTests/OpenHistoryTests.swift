import BlockerCore
import Testing
import TestSupport
@testable import BlockerStore

/// The history of opens and passes, and what a year of rows costs it.
@Suite("The history of opens and passes")
struct OpenHistoryTests {
    static let t0: WallInstant = 1_795_996_800_000   // Mon 2026-11-30 00:00 UTC

    @Test func eachDayAndGroupCountsItsOpensPausesAndPassesWithItsReasonsOldestFirst() throws {
        let temp = try TemporaryDirectory(create: false)
        let ledger = try Ledger.open(stateDirectory: temp.path)
        defer { ledger.close() }
        let (monday, tuesday, wednesday): (CivilDate, CivilDate, CivilDate) = ("2026-11-30", "2026-12-01", "2026-12-02")
        let tue = Self.t0 + .days(1)

        _ = try ledger.addOpen(group: "social", day: monday, at: Self.t0 + .hours(9), outcome: .opened, paused: false)
        let notNow = try ledger.addOpen(group: "social", day: monday, at: Self.t0 + .hours(10), outcome: .pausing, paused: true)
        try ledger.answerOpen(id: notNow.id, outcome: .notNow, reason: "just checking", at: Self.t0 + .hours(10) + .seconds(12))
        let left = try ledger.addOpen(group: "social", day: monday, at: Self.t0 + .hours(11), outcome: .pausing, paused: true)
        try ledger.endPausing(id: left.id, outcome: .left, at: Self.t0 + .hours(11) + .seconds(3))
        _ = try ledger.addOpen(group: "games", day: monday, at: Self.t0 + .hours(12), outcome: .capped, paused: false)
        _ = try ledger.addPass(group: "social", day: monday, at: Self.t0 + .hours(13), until: Self.t0 + .hours(13) + .minutes(15))

        // Answered in the other order than they opened: the reasons go by when they opened.
        let first = try ledger.addOpen(group: "Social", day: tuesday, at: tue + .hours(8), outcome: .pausing, paused: true)
        let second = try ledger.addOpen(group: "social", day: tuesday, at: tue + .hours(9), outcome: .pausing, paused: true)
        try ledger.answerOpen(id: second.id, outcome: .opened, reason: "a message from work", at: tue + .hours(9) + .seconds(20))
        try ledger.answerOpen(id: first.id, outcome: .opened, reason: "the group chat", at: tue + .hours(9) + .seconds(30))
        _ = try ledger.addPass(group: "video", day: tuesday, at: tue + .hours(20), until: tue + .hours(21))
        _ = try ledger.addOpen(group: "social", day: wednesday, at: Self.t0 + .days(2), outcome: .opened, paused: false)
        _ = try ledger.addPass(group: "social", day: wednesday, at: Self.t0 + .days(2), until: Self.t0 + .days(2) + .hours(1))

        #expect(try ledger.opensHistory(fromDay: monday, toDay: tuesday) == [
            OpenDaySummary(day: monday, group: "games", opens: 1, capped: 1),
            OpenDaySummary(day: monday, group: "social", opens: 3, paused: 2, notNow: 1, left: 1, passes: 1,
                           reasons: ["just checking"]),
            OpenDaySummary(day: tuesday, group: "social", opens: 2, paused: 2, reasons: ["the group chat", "a message from work"]),
            OpenDaySummary(day: tuesday, group: "video", passes: 1),
        ])
        #expect(try ledger.opensHistory(fromDay: wednesday, toDay: wednesday)
            == [OpenDaySummary(day: wednesday, group: "social", opens: 1, passes: 1)])
        #expect(try ledger.opensHistory(fromDay: "2026-12-03", toDay: "2026-12-31").isEmpty)
    }

    @Test func aRowWhoseDayIsNotADateIsLeftOut() throws {
        let temp = try TemporaryDirectory(create: false)
        let ledger = try Ledger.open(stateDirectory: temp.path)
        defer { ledger.close() }
        _ = try ledger.addOpen(group: "social", day: "2026-11-30", at: Self.t0, outcome: .opened, paused: false)
        try sqlite3(ledger.path, "INSERT INTO opens (group_name, day, at_ms, last_seen_ms, outcome, paused) "
                    + "VALUES ('social', '2026-11-3x', 1, 1, 'opened', 0)")
        #expect(try ledger.opensHistory(fromDay: "2026-11-01", toDay: "2026-11-30")
            == [OpenDaySummary(day: "2026-11-30", group: "social", opens: 1)])
        // The book leaves it out too: the group has no newest open, so its next appearance is a new one.
        #expect(try ledger.openBook(day: "2026-11-30", passesSince: Self.t0).latest.isEmpty)
    }

    static let groups = ["social", "video", "games", "news"]

    /// A year of opens (40 a day) and passes, written straight into the file.
    func fillAYear(_ ledger: Ledger) throws {
        try ledger.database.transaction { () throws(SQLiteError) in
            for dayIndex in 0..<365 {
                let day = CivilDate(year: 2025, month: 11, day: 30).adding(days: dayIndex).description
                let start = Self.t0 - .days(365) + .days(Int64(dayIndex))
                for n in 0..<40 {
                    let at = start + .minutes(Int64(n) * 20)
                    try ledger.database.run("""
                        INSERT INTO opens (group_name, day, at_ms, last_seen_ms, outcome, paused, reason) VALUES (?, ?, ?, ?, ?, ?, ?)
                        """, [.text(Self.groups[n % 4]), .text(day), .instant(at), .instant(at + .minutes(5)),
                              .text(n % 5 == 0 ? "not-now" : "opened"), .integer(n % 5 == 0 ? 1 : 0),
                              n % 10 == 0 ? .text("reason \(n)") : .null])
                }
                if dayIndex % 7 == 0 {
                    try ledger.database.run("INSERT INTO passes (group_name, day, at_ms, until_ms) VALUES ('social', ?, ?, ?)",
                                            [.text(day), .instant(start), .instant(start + .minutes(15))])
                }
            }
        }
    }

    func plan(_ ledger: Ledger, _ query: String, _ arguments: [SQLValue]) throws -> String {
        try ledger.database.rows("EXPLAIN QUERY PLAN " + query, arguments) { $0.text(3) }.joined(separator: "; ")
    }

    /// On a year of rows, what a tick, a history and a seal ask of opens
    /// and passes goes through the indexes, not the whole table.
    @Test func aYearOfRowsIsReadThroughTheIndexes() throws {
        let temp = try TemporaryDirectory(create: false)
        let ledger = try Ledger.open(stateDirectory: temp.path)
        defer { ledger.close() }
        try fillAYear(ledger)
        let week: [SQLValue] = [.text("2026-11-23"), .text("2026-11-29")]
        let day: [SQLValue] = [.text("2026-11-29")]
        for (query, arguments, index) in [
            (Ledger.opensHistoryQuery, week, "opens_by_day"), (Ledger.reasonsQuery, week, "opens_by_day"),
            (Ledger.opensOnDayQuery, day, "opens_by_day"), (Ledger.latestOpensQuery, [], "opens_by_group"),
            (Ledger.passesSinceQuery, [.instant(Self.t0 - .days(7))], "passes_by_at"),
            (LedgerSeal.latestQueries[13], [], "opens_by_day"), (LedgerSeal.latestQueries[14], [], "opens_by_group"),
        ] as [(String, [SQLValue], String)] {
            let plan = try plan(ledger, query, arguments)
            #expect(plan.contains(index), "\(query): \(plan)")
            // A whole table read row by row (an index walked from its end for the newest days is not one).
            #expect(plan.split(separator: "; ").allSatisfy { $0 != "SCAN opens" && $0 != "SCAN passes" }, "\(query): \(plan)")
        }

        let history = try ledger.opensHistory(fromDay: "2026-11-23", toDay: "2026-11-29")
        #expect(history.count == 7 * 4)
        #expect(history.allSatisfy { $0.opens == 10 })
        #expect(history.filter { $0.group == "social" }.map(\.passes).reduce(0, +) == 1)
        #expect(history.first { $0.group == "social" }?.reasons == ["reason 0", "reason 20"])
        let book = try ledger.openBook(day: "2026-11-29", passesSince: Self.t0 - .days(7))
        #expect(book.latest.count == 4 && book.latest.values.allSatisfy { $0.day == "2026-11-29" })
        #expect(book.latest["news"]?.at == Self.t0 - .days(1) + .minutes(39 * 20))
        #expect(book.opensToday == ["social": 10, "video": 10, "games": 10, "news": 10])
        #expect(book.passes.count == 1)
    }
}
