import BlockerCore
import Foundation
import Testing
import TestSupport
@testable import BlockerStore

@Suite("Ledger operations")
struct LedgerTests {
    @Test func earningIsCommittedBeforeEarnReturns() throws {
        let temp = try TemporaryDirectory(create: false)
        let ledger = try Ledger.open(stateDirectory: temp.path)
        defer { ledger.close() }
        let (earned, balance) = try ledger.earn(exercise: "pushups", reps: 20, perRep: 30_000, at: 1_000, day: "2024-05-01")
        #expect(earned == 600_000 && balance == 600_000)
        // A second connection sees it at once, while the first stays open.
        let reader = try Ledger(path: ledger.path)
        defer { reader.close() }
        #expect(reader.balance == 600_000)
        #expect(try reader.earnings(limit: 5).map(\.ms) == [600_000])
    }

    @Test func invalidEarningChangesNothing() throws {
        let temp = try TemporaryDirectory(create: false)
        let ledger = try Ledger.open(stateDirectory: temp.path)
        defer { ledger.close() }
        for (reps, perRep) in [(0, 1000), (-3, 1000), (5, -1), (Int.max, Milliseconds.max)] as [(Int, Milliseconds)] {
            #expect(throws: StoreError.self) {
                _ = try ledger.earn(exercise: "x", reps: reps, perRep: perRep, at: 0, day: "1970-01-01")
            }
        }
        #expect(ledger.balance == 0)
        #expect(try ledger.earnings(limit: 10).isEmpty)
    }

    @Test func recordClampsAtZero() throws {
        let temp = try TemporaryDirectory(create: false)
        let ledger = try Ledger.open(stateDirectory: temp.path)
        defer { ledger.close() }
        _ = try ledger.earn(exercise: "pushups", reps: 1, perRep: 1_500, at: 0, day: "2024-05-01")
        #expect(try ledger.record(TickRecord(debit: 1_000, spentDay: "2024-05-01")) == 1_000)
        #expect(try ledger.record(TickRecord(debit: 1_000, spentDay: "2024-05-01")) == 500)
        #expect(try ledger.record(TickRecord(debit: 1_000, spentDay: "2024-05-01")) == 0)
        #expect(try ledger.record(TickRecord(debit: -50, spentDay: "2024-05-01")) == 0)
        #expect(ledger.balance == 0)
        #expect(try ledger.audit() == LedgerAudit(balance: 0, earnedTotal: 1_500, spentTotal: 1_500,
                                                  sumOfEarnings: 1_500, sumOfSpentByDay: 1_500))
    }

    @Test func usageAccumulatesPerDayGroupAndApp() throws {
        let temp = try TemporaryDirectory(create: false)
        let ledger = try Ledger.open(stateDirectory: temp.path)
        defer { ledger.close() }
        let day: CivilDate = "2024-05-01", next: CivilDate = "2024-05-02"
        #expect(ledger.usedToday(day: day).isEmpty)  // caches the (empty) day, then must follow writes
        for _ in 0..<5 {
            try ledger.record(TickRecord(usage: [
                UsageEntry(day: day, group: "social", app: "discord", ms: 1_000),
                UsageEntry(day: day, group: "social", app: "telegram", ms: 500),
                UsageEntry(day: day, group: "video", app: "firefox", ms: 250),
            ]))
        }
        try ledger.record(TickRecord(usage: [UsageEntry(day: next, group: "social", app: "discord", ms: 40)]))
        #expect(ledger.usedToday(day: day) == ["social": 7_500, "video": 1_250])
        #expect(ledger.usedToday(day: next) == ["social": 40])  // no leak across midnight
        #expect(ledger.usedToday(day: "2024-05-03").isEmpty)
        let rows = try ledger.database.rows("SELECT day, group_name, app, ms FROM usage ORDER BY 1, 2, 3") {
            "\($0.text(0)) \($0.text(1)) \($0.text(2)) \($0.int64(3))"
        }
        #expect(rows == ["2024-05-01 social discord 5000", "2024-05-01 social telegram 2500",
                         "2024-05-01 video firefox 1250", "2024-05-02 social discord 40"])
        // Fresh from disk, too.
        ledger.close()
        let again = try Ledger(path: ledger.path)
        defer { again.close() }
        #expect(again.usedToday(day: day) == ["social": 7_500, "video": 1_250])
        #expect(again.usedToday(day: next) == ["social": 40])
    }

    @Test func historySummarizesDays() throws {
        let temp = try TemporaryDirectory(create: false)
        let ledger = try Ledger.open(stateDirectory: temp.path)
        defer { ledger.close() }
        _ = try ledger.earn(exercise: "pushups", reps: 10, perRep: 6_000, at: 0, day: "2024-05-01")
        _ = try ledger.earn(exercise: "squats", reps: 5, perRep: 6_000, at: 0, day: "2024-05-03")
        try ledger.record(TickRecord(debit: 20_000, spentDay: "2024-05-01",
                                     usage: [UsageEntry(day: "2024-05-01", group: "social", app: "discord", ms: 20_000),
                                             UsageEntry(day: "2024-05-01", group: "work", app: "code", ms: 9_000)]))
        try ledger.record(TickRecord(debit: 5_000, spentDay: "2024-05-03",
                                     usage: [UsageEntry(day: "2024-05-03", group: "social", app: "telegram", ms: 5_000)]))
        try ledger.record(TickRecord(debit: 1_000, spentDay: nil))  // counts in the totals, in no day
        try ledger.record(TickRecord(usage: [UsageEntry(day: "2024-04-30", group: "social", app: "discord", ms: 7)]))

        #expect(try ledger.history(fromDay: "2024-05-01", toDay: "2024-05-03") == [
            DaySummary(day: "2024-05-01", earnedMs: 60_000, spentMs: 20_000, usedByGroup: ["social": 20_000, "work": 9_000]),
            DaySummary(day: "2024-05-03", earnedMs: 30_000, spentMs: 5_000, usedByGroup: ["social": 5_000]),
        ])
        #expect(try ledger.history(fromDay: "2024-05-02", toDay: "2024-05-02") == [])
        #expect(try ledger.history(fromDay: "2024-04-30", toDay: "2024-04-30") ==
                [DaySummary(day: "2024-04-30", usedByGroup: ["social": 7])])
        let audit = try ledger.audit()
        #expect(audit.spentTotal == 26_000 && audit.isConsistent)
        #expect(ledger.balance == 64_000)
    }

    @Test func aDayWrittenByHandThatIsNoDateIsLeftOutOfHistory() throws {
        let temp = try TemporaryDirectory(create: false)
        let ledger = try Ledger.open(stateDirectory: temp.path)
        defer { ledger.close() }
        try ledger.record(TickRecord(usage: [UsageEntry(day: "2024-05-02", group: "social", app: "discord", ms: 7)]))
        // Between the two days as text, but not a date.
        try ledger.database.run("INSERT INTO usage (day, group_name, app, ms) VALUES ('2024-05-01 ', 'social', 'x', 5)")
        #expect(try ledger.history(fromDay: "2024-05-01", toDay: "2024-05-03") ==
                [DaySummary(day: "2024-05-02", usedByGroup: ["social": 7])])
    }

    @Test func earningsAreNewestFirstAndLimited() throws {
        let temp = try TemporaryDirectory(create: false)
        let ledger = try Ledger.open(stateDirectory: temp.path)
        defer { ledger.close() }
        for reps in 1...4 {
            _ = try ledger.earn(exercise: "e\(reps)", reps: reps, perRep: 100, at: WallInstant(ms: Int64(reps) * 1_000), day: "2024-05-01")
        }
        let last = try ledger.earnings(limit: 2)
        #expect(last.map(\.exercise) == ["e4", "e3"])
        #expect(last.map(\.at) == [4_000, 3_000])
        #expect(last.map(\.reps) == [4, 3])
        #expect(last.map(\.ms) == [400, 300])
    }
}

