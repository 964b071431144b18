import Foundation
import Testing
import TestSupport
import BlockerCore
import BlockerStore

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

    @Test func killMinus9LosesAtMostOnePollIntervalAndNoEarning() throws {
        #expect(FileManager.default.isExecutableFile(atPath: Self.binary), "build blockerd first: swift build")
        let box = try Sandbox(pollInterval: "1s")
        do {
            let ledger = try Ledger.open(stateDirectory: box.stateDirectory)
            _ = try ledger.earn(exercise: "pushups", reps: 10, perRep: 30_000, atMs: 0, day: "2026-11-30")
            ledger.close()
        }
        box.front("discord")
        let daemon = try spawn(box)
        defer { if daemon.isRunning { kill(daemon.processIdentifier, SIGKILL) } }

        // Wait for the first debit: from then on the daemon is metering.
        var firstDebit = Date.distantFuture
        for _ in 0..<100 {
            if try balance(box) < 300_000 { firstDebit = Date(); break }
            Thread.sleep(forTimeInterval: 0.02)
        }
        #expect(firstDebit != .distantFuture, "blockerd never debited")
        Thread.sleep(forTimeInterval: 3.3)
        let killedAt = Date()
        kill(daemon.processIdentifier, SIGKILL)
        daemon.waitUntilExit()

        let spent = 300_000 - (try balance(box))
        // Metered from at least one poll before the first debit was seen, until the kill.
        let meteredAtLeast = Int64(killedAt.timeIntervalSince(firstDebit) * 1000) + 1000
        #expect(spent <= meteredAtLeast + 1000, "debited \(spent) ms for at most \(meteredAtLeast) ms of use")
        #expect(spent >= meteredAtLeast - 1000 - 250, "lost more than one poll interval: \(spent) ms for \(meteredAtLeast) ms")

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
