import BlockerCore
@testable import BlockerDaemon
import Foundation
import Testing
import TestSupport

/// blockerd with the gnome probe on a real dbus-daemon, beside a fake GNOME
/// Shell (python3-dbusmock owning org.gnome.Shell; the real one is in
/// scripts/itest-gnome*.sh): reloads and the extension switched off.
@Suite(.serialized) struct ShellProbeDaemonFakeShellTests {
    static func config(pollInterval: String = "1s", probe: String = "gnome") -> String {
        """
        [daemon]
        probe = "\(probe)"
        poll-interval = "\(pollInterval)"

        [earn]
        pushups = 0.5

        [[group]]
        name = "social"
        apps = ["discord"]
        """
    }

    /// Ticks (the fake clock 100 ms a tick) until `condition`, as the loop would on the probe's events.
    func tick(_ daemon: Daemon, _ clock: inout Clock, until what: String, _ condition: () -> Bool) throws {
        var ticks = 0
        try waitUntil(what) {
            daemon.tick(clock)
            clock.advance(100)
            ticks += 1
            if !condition() { usleep(20_000); return false }
            return true
        }
    }

    func front(_ daemon: Daemon) -> String? { daemon.probeError == nil ? daemon.meter.lastWindow?.app : nil }

    @Test func aReloadThatChangesThePollIntervalKeepsTheGnomeProbeSeeing() throws {
        let bus = try SessionTestBus()
        try bus.startFakeGnomeShell(extensionState: 1)
        let box = try Sandbox(config: Self.config())
        let log = MemoryLog()
        let daemon = try box.daemon(log: log, environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        var clock = Clock()
        try bus.sendReport(["2", "focused", "b", "true", "wm-class", "s", "discord"])
        try tick(daemon, &clock, until: "the first report") { front(daemon) == "discord" }

        try box.write(Self.config(pollInterval: "2s"), to: box.configPath)
        #expect(throws: Never.self) { try daemon.reload(monotonic: clock.monotonic, wall: clock.wall).get() }
        #expect(daemon.config.daemon.pollInterval == 2000)
        #expect(daemon.probe.name == "gnome")
        // The extension reports again when the name reappears; the fake does it by hand.
        try bus.sendReport(["2", "focused", "b", "true", "wm-class", "s", "firefox"])
        try tick(daemon, &clock, until: "the report after the reload") { front(daemon) == "firefox" }
        #expect(daemon.probe.name == "gnome" && daemon.probeError == nil)
        #expect(log.events(.probeError).isEmpty)
    }

    @Test func aReloadWhoseProbeCannotRunKeepsTheOldOneAndSaysSo() throws {
        let bus = try SessionTestBus()
        try bus.startFakeGnomeShell(extensionState: 1)
        let box = try Sandbox(config: Self.config())
        let log = MemoryLog()
        let daemon = try box.daemon(log: log, environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        var clock = Clock()
        try box.write(Self.config(probe: "sway"), to: box.configPath)   // no SWAYSOCK here
        _ = daemon.reload(monotonic: clock.monotonic, wall: clock.wall)
        #expect(daemon.probe.name == "gnome")
        #expect(log.events.contains { $0.message.hasPrefix("Keeping the gnome probe as before the reload: ") }, "\(log.events)")
        try bus.sendReport(["2", "focused", "b", "true", "wm-class", "s", "discord"])
        try tick(daemon, &clock, until: "a report to the kept probe") { front(daemon) == "discord" }
    }

    @Test func aDisabledExtensionIsBlindTimeLoggedOnceChargedNothingAndInTheGaps() throws {
        let bus = try SessionTestBus()
        try bus.startFakeGnomeShell(extensionState: 1)
        let box = try Sandbox(config: Self.config())
        let log = MemoryLog()
        let daemon = try box.daemon(log: log, environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        var clock = Clock()
        _ = try daemon.earn(exercise: Exercise(name: "pushups", perRep: 30_000), reps: 20, wall: clock.wall)
        try bus.sendReport(["2", "focused", "b", "true", "wm-class", "s", "discord"])
        try tick(daemon, &clock, until: "discord in front") { front(daemon) == "discord" }
        #expect(daemon.isSpending)

        try bus.setExtensionState(2)
        let noticed = Date()
        try tick(daemon, &clock, until: "the probe to fail") { daemon.probeError != nil }
        #expect(Date().timeIntervalSince(noticed) < 3, "noticed within a few seconds")
        let blindFrom = clock.wall - 100
        #expect(daemon.probeError == "GNOME Shell: the blocker extension is not enabled (state disabled): "
            + "gnome-extensions enable blocker@blockerd.github.io")
        let balance = daemon.ledger.balance
        for _ in 0..<30 { clock.advance(100); daemon.tick(clock) }    // 3 s blind
        #expect(daemon.ledger.balance == balance, "nothing charged from the stale report")
        #expect(!daemon.isSpending)
        #expect(log.events(.probeError).count == 1)
        #expect(log.events(.probeError).first?.message.contains("the blocker extension is not enabled") == true)

        try bus.setExtensionState(1)
        try bus.sendReport(["2", "focused", "b", "true", "wm-class", "s", "firefox"])
        try tick(daemon, &clock, until: "the probe to see again") { front(daemon) == "firefox" }
        let blindTo = clock.wall - 100
        #expect(log.events(.probeRecovered).count == 1)
        let blind = try daemon.gaps(since: 0, now: clock.wall).filter { Gap.blindReason($0.reason) != nil }
        #expect(blind.count == 1, "\(blind)")
        #expect(blind.first?.from == blindFrom && blind.first?.to == blindTo, "\(blind) \(blindFrom) \(blindTo)")
        #expect(blind.first.flatMap { Gap.blindReason($0.reason) }
            == "gnome: GNOME Shell: the blocker extension is not enabled (state disabled): "
                + "gnome-extensions enable blocker@blockerd.github.io")
        daemon.shutdown(wall: clock.wall)
    }
}
