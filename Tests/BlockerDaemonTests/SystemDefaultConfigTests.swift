import Foundation
import Testing
@testable import BlockerDaemon
import BlockerCore
import TestSupport

/// Issue 20's closing paragraph: the Debian package starts blockerd in every
/// user's session, and its system-wide config meters Discord from a balance of
/// 0. With only that file, blockerd observes and records; a user's own file
/// starts metering at the next reload.
@Suite struct SystemDefaultConfigTests {
    @Test func theSystemsDefaultConfigMetersNothingUntilTheUserWritesTheirOwn() throws {
        let box = try Sandbox()
        let text = try String(contentsOfFile: box.configPath, encoding: .utf8)   // discord metered, balance 0
        let systemFile = box.directory.file("xdg/blocker/blocker.toml")
        let userFile = box.directory.file("home-config/blocker/blocker.toml")
        try FileManager.default.createDirectory(atPath: box.directory.file("xdg/blocker"), withIntermediateDirectories: true)
        try box.write(text, to: systemFile)
        let environment = ["TZ": "UTC", "HOME": box.root, "XDG_CONFIG_HOME": box.directory.file("home-config"),
                           "XDG_CONFIG_DIRS": box.directory.file("xdg")]
        let options = try #require(try DaemonOptions.parse(["--state-dir", box.stateDirectory], environment: environment))
        let log = MemoryLog()
        let daemon = try Daemon(options: options, log: log, environment: environment)
        #expect(daemon.configFile.path == systemFile && daemon.configFile.systemDefault)
        #expect(log.events.contains { $0.message.contains("meters nothing") && $0.message.contains("to start: copy \(systemFile) to \(userFile)") })

        var clock = Clock()
        box.front("discord")
        daemon.tick(clock)
        for _ in 0..<3 { clock.advance(1000); daemon.tick(clock) }
        #expect(daemon.shield == nil)                                   // not covered at a balance of 0
        #expect(daemon.lastTick?.decision.metered == false)
        #expect(daemon.ledger.usedToday(day: "2026-11-30")["social"] == 3000)   // but observed and recorded

        // Their own file (the same text): metering starts at the reload.
        try FileManager.default.createDirectory(atPath: box.directory.file("home-config/blocker"), withIntermediateDirectories: true)
        try box.write(text, to: userFile)
        _ = daemon.reload(monotonic: clock.monotonic, wall: clock.wall)
        #expect(daemon.configFile.path == userFile && !daemon.configFile.systemDefault)
        clock.advance(1000); daemon.tick(clock)
        #expect(daemon.shield?.reason == .balance)
    }

    @Test func theSystemsDefaultConfigNeitherPausesNorCapsOpens() throws {
        let box = try Sandbox()
        try box.write(commandProbeConfig(frontFile: box.frontPath, sections: """
            [pause]
            seconds = 10

            [[group]]
            name = "social"
            apps = ["discord"]
            opens-per-day = 1

            [[group]]
            name = "tools"
            apps = ["notes"]
            metered = false

            [group.pause]
            seconds = 5
            """), to: box.configPath)
        let config = try box.daemon().config
        #expect(config.tracksOpens(of: config.groups[0]) && config.tracksOpens(of: config.groups[1]))
        let observed = SystemDefaultConfig.observing(config)
        #expect(!observed.groups.contains { observed.tracksOpens(of: $0) })
    }

    @Test func aConfigNamedWithDashDashConfigIsTheUsersChoice() throws {
        let environment = ["HOME": "/home/u", "XDG_CONFIG_DIRS": "/etc/xdg"]
        let named = try #require(try DaemonOptions.parse(["--config", "/etc/xdg/blocker/blocker.toml"], environment: environment))
        #expect(named.configSource(environment: environment).systemDefault == false)
    }
}
