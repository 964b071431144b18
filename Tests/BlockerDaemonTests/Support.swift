import Foundation
@testable import BlockerDaemon
import BlockerCore

/// A temp directory with a config, a state dir and a command probe that
/// prints whatever the test last wrote to `front.json`.
final class Sandbox {
    let root: String
    var configPath: String { root + "/blocker.toml" }
    var stateDirectory: String { root + "/state" }
    var frontPath: String { root + "/front.json" }

    init(config: String? = nil, pollInterval: String = "1s", probeCommand: [String]? = nil) throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("blocker-test-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let argv = (probeCommand ?? ["/bin/cat", root + "/front.json"]).map { "\"\($0)\"" }.joined(separator: ", ")
        try write(config ?? """
            [daemon]
            probe = "command"
            poll-interval = "\(pollInterval)"
            probe-command = [\(argv)]

            [earn]
            pushups = 0.5

            [warn]
            before = ["1m"]

            [[group]]
            name = "social"
            apps = ["discord"]

            [[group]]
            name = "tools"
            apps = ["notes"]
            metered = false
            """, to: configPath)
        front(nil)
    }

    deinit { try? FileManager.default.removeItem(atPath: root) }

    func write(_ text: String, to path: String) throws {
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }

    /// What the command probe reports next.
    func front(_ app: String?, locked: Bool = false) {
        let json = app.map { "{\"app\":\"\($0)\",\"title\":\"t\",\"pid\":1,\"locked\":\(locked)}" } ?? "null"
        try! write(json, to: frontPath)
    }

    func frontRaw(_ text: String) { try! write(text, to: frontPath) }

    var options: DaemonOptions { DaemonOptions(configPath: configPath, stateDirectory: stateDirectory) }

    func daemon(log: MemoryLog = MemoryLog()) throws -> Daemon {
        try Daemon(options: options, log: log, environment: ["TZ": "UTC", "HOME": root])
    }
}

/// Steps a daemon with a fake clock pair (the probe and ledger are real).
struct Clock {
    var monotonic: Int64 = 5_000_000
    var wall: Int64 = 1_796_000_000_000
    mutating func advance(_ ms: Int64) { monotonic += ms; wall += ms }
}

extension Daemon {
    func tick(_ clock: Clock) { tick(monotonic: clock.monotonic, wall: clock.wall) }
}
