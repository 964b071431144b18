import BlockerCore
import Foundation
import Testing
import TestSupport
@testable import BlockerBus

extension PrivateBus {
    func client() throws -> BlockerClient {
        try BlockerClient.connect(environment: environment)
    }
}

/// The config the tests start from: a command probe reading `front.json`,
/// one metered group and one that is not.
func testConfig(directory: String, earn: String = "pushups = 0.5", warn: String = "[\"1m\"]") -> String {
    commandProbeConfig(frontFile: directory + "/front.json", pollInterval: "200ms", earn: earn, warnBefore: warn)
}

/// A spawned `blockerd` binary with its own config, state dir and command
/// probe, on `bus`. Killed by pid when released.
final class Blockerd {
    let bus: PrivateBus
    let scratch: TemporaryDirectory
    let process = Process()
    var configPath: String { scratch.path + "/blocker.toml" }
    var stateDirectory: String { scratch.path + "/state" }
    var stderrPath: String { scratch.path + "/stderr.log" }

    /// Prepares the default `testConfig` and `front` in front; `launch` starts it.
    init(on bus: PrivateBus, front: String? = "notes") throws {
        self.bus = bus
        scratch = try TemporaryDirectory()
        try writeConfig(testConfig(directory: scratch.path))
        setFront(front)
    }

    deinit { stop() }

    /// Kills blockerd by its pid, if it was started and still runs (idempotent).
    func stop() {
        guard process.processIdentifier != 0 else { return }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    func writeConfig(_ text: String) throws {
        try scratch.write("blocker.toml", text)
    }

    /// Starts the binary; `wrapper` goes before it on the command line (say, unshare).
    func launch(stateDirectory: String? = nil, wrapper: [String] = []) throws {
        let argv = wrapper + [builtProgram("blockerd"), "--config", configPath,
                              "--state-dir", stateDirectory ?? self.stateDirectory]
        process.executableURL = URL(fileURLWithPath: argv[0])
        process.arguments = Array(argv.dropFirst())
        process.environment = bus.environment.merging(
            ["TZ": "UTC", "HOME": scratch.path, "PATH": "/usr/sbin:/usr/bin:/sbin:/bin"]) { a, _ in a }
        _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
        process.standardError = FileHandle(forWritingAtPath: stderrPath)
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
    }

    var pid: Int32 { process.processIdentifier }

    /// What the command probe reports from now on (nil: nothing in front).
    func setFront(_ app: String?, locked: Bool = false) {
        try! scratch.writeFront(app, locked: locked)
    }

    /// Waits until blockerd owns its name and answers Status.
    func waitUntilAnswering(_ client: BlockerClient, seconds: Double = 10) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            guard process.isRunning else { throw TestFailure("blockerd exited \(process.terminationStatus): \(log)") }
            if client.daemonPID() == pid, (try? client.status()) != nil { return }
            usleep(20_000)
        }
        throw TestFailure("blockerd did not answer within \(seconds) s: \(log)")
    }

    /// Waits for the process to exit and returns its status.
    func waitForExit(seconds: Double = 10) throws -> Int32 {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning {
            guard Date() < deadline else { throw TestFailure("blockerd did not exit within \(seconds) s") }
            usleep(10_000)
        }
        return process.terminationStatus
    }

    var log: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }
}

/// A bus, blockerd on it and a connected client. Tests say `defer { session.stop() }`
/// so both processes live to the end of the test and are stopped on every path.
final class Session {
    let bus: PrivateBus
    let daemon: Blockerd
    let client: BlockerClient

    init(bus: PrivateBus, daemon: Blockerd, client: BlockerClient) {
        self.bus = bus; self.daemon = daemon; self.client = client
    }

    func stop() {
        daemon.stop()
        bus.stop()
    }
}

/// A fresh bus, blockerd on it (after `prepare` adjusted its files), and a connected client.
func startBlockerd(front: String? = "notes", prepare: (Blockerd) throws -> Void = { _ in }) throws -> Session {
    let bus = try PrivateBus()
    let daemon = try Blockerd(on: bus, front: front)
    try prepare(daemon)
    try daemon.launch()
    let client = try bus.client()
    try daemon.waitUntilAnswering(client)
    return Session(bus: bus, daemon: daemon, client: client)
}

/// `busctl --address=… call io.github.blockerd.Blocker1 /io/github/blockerd/Blocker1 io.github.blockerd.Blocker1 MEMBER ARGS…`
func busctlCall(_ bus: PrivateBus, _ member: String, _ arguments: String..., asUser user: String? = nil,
                debug: Bool = false) throws -> Finished {
    var argv = ["/usr/bin/busctl", "--address=\(bus.address)", "--", "call",
                BusNames.service, BusNames.objectPath, BusNames.interface, member] + arguments
    if let user { argv = ["/usr/sbin/runuser", "-u", user, "--"] + argv }
    var environment = ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin"]
    if debug { environment["SYSTEMD_LOG_LEVEL"] = "debug" }
    return try run(argv, environment: environment)
}

/// Dispatches `client`'s signals until `done()` or `seconds` pass; returns whether `done()` held.
@discardableResult
func pump(_ client: BlockerClient, seconds: Double, until done: () -> Bool = { false }) throws -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        try client.waitAndDispatch(microseconds: 50_000)
        if done() { return true }
    }
    return done()
}

/// `balance_ms` via the client.
func balance(_ client: BlockerClient) throws -> Milliseconds {
    try client.status().balanceMs
}
