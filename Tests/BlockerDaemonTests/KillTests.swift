import Foundation
import Testing
import TestSupport
import BlockerCore
import BlockerStore
@testable import BlockerDaemon

/// The real `blockerd` binary, killed with SIGKILL while a metered app is in front.
@Suite struct KillTests {
    static let binary = builtProgram("blockerd")

    func balance(_ box: Sandbox) throws -> Milliseconds {
        let ledger = try Ledger.open(stateDirectory: box.stateDirectory)
        defer { ledger.close() }
        return ledger.balance
    }

    func spawn(_ box: Sandbox) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = ["--config", box.configPath, "--state-dir", box.stateDirectory]
        process.environment = ["TZ": "UTC", "HOME": box.root, "PATH": "/usr/bin:/bin"]
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    func seed(_ box: Sandbox, balance reps: Int) throws {
        let ledger = try Ledger.open(stateDirectory: box.stateDirectory)
        _ = try ledger.earn(exercise: "pushups", reps: reps, perRep: 30_000, at: 0, day: "2026-11-30")
        ledger.close()
    }

    @Test func killMinus9LosesAtMostOneBatchOfDebitAndNoEarning() throws {
        #expect(FileManager.default.isExecutableFile(atPath: Self.binary), "build blockerd first: swift build")
        let box = try Sandbox(pollInterval: "1s")
        try seed(box, balance: 10)                                           // 300 s
        box.front("discord")
        let started = Date()
        let daemon = try spawn(box)
        defer { if daemon.isRunning { kill(daemon.processIdentifier, SIGKILL) } }

        // Batched: after 4 s of metering nothing is written yet.
        Thread.sleep(forTimeInterval: 4)
        #expect(try balance(box) == 300_000, "a transaction before the 10 s batch was due")
        Thread.sleep(forTimeInterval: 9.5)
        let killedAt = Date()
        kill(daemon.processIdentifier, SIGKILL)
        daemon.waitUntilExit()

        let spent = 300_000 - (try balance(box))
        let alive = Milliseconds(ms: Int64(killedAt.timeIntervalSince(started) * 1000))
        // Never more than it ran; never less than what it ran minus one batch
        // (10 s), the first sample (which charges nothing) and a poll of slack.
        #expect(spent <= alive, "debited \(spent) ms in \(alive) ms")
        #expect(spent >= alive - Daemon.commitEveryMs - 2000, "lost more than one batch: \(spent) ms of \(alive) ms")

        // A restart starts afresh: the time it was dead is not charged, the earning is intact.
        let restarted = try spawn(box)
        defer { if restarted.isRunning { kill(restarted.processIdentifier, SIGKILL) } }
        Thread.sleep(forTimeInterval: 0.5)
        restarted.terminate()                                             // SIGTERM: flush and exit 0
        restarted.waitUntilExit()
        #expect(restarted.terminationStatus == 0)
        let after = try balance(box)
        #expect(300_000 - after - spent <= 1000)
        let ledger = try Ledger.open(stateDirectory: box.stateDirectory)
        defer { ledger.close() }
        #expect(try ledger.earnings(limit: 10).count == 1)
    }

    @Test func theShieldGoingUpCommitsAtOnce() throws {
        let box = try Sandbox(pollInterval: "1s")
        try seed(box, balance: 0 + 1)                                        // 30 s
        let ledger = try Ledger.open(stateDirectory: box.stateDirectory)
        _ = try ledger.record(TickRecord(debit: 27_000, spentDay: "2026-11-30", usage: []))   // 3 s left
        ledger.close()
        box.front("discord")
        let daemon = try spawn(box)
        defer { if daemon.isRunning { kill(daemon.processIdentifier, SIGKILL) } }
        // The balance runs out ~4 s in (the first sample charges nothing); the
        // shield's transaction is not left for the 10 s batch.
        try waitUntil("the ledger to reach 0 at the shield", timeout: 8) { try balance(box) == 0 }
        kill(daemon.processIdentifier, SIGKILL)
        daemon.waitUntilExit()
    }
}

/// Signals a user might send by mistake do not kill blockerd silently.
@Suite struct StraySignalTests {
    @Test func usr1Usr2AndAlrmAreSaidOnceAndIgnored() throws {
        let box = try Sandbox(pollInterval: "200ms")
        let errors = Pipe()
        let daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: KillTests.binary)
        daemon.arguments = ["--config", box.configPath, "--state-dir", box.stateDirectory]
        daemon.environment = ["TZ": "UTC", "HOME": box.root, "PATH": "/usr/bin:/bin"]
        daemon.standardError = errors
        try daemon.run()
        defer { if daemon.isRunning { kill(daemon.processIdentifier, SIGKILL) } }
        Thread.sleep(forTimeInterval: 0.5)
        for signal in [SIGUSR1, SIGUSR2, SIGALRM, SIGUSR1, SIGPIPE] {
            kill(daemon.processIdentifier, signal)
            Thread.sleep(forTimeInterval: 0.1)
        }
        #expect(daemon.isRunning, "a stray signal killed blockerd")
        daemon.terminate()
        daemon.waitUntilExit()
        #expect(daemon.terminationReason == .exit && daemon.terminationStatus == 0)
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(text.components(separatedBy: "Ignoring SIGUSR1").count == 2, "\(text)")
        #expect(text.contains("Ignoring SIGUSR2") && text.contains("Ignoring SIGALRM"))
        #expect(text.contains("blockerd stopping"))
    }
}
