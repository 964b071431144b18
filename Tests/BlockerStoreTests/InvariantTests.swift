import BlockerCore
import Testing
import TestSupport
@testable import BlockerStore

/// A pure model of the ledger, written independently of the implementation.
private struct Model {
    var balance: Milliseconds = 0
    var earned: Milliseconds = 0
    var spent: Milliseconds = 0
    var days: [CivilDate: DaySummary] = [:]
    var blocks: [String: WallInstant] = [:]
    var lastAsked: WallInstant?

    mutating func touch(_ day: CivilDate) { if days[day] == nil { days[day] = DaySummary(day: day) } }

    mutating func earn(_ ms: Milliseconds, day: CivilDate) {
        balance += ms
        earned += ms
        touch(day)
        days[day]!.earnedMs += ms
    }

    /// Returns the debit the ledger must report.
    mutating func record(debit: Milliseconds, day: CivilDate?, usage: [UsageEntry]) -> Milliseconds {
        let taken = min(max(debit, 0), balance)
        balance -= taken
        spent += taken
        if taken > 0, let day {
            touch(day)
            days[day]!.spentMs += taken
        }
        for entry in usage where entry.ms > 0 {
            touch(entry.day)
            days[entry.day]!.usedByGroup[entry.group, default: 0] += entry.ms
        }
        return taken
    }

    mutating func block(_ target: String, until: WallInstant) -> WallInstant {
        if let lastAsked { blocks = blocks.filter { $0.value > lastAsked } }
        let end = max(blocks[target] ?? until, until)
        blocks[target] = end
        return end
    }

    mutating func unblock(_ target: String) -> Bool {
        guard let end = blocks.removeValue(forKey: target) else { return false }
        return lastAsked.map { end > $0 } ?? true
    }

    mutating func active(at instant: WallInstant) -> [TimedBlock] {
        lastAsked = instant
        return blocks.filter { $0.value > instant }.map { TimedBlock(target: $0.key, until: $0.value) }
            .sorted { $0.target < $1.target }
    }
}

@Suite("Ledger invariant under random operations")
struct InvariantTests {
    static let days: [CivilDate] = ["2024-03-09", "2024-03-10", "2024-03-11", "2024-03-12"]
    static let groups = ["social", "video", "games"]
    static let apps = ["discord", "firefox", "steam", "org.telegram.desktop"]
    static let targets = ["Discord", "discord", "STEAM", "social", "Video"]

