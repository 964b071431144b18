import Foundation
import Glibc
import BlockerCore
import Testing
import TestSupport

/// The built `blockerctl` executable, run as a subprocess.
@Suite struct BinaryTests {
    static let binary = builtProgram("blockerctl")

    /// An environment with no session bus to find: a real bus client fails
    /// the same way the stand-in factory does.
    static let noBus = ["HOME": "/nonexistent-home", "PATH": "/usr/bin:/bin", "TZ": "UTC",
                        "DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/bus", "XDG_RUNTIME_DIR": "/nonexistent"]

    func run(_ arguments: [String], environment: [String: String] = BinaryTests.noBus) throws -> Finished {
        try TestSupport.run([Self.binary] + arguments, environment: environment)
    }

    /// Runs blockerctl with `entries` as its envp exactly (names may repeat,
    /// which a dictionary cannot say).
    func run(_ arguments: [String], environmentEntries entries: [String]) throws -> Finished {
        try TestSupport.run([Self.binary] + arguments, environmentEntries: entries)
    }

    @Test func aVariableSetTwiceTakesItsFirstValueLikeGetenv() throws {
        let result = try run(["config", "check"], environmentEntries: [
            // XDG_CONFIG_DIRS too: an installed package's /etc/xdg/blocker must not answer.
            "XDG_CONFIG_HOME=/nonexistent-first", "HOME=/nonexistent-home", "TZ=UTC",
            "XDG_CONFIG_DIRS=/nonexistent-dirs", "XDG_CONFIG_HOME=/nonexistent-second",
        ])
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("blockerctl: error: /nonexistent-first/blocker/blocker.toml: cannot read the config"))
    }

    @Test func helpListsEveryCommand() throws {
        let result = try run(["--help"])
        #expect(result.status == 0 && result.stderr.isEmpty)
        for name in ["status", "earn", "block", "unblock", "history", "report", "probe", "config check", "reload", "logs", "doctor"] {
            #expect(result.stdout.contains("\n  \(name) "), "\(name) listed")
        }
        let earn = try run(["earn", "--help"])
        #expect(earn.status == 0 && earn.stdout.hasPrefix("usage: blockerctl earn REPS [EXERCISE] [--request-id ID]\n"))
    }

    @Test func version() throws {
        let result = try run(["--version"])
        #expect(result.status == 0 && result.stdout == "blockerctl \(BlockerVersion.current)\n")
    }

    @Test func aUsageErrorExitsTwo() throws {
        let result = try run(["earn", "1000000000"])
        #expect(result.status == 2 && result.stdout.isEmpty)
        #expect(result.stderr == "blockerctl: error: REPS must be a whole number from 1 to 1000, not \"1000000000\"\nusage: blockerctl earn REPS [EXERCISE] [--request-id ID]\nsee blockerctl earn --help\n")
        let unknown = try run(["stauts"])
        #expect(unknown.status == 2 && unknown.stderr.contains("did you mean \"status\"?"))
    }

    @Test func configCheck() throws {
        let directory = try TemporaryDirectory()
        let good = try directory.write("good.toml", "[earn]\npushups = 1\n")
        let bad = try directory.write("bad.toml", "[earn]\npushups = \n")
        let ok = try run(["config", "check", good])
        #expect(ok.status == 0 && ok.stdout == "\(good): ok (0 groups, 1 exercise)\n")
        let refused = try run(["config", "check", bad])
        #expect(refused.status == 1 && refused.stdout.isEmpty)
        #expect(refused.stderr.hasPrefix("blockerctl: error: \(bad):2:"))
    }

    @Test func statusWithoutABusExplainsAndExitsOne() throws {
        let result = try run(["status"])
        #expect(result.status == 1 && result.stdout.isEmpty)
        // No bus at all: the client's own message names the bus and the fix.
        #expect(result.stderr.hasPrefix("blockerctl: error: cannot connect to the session bus at unix:path=/nonexistent/bus"))
        #expect(result.stderr.hasSuffix("start it with: systemctl --user start blockerd\n"))
        let json = try run(["status", "--json"])
        #expect(json.status == 1 && json.stdout.isEmpty)
    }

    @Test func logsReplacesItselfWithJournalctl_standInJournalctlOnPATH() throws {
        // A stand-in journalctl (the real one has no journal here) that prints its argv.
        let directory = try TemporaryDirectory()
        try directory.write("journalctl", "#!/bin/sh\necho \"pid $$\"\nprintf '%s\\n' \"$@\"\n", mode: 0o755)
        var environment = Self.noBus
        environment["PATH"] = directory.path + ":/usr/bin:/bin"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = ["logs", "-f"]
        process.environment = environment
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        var lines = text.split(separator: "\n").map(String.init)
        // execvp: the script runs in blockerctl's own process.
        #expect(lines.removeFirst() == "pid \(process.processIdentifier)")
        #expect(lines == ["--user", "-u", "blockerd.service", "-o", "short-iso", "-f", "--no-pager"])
    }

    @Test func probeWatchPrintsOneLinePerChangeUntilInterrupted() throws {
        let directory = try TemporaryDirectory()
        let config = try probeConfig(in: directory, pollInterval: "200ms")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = ["probe", "--watch", "--config", config]
        process.environment = Self.noBus
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        // Never leave it behind, whatever fails below.
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() } }
        let reader = LineReader(descriptor: out.fileHandleForReading.fileDescriptor)

        let first = try #require(reader.next(timeoutMs: 5000))
        #expect(first.hasSuffix("  nothing in front"))
        try directory.write("front.json", "{\"app\":\"firefox\",\"title\":\"News\",\"pid\":9}")
        let second = try #require(reader.next(timeoutMs: 5000))
        #expect(second.hasSuffix("  firefox  \"News\"  pid 9  [video, browsers]"))
        // Time of day first: HH:MM:SS.
        #expect(second.prefix(8).filter { $0 == ":" }.count == 2)
        // The same answer again is not a change.
        #expect(reader.next(timeoutMs: 700) == nil)
        try directory.write("front.json", "{\"app\":\"firefox\",\"title\":\"News\",\"pid\":9,\"locked\":true}")
        #expect(try #require(reader.next(timeoutMs: 5000)).hasSuffix("  [locked] firefox  \"News\"  pid 9  [video, browsers]"))

        kill(process.processIdentifier, SIGINT)
        for _ in 0..<100 where process.isRunning { usleep(50_000) }
        try #require(!process.isRunning, "Ctrl-C ends the watch")
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
    }
}

/// Lines from a pipe, each within a deadline.
final class LineReader {
    let descriptor: Int32
    private var buffer: [UInt8] = []

    init(descriptor: Int32) { self.descriptor = descriptor }

    func next(timeoutMs: Int32) -> String? {
        var waited: Int32 = 0
        while true {
            if let newline = buffer.firstIndex(of: 10) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            guard waited < timeoutMs else { return nil }
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, 50) >= 0 else { return nil }
            waited += 50
            if entry.revents != 0 {
                var chunk = [UInt8](repeating: 0, count: 4096)
                let count = read(descriptor, &chunk, chunk.count)
                if count <= 0 { return nil }
                buffer += chunk[..<count]
            }
        }
    }
}
