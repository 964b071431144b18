import Foundation
import Testing
@testable import BlockerBus

struct FixtureError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A temp directory (0755, so another uid can reach a bus socket inside), removed on deinit.
final class Scratch {
    let path: String

    init() throws {
        var template = Array("/tmp/blocker-bus-test.XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw FixtureError("mkdtemp: \(String(cString: strerror(errno)))") }
        path = String(cString: made)
        chmod(path, 0o755)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    func write(_ text: String, to name: String) throws {
        try text.write(toFile: path + "/" + name, atomically: true, encoding: .utf8)
    }

    func exists(_ name: String) -> Bool { FileManager.default.fileExists(atPath: path + "/" + name) }
}

/// The directory the test bundle was built into: blockerd is built next to it.
let buildProducts: String = {
    let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
    return (exe as NSString).deletingLastPathComponent
}()

/// A real `dbus-daemon` on its own socket, stopped by pid when released.
final class TestBus {
    let scratch: Scratch
    let address: String
    private let process = Process()

    /// `allowOtherUsers`: a config that lets any uid connect (EXTERNAL auth),
    /// for the uid check. Otherwise the stock session config.
    init(allowOtherUsers: Bool = false) throws {
        scratch = try Scratch()
        let socket = scratch.path + "/bus"
        process.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        if allowOtherUsers {
            try scratch.write("""
                <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
                 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
                <busconfig>
                  <type>session</type>
                  <listen>unix:path=\(socket)</listen>
                  <auth>EXTERNAL</auth>
                  <policy context="default">
                    <allow user="*"/>
                    <allow send_destination="*" eavesdrop="true"/>
                    <allow eavesdrop="true"/>
                    <allow own="*"/>
                  </policy>
                </busconfig>
                """, to: "bus.conf")
            process.arguments = ["--config-file=\(scratch.path)/bus.conf", "--nofork", "--print-address=1"]
        } else {
            process.arguments = ["--session", "--nofork", "--print-address=1", "--address=unix:path=\(socket)"]
        }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
        // dbus-daemon prints the address once it listens.
        var text = ""
        while !text.contains("\n") {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        guard let line = text.split(separator: "\n").first, line.hasPrefix("unix:") else {
            process.terminate()
            process.waitUntilExit()
            throw FixtureError("dbus-daemon did not print an address (got \"\(text)\")")
        }
        address = String(line)
    }

    deinit { stop() }

    /// Stops dbus-daemon by its pid (idempotent). SIGKILL: children of the
    /// test runner's threads inherit a mask that blocks SIGTERM.
    func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    var environment: [String: String] { ["DBUS_SESSION_BUS_ADDRESS": address] }

    func client() throws -> BlockerClient {
        try BlockerClient.connect(environment: environment)
    }
}

/// The config the tests start from: a command probe reading `front.json`,
/// one metered group and one that is not.
func testConfig(directory: String, earn: String = "pushups = 0.5", warn: String = "[\"1m\"]") -> String {
    """
    [daemon]
    probe = "command"
    poll-interval = "200ms"
    probe-command = ["/bin/cat", "\(directory)/front.json"]

    [earn]
    \(earn)

    [warn]
    before = \(warn)

    [[group]]
    name = "social"
    apps = ["discord"]

    [[group]]
    name = "tools"
    apps = ["notes"]
    metered = false
    """
}

/// A spawned `blockerd` binary with its own config, state dir and command
/// probe, on `bus`. Killed by pid when released.
final class Blockerd {
    let bus: TestBus
    let scratch: Scratch
    let process = Process()
    var configPath: String { scratch.path + "/blocker.toml" }
    var stateDirectory: String { scratch.path + "/state" }
    var stderrPath: String { scratch.path + "/stderr.log" }

    /// Prepares the default `testConfig` and `front` in front; `launch` starts it.
    init(on bus: TestBus, front: String? = "notes") throws {
        self.bus = bus
        scratch = try Scratch()
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
        try scratch.write(text, to: "blocker.toml")
    }

    /// Starts the binary; `wrapper` goes before it on the command line (say, unshare).
    func launch(stateDirectory: String? = nil, wrapper: [String] = []) throws {
        let argv = wrapper + [buildProducts + "/blockerd", "--config", configPath,
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
        let json = app.map { "{\"app\":\"\($0)\",\"title\":\"t\",\"pid\":1,\"locked\":\(locked)}" } ?? "null"
        try! scratch.write(json, to: "front.json")
    }

    /// Waits until blockerd owns its name and answers Status.
    func waitUntilAnswering(_ client: BlockerClient, seconds: Double = 10) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            guard process.isRunning else { throw FixtureError("blockerd exited \(process.terminationStatus): \(log)") }
            if client.daemonPID() == pid, (try? client.status()) != nil { return }
            usleep(20_000)
        }
        throw FixtureError("blockerd did not answer within \(seconds) s: \(log)")
    }

    /// Waits for the process to exit and returns its status.
    func waitForExit(seconds: Double = 10) throws -> Int32 {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning {
            guard Date() < deadline else { throw FixtureError("blockerd did not exit within \(seconds) s") }
            usleep(10_000)
        }
        return process.terminationStatus
    }

    var log: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }
}

/// A bus, blockerd on it and a connected client. Tests say `defer { session.stop() }`
/// so both processes live to the end of the test and are stopped on every path.
final class Session {
    let bus: TestBus
    let daemon: Blockerd
    let client: BlockerClient

    init(bus: TestBus, daemon: Blockerd, client: BlockerClient) {
        self.bus = bus; self.daemon = daemon; self.client = client
    }

    func stop() {
        daemon.stop()
        bus.stop()
    }
}

/// A fresh bus, blockerd on it (after `prepare` adjusted its files), and a connected client.
func startBlockerd(front: String? = "notes", prepare: (Blockerd) throws -> Void = { _ in }) throws -> Session {
    let bus = try TestBus()
    let daemon = try Blockerd(on: bus, front: front)
    try prepare(daemon)
    try daemon.launch()
    let client = try bus.client()
    try daemon.waitUntilAnswering(client)
    return Session(bus: bus, daemon: daemon, client: client)
}

/// The result of running a command to the end.
struct Finished {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// Runs `argv` to the end, capturing both streams.
func run(_ argv: [String], environment: [String: String]? = nil) throws -> Finished {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: argv[0])
    process.arguments = Array(argv.dropFirst())
    if let environment { process.environment = environment }
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    // Outputs here are a few lines: reading one stream to its end, then the
    // other, cannot fill a pipe.
    let stdoutData = out.fileHandleForReading.readDataToEndOfFile()
    let stderrData = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return Finished(status: process.terminationStatus, stdout: String(decoding: stdoutData, as: UTF8.self),
                    stderr: String(decoding: stderrData, as: UTF8.self))
}

/// `busctl --address=… call io.github.blockerd.Blocker1 /io/github/blockerd/Blocker1 io.github.blockerd.Blocker1 MEMBER ARGS…`
func busctlCall(_ bus: TestBus, _ member: String, _ arguments: String..., asUser user: String? = nil,
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
func balance(_ client: BlockerClient) throws -> Int64 {
    try client.status().balanceMs
}