    private func check(_ ledger: Ledger, _ model: Model, _ context: String) throws {
        #expect(ledger.balance == model.balance, "\(context)")
        #expect(!ledger.hasPending, "\(context)")
        let audit = try ledger.audit()
        #expect(audit.isConsistent, "\(context): \(audit)")
        #expect(audit.balance == audit.earnedTotal - audit.spentTotal && audit.balance >= 0, "\(context)")
        #expect(audit == LedgerAudit(balance: model.balance, earnedTotal: model.earned, spentTotal: model.spent,
                                     sumOfEarnings: model.earned, sumOfSpentByDay: model.spent), "\(context)")
        for day in Self.days {
            #expect(ledger.usedToday(day: day) == (model.days[day]?.usedByGroup ?? [:]), "\(context) \(day)")
        }
        let expected = model.days.values.sorted { $0.day < $1.day }
        #expect(try ledger.history(fromDay: Self.days.first!, toDay: Self.days.last!) == expected, "\(context)")
    }

    @Test func randomOperationsKeepTheBooksBalanced() throws {
        let temp = try TemporaryDirectory(create: false)
        var rng = SplitMix64(seed: 0xB10C_4E55)
        var model = Model()
        var ledger = try Ledger.open(stateDirectory: temp.path)
        var now: WallInstant = 1_710_000_000_000

        for batch in 0..<10 {
            for step in 0..<300 {
                let context = "batch \(batch) step \(step)"
                now += Milliseconds(ms: Int64.random(in: 0...120_000, using: &rng))
                let day = Self.days.randomElement(using: &rng)!
                switch Int.random(in: 0..<100, using: &rng) {
                case 0..<20:
                    let reps = Int.random(in: 1...40, using: &rng)
                    let perRep = Milliseconds(ms: Int64.random(in: 0...60_000, using: &rng))
                    let result = try ledger.earn(exercise: "pushups", reps: reps, perRep: perRep, at: now, day: day)
                    model.earn(Int64(reps) * perRep, day: day)
                    #expect(result.earned == Int64(reps) * perRep && result.balance == model.balance, "\(context)")
                case 20..<85:
                    // Often more than is left, to exercise the clamp; sometimes negative or undated.
                    let debit = Milliseconds(ms: Int64.random(in: -1_000...400_000, using: &rng))
                    let spentDay: CivilDate? = Int.random(in: 0..<10, using: &rng) == 0 ? nil : day
                    let usage = (0..<Int.random(in: 0...3, using: &rng)).map { _ in
                        UsageEntry(day: Self.days.randomElement(using: &rng)!, group: Self.groups.randomElement(using: &rng)!,
                                   app: Self.apps.randomElement(using: &rng)!, ms: Milliseconds(ms: Int64.random(in: -10...5_000, using: &rng)))
                    }
                    let expected = model.record(debit: debit, day: spentDay, usage: usage)
                    #expect(try ledger.record(TickRecord(debit: debit, spentDay: spentDay, usage: usage)) == expected, "\(context)")
                case 85..<93:
                    let target = Self.targets.randomElement(using: &rng)!
                    let until = now + Milliseconds(ms: Int64.random(in: -600_000...3_600_000, using: &rng))
                    #expect(try ledger.setTimedBlock(target: target, until: until)
                            == model.block(target.lowercased(), until: until), "\(context)")
                case 93..<96:
                    let target = Self.targets.randomElement(using: &rng)!
                    #expect(try ledger.removeTimedBlock(target: target) == model.unblock(target.lowercased()), "\(context)")
                default:
                    #expect(ledger.timedBlocks(activeAt: now) == model.active(at: now), "\(context)")
                }
            }
            try check(ledger, model, "after batch \(batch)")
            if batch % 3 == 2 {
                ledger.close()
                ledger = try Ledger.open(stateDirectory: temp.path)
                try check(ledger, model, "after reopening in batch \(batch)")
            }
        }
        #expect(model.earned > 0 && model.spent > 0)  // the run exercised both sides
        ledger.close()
        let reopened = try Ledger(path: ledger.path)
        defer { reopened.close() }
        try check(reopened, model, "after the final reopen")
        // Blocks survive with their absolute ends; reopening forgets the last instant asked.
        model.lastAsked = nil
        #expect(reopened.timedBlocks(activeAt: now) == model.active(at: now))
    }

    @Test func randomOperationsWithADiskThatFillsUp() throws {
        let temp = try TemporaryDirectory(create: false)
        var rng = SplitMix64(seed: 7)
        var model = Model()
        let ledger = try Ledger.open(stateDirectory: temp.path)
        defer { ledger.close() }
        var failures = 0
        _ = try ledger.earn(exercise: "pushups", reps: 100, perRep: 60_000, at: 0, day: Self.days[0])
        model.earn(6_000_000, day: Self.days[0])

        for step in 0..<1_500 {
            if step % 100 == 0 { try limitPages(ledger) }      // full from here on…
            if step % 100 == 60 { try limitPages(ledger, to: 1_000_000) }  // …until here
            let day = Self.days.randomElement(using: &rng)!
            let debit = Milliseconds(ms: Int64.random(in: 0...3_000, using: &rng))
            // Distinct long app names so the usage table keeps needing pages.
            let usage = [UsageEntry(day: day, group: Self.groups.randomElement(using: &rng)!,
                                    app: "app-\(step)-" + String(repeating: "y", count: 100), ms: 1_000)]
            let expected = model.record(debit: debit, day: day, usage: usage)
            do throws(StoreError) {
                #expect(try ledger.record(TickRecord(debit: debit, spentDay: day, usage: usage)) == expected)
            } catch {
                #expect(error.isDiskFull, "\(error)")
                failures += 1
            }
            #expect(ledger.balance == model.balance)
        }
        #expect(failures > 100)  // the disk really was full, many times
        try limitPages(ledger, to: 1_000_000)
        try ledger.flushPending()
        try check(ledger, model, "after the disk emptied")
        #expect(try ledger.database.firstRow("SELECT count(*) FROM usage") { $0.int64(0) } == 1_500)
    }
}
