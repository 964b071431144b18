import Foundation
import Testing
@testable import BlockerDaemon
import BlockerCore
import TestSupport

/// `[earn] max-per-day` and `min-gap` against the real ledger: a refused
/// earning credits nothing, and the cap resets at local midnight.
@Suite struct EarnLimitsDaemonTests {
    let pushups = Exercise(name: "pushups", perRep: 30_000)

    func sandbox(_ limits: String) throws -> Sandbox {
        let box = try Sandbox()
        try box.write(commandProbeConfig(frontFile: box.frontPath, earn: "pushups = 0.5\n" + limits), to: box.configPath)
        return box
    }

    @Test func theDailyCapResetsAtLocalMidnightNotUTC() throws {
        let box = try sandbox("max-per-day = \"2m\"")
        let log = MemoryLog()
        let daemon = try Daemon.reopened(options: box.options, log: log, environment: ["TZ": "Europe/Paris", "HOME": box.root])
        // 2026-12-02 23:50 in Paris, 22:50 UTC.
        let lateEvening = WallInstant(ms: 1_796_251_800_000)
        _ = try daemon.earn(exercise: pushups, reps: 4, wall: lateEvening)
        #expect(daemon.ledger.balance == 120_000)
        let failure = #expect(throws: EarnFailure.self) { try daemon.earn(exercise: pushups, reps: 1, wall: lateEvening + 1000) }
        guard case let .refused(refusal, message)? = failure else { Issue.record("not refused: \(String(describing: failure))"); return }
        #expect(refusal == .dailyCap(maxPerDay: 120_000, left: 0, nextDay: lateEvening + 600_000))
        #expect(message.contains("earn again from Thu 2026-12-03 00:00:00"), "\(message)")
        #expect(daemon.ledger.balance == 120_000)
        #expect(try daemon.ledger.earnings(limit: 10).count == 1)
        #expect(log.events(.earnRefused).count == 1)
        // 00:00 in Paris (23:00 UTC, still 2 December there): a new day.
        _ = try daemon.earn(exercise: pushups, reps: 4, wall: lateEvening + 600_000)
        #expect(daemon.ledger.balance == 240_000)
    }

    @Test func minGapCountsFromTheLastEarningEvenAcrossARestart() throws {
        let box = try sandbox("min-gap = \"1m\"")
        var clock = Clock()
        do {
            let daemon = try box.daemon()
            _ = try daemon.earn(exercise: pushups, reps: 1, wall: clock.wall)
        }
        let daemon = try Daemon.reopened(options: box.options, log: MemoryLog(), environment: ["TZ": "UTC", "HOME": box.root])
        clock.advance(59_000)
        let failure = #expect(throws: EarnFailure.self) { try daemon.earn(exercise: pushups, reps: 1, wall: clock.wall) }
        guard case let .refused(refusal, message)? = failure else { Issue.record("not refused"); return }
        #expect(refusal == .tooSoon(minGap: 60_000, possibleAt: clock.wall + 1000))
        #expect(message.hasPrefix("too soon: [earn] min-gap is 1m 00s between earnings; earn again in 1s"), "\(message)")
        #expect(daemon.ledger.balance == 30_000)
        clock.advance(1000)
        _ = try daemon.earn(exercise: pushups, reps: 1, wall: clock.wall)
        #expect(daemon.ledger.balance == 60_000)
    }
}
