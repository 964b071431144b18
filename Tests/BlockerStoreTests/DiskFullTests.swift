import BlockerCore
import Foundation
import Testing
import TestSupport
@testable import BlockerStore

/// A real SQLITE_FULL, from `PRAGMA max_page_count` on the ledger's connection.
@Suite("Disk full")
struct DiskFullTests {
    private func bigTick(_ n: Int, day: CivilDate, debit: Milliseconds) -> TickRecord {
        // Long distinct app names: more rows than fit in the pages the file has.
        TickRecord(debit: debit, spentDay: day, usage: (0..<n).map {
            UsageEntry(day: day, group: "group-\($0 % 3)", app: "app-\($0)-" + String(repeating: "x", count: 200), ms: 10)
        })
    }

    @Test func recordKeepsTheTickAndWritesItOnceLater() throws {
        let temp = try TemporaryDirectory(create: false)
        let ledger = try Ledger.open(stateDirectory: temp.path)
        defer { ledger.close() }
        let day: CivilDate = "2024-06-01"
        _ = try ledger.earn(exercise: "pushups", reps: 10, perRep: 60_000, at: 0, day: day)
        try ledger.record(TickRecord(debit: 1_000, spentDay: day,
                                     usage: [UsageEntry(day: day, group: "social", app: "discord", ms: 1_000)]))

        try limitPages(ledger)
        let error = #expect(throws: StoreError.self) { try ledger.record(bigTick(100, day: day, debit: 2_000)) }
        #expect(error?.isDiskFull == true)
        #expect(error?.sqliteCode == 13)
        #expect(error?.description.contains(ledger.path) == true)
        #expect(error?.description.contains("SQLITE_FULL") == true)
        // Nothing of it reached the file, but memory has it.
        #expect(ledger.hasPending)
        #expect(ledger.balance == (600_000 - 3_000) as Milliseconds)
        #expect(try ledger.audit().spentTotal == 1_000)
        #expect(ledger.usedToday(day: day) == ["social": 1_000, "group-0": 340, "group-1": 330, "group-2": 330])

        // Still full: the next tick is merged with the first and fails too.
        #expect(throws: StoreError.self) { try ledger.record(TickRecord(debit: 500, spentDay: day)) }
        #expect(ledger.balance == (600_000 - 3_500) as Milliseconds)
        #expect(try ledger.audit().spentTotal == 1_000)

        // Space again: one flush writes both ticks, exactly once.
        try limitPages(ledger, to: 1_000_000)
        try ledger.flushPending()
        #expect(!ledger.hasPending)
        try ledger.flushPending()  // nothing left: no second write
        let audit = try ledger.audit()
        #expect(audit == LedgerAudit(balance: 596_500, earnedTotal: 600_000, spentTotal: 3_500,
                                     sumOfEarnings: 600_000, sumOfSpentByDay: 3_500))
        ledger.close()
        let again = try Ledger(path: ledger.path)
        defer { again.close() }
        #expect(again.balance == 596_500)
        #expect(again.usedToday(day: day) == ["social": 1_000, "group-0": 340, "group-1": 330, "group-2": 330])
        #expect(try again.database.firstRow("SELECT count(*) FROM usage") { $0.int64(0) } == 101)
    }

    @Test func failedEarningChangesNothing() throws {
        let temp = try TemporaryDirectory(create: false)
        let ledger = try Ledger.open(stateDirectory: temp.path)
        defer { ledger.close() }
        try limitPages(ledger)
        let name = String(repeating: "burpees ", count: 150)
        var saved: Milliseconds = 0
        var failure: StoreError?
        // Each row is ~1.2 kB: the pages the file has fill up within a few.
        for i in 0..<50 {
            do throws(StoreError) {
                _ = try ledger.earn(exercise: name, reps: 1, perRep: 1_000, at: WallInstant(ms: Int64(i)), day: "2024-06-01")
                saved += 1_000
            } catch {
                failure = error
                break
            }
        }
        #expect(failure?.isDiskFull == true)
        #expect(ledger.balance == saved)
        #expect(try ledger.earnings(limit: 100).count == Int(saved.count(of: 1_000)))
        #expect(try ledger.audit().isConsistent)
        #expect(!ledger.hasPending)  // an earning is never left half-done in memory

        try limitPages(ledger, to: 1_000_000)
        _ = try ledger.earn(exercise: name, reps: 1, perRep: 1_000, at: 99, day: "2024-06-01")
        #expect(ledger.balance == saved + 1_000)
    }
}
