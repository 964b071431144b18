import Foundation
@testable import BlockerDaemon
import BlockerCore
import TestSupport

/// A temp directory with a config, a state dir and a command probe that
/// prints whatever the test last wrote to `front.json`.
final class Sandbox {
    let directory: TemporaryDirectory
    var root: String { directory.path }
    var configPath: String { directory.file("blocker.toml") }
    var stateDirectory: String { directory.file("state") }
    var frontPath: String { directory.file("front.json") }

    init(config: String? = nil, pollInterval: String = "1s", probeCommand: [String]? = nil) throws {
        directory = try TemporaryDirectory()
        try directory.write("blocker.toml", config ?? commandProbeConfig(
            frontFile: directory.file("front.json"), pollInterval: pollInterval, probeCommand: probeCommand))
        front(nil)
    }

    func write(_ text: String, to path: String) throws {
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }

    /// What the command probe reports next.
    func front(_ app: String?, locked: Bool = false) {
        try! directory.writeFront(app, locked: locked)
    }

    func frontRaw(_ text: String) { try! write(text, to: frontPath) }

    var options: DaemonOptions { DaemonOptions(configPath: configPath, stateDirectory: stateDirectory) }

    /// `environment`: added to the daemon's (a private session bus).
    func daemon(log: MemoryLog = MemoryLog(), environment: [String: String] = [:]) throws -> Daemon {
        try Daemon(options: options, log: log, environment: ["TZ": "UTC", "HOME": root].merging(environment) { $1 })
    }
}

/// Steps a daemon with a fake clock pair (the probe and ledger are real).
struct Clock {
    var monotonic: MonotonicInstant = 5_000_000
    var wall: WallInstant = 1_796_000_000_000
    mutating func advance(_ ms: Milliseconds) { monotonic += ms; wall += ms }
}

extension Daemon {
    func tick(_ clock: Clock) { tick(monotonic: clock.monotonic, wall: clock.wall) }
}