@Suite("Timed blocks")
struct TimedBlockTests {
    let t0: WallInstant = 1_700_000_000_000

    @Test func setExtendsButNeverShortens() throws {
        let temp = try TemporaryDirectory(create: false)
        let ledger = try Ledger.open(stateDirectory: temp.path)
        defer { ledger.close() }
        #expect(try ledger.setTimedBlock(target: "Discord", until: t0 + 3_600_000) == t0 + 3_600_000)
        #expect(try ledger.setTimedBlock(target: "discord", until: t0 + 300_000) == t0 + 3_600_000)  // shorter: ignored
        #expect(try ledger.setTimedBlock(target: "DISCORD", until: t0 + 7_200_000) == t0 + 7_200_000)  // longer: wins
        #expect(ledger.timedBlocks(activeAt: t0) == [TimedBlock(target: "discord", until: t0 + 7_200_000)])
        let stored = try ledger.database.rows("SELECT target, until_ms FROM timed_blocks") { "\($0.text(0)) \($0.int64(1))" }
        #expect(stored == ["discord \((t0 + 7_200_000).ms)"])
    }

    @Test func expiryIsByInstant() throws {
        let temp = try TemporaryDirectory(create: false)
        let ledger = try Ledger.open(stateDirectory: temp.path)
        defer { ledger.close() }
        _ = try ledger.setTimedBlock(target: "steam", until: t0 + 300_000)  // a 5-minute block
        _ = try ledger.setTimedBlock(target: "social", until: t0 + 600_000)
        #expect(ledger.timedBlocks(activeAt: t0 + 299_999).map(\.target) == ["social", "steam"])
        #expect(ledger.timedBlocks(activeAt: t0 + 300_000).map(\.target) == ["social"])  // ends exactly then
        #expect(ledger.timedBlocks(activeAt: t0 + 600_000).isEmpty)
        // After the block ran out, a new shorter block is not held up by the old end.
        #expect(try ledger.setTimedBlock(target: "steam", until: t0 + 900_000) == t0 + 900_000)
        // The expired "social" was pruned on that write.
        let stored = try ledger.database.rows("SELECT target FROM timed_blocks") { $0.text(0) }
        #expect(stored == ["steam"])
    }

    @Test func removeClearsOnlyThatTarget() throws {
        let temp = try TemporaryDirectory(create: false)
        let ledger = try Ledger.open(stateDirectory: temp.path)
        defer { ledger.close() }
        _ = try ledger.setTimedBlock(target: "steam", until: t0 + 300_000)
        _ = try ledger.setTimedBlock(target: "social", until: t0 + 300_000)
        #expect(try ledger.removeTimedBlock(target: "STEAM") == true)
        #expect(try ledger.removeTimedBlock(target: "steam") == false)
        #expect(try ledger.removeTimedBlock(target: "never-blocked") == false)
        #expect(ledger.timedBlocks(activeAt: t0) == [TimedBlock(target: "social", until: t0 + 300_000)])
        // A block that already ran out is not reported as removed.
        _ = ledger.timedBlocks(activeAt: t0 + 400_000)
        #expect(try ledger.removeTimedBlock(target: "social") == false)
        ledger.close()
        let again = try Ledger(path: ledger.path)
        defer { again.close() }
        #expect(again.timedBlocks(activeAt: t0).isEmpty)
    }

    @Test func emptyTargetIsRefused() throws {
        let temp = try TemporaryDirectory(create: false)
        let ledger = try Ledger.open(stateDirectory: temp.path)
        defer { ledger.close() }
        let error = #expect(throws: StoreError.self) { _ = try ledger.setTimedBlock(target: "", until: t0) }
        #expect(error?.reason == .invalidArgument)
    }
}
