import BlockerCore
import Foundation
import Testing
import TestSupport
@testable import BlockerBus

// BlockerdBusTests, continued: the signals, and who may call and run.
extension BlockerdBusTests {
    // MARK: signals

    /// BalanceChanged: at the earning, when spending starts, at the warning's
    /// commit and at zero (not at each of the 200 ms samples), ≥ 1 s apart.
    @Test func theShieldSignalsWhenTheBalanceRunsOutAndBalanceChangesAreFewAndThrottled() throws {
        let session = try startBlockerd(front: "notes") { daemon in
            try daemon.writeConfig(testConfig(directory: daemon.scratch.path, earn: "pushups = 0.1", warn: "[\"4s\"]"))
        }
        defer { session.stop() }
        let (daemon, client) = (session.daemon, session.client)
        var shields: [ShieldState] = []
        var balances: [(value: Milliseconds, at: Date)] = []
        var warnings: [Milliseconds] = []
        let s1 = try client.onShieldChanged { shields.append($0) }
        let s2 = try client.onBalanceChanged { balances.append(($0, Date())) }
        let s3 = try client.onWarning { warnings.append($0) }
        defer { s1.cancel(); s2.cancel(); s3.cancel() }

        #expect(try client.earn(exercise: "pushups", reps: 1).balanceMs == 6_000)
        daemon.setFront("discord")                                                   // 200 ms polls: 5 debits a second
        let raisedAt = try pump(client, seconds: 12) { shields.contains { $0.active } }
        #expect(raisedAt)
        try pump(client, seconds: 1.5)                                               // the held last value
        #expect(shields.first == ShieldState(active: true, reason: .balance, app: "discord", balanceMs: 0))
        #expect(balances.last?.value == 0)
        #expect(balances.count >= 2 && balances.count <= 6, "\(balances.map(\.value))")
        for (earlier, later) in zip(balances, balances.dropFirst()) {
            // Sent ≥ 1 s apart by the daemon's clock; allow delivery jitter.
            #expect(later.at.timeIntervalSince(earlier.at) > 0.8, "\(balances.map(\.value))")
            #expect(later.value <= earlier.value)
        }
        #expect(warnings.count == 1 && (warnings.first ?? 9_999) <= 4_000)
    }

    @Test func clientsSeeTheDaemonComeAndGo() throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let client = try bus.client()
        var running: [Bool] = []
        let subscription = try client.onDaemonRunningChanged { running.append($0) }
        defer { subscription.cancel() }
        #expect(try client.isDaemonRunning() == false)
        #expect(client.daemonPID() == nil)

        let daemon = try Blockerd(on: bus)
        defer { daemon.stop() }
        try daemon.launch()
        try pump(client, seconds: 10) { running == [true] }
        try daemon.waitUntilAnswering(client)
        #expect(try client.isDaemonRunning() && client.daemonPID() == daemon.pid)
        kill(daemon.pid, SIGTERM)
        #expect(try daemon.waitForExit() == 0)
        try pump(client, seconds: 5) { running == [true, false] }
        #expect(running == [true, false])
    }

    // MARK: who may call, and who may run

    @Test func withoutADaemonCallsSayHowToStartIt() throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let client = try bus.client()
        let failure = refusal { () throws(BusFailure) in try client.status() }
        #expect(failure == .notRunning("blockerd is not running — start it with: systemctl --user start blockerd"))

        let noBus = #expect(throws: BusFailure.self) { try BlockerClient.connect(environment: [:]) }
        guard case let .notRunning(why)? = noBus else { Issue.record("\(String(describing: noBus))"); return }
        #expect(why.contains("no session bus") && why.contains("systemctl --user start blockerd"))
        let gone = #expect(throws: BusFailure.self) {
            try BlockerClient.connect(environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=\(bus.directory.path)/nothing"])
        }
        guard case let .notRunning(gonewhy)? = gone else { Issue.record("\(String(describing: gone))"); return }
        #expect(gonewhy.contains("cannot connect to the session bus"))
    }

    @Test func aSecondBlockerdOnTheBusExits75NamingThePidAndMakesNoLedger() throws {
        let session = try startBlockerd()
        defer { session.stop() }
        let (bus, first, client) = (session.bus, session.daemon, session.client)
        let second = try Blockerd(on: bus)
        defer { second.stop() }
        try second.launch()
        #expect(try second.waitForExit() == 75)
        #expect(second.log.contains("blockerd is already running (pid \(first.pid))"), "\(second.log)")
        #expect(!second.scratch.exists("state/blocker.db"))
        #expect(!second.scratch.exists("state/blockerd.lock"))
        #expect(try client.status().probeOK)                                          // the first carries on
        #expect(client.daemonPID() == first.pid)
    }

    @Test func anotherUsersCallIsRefusedByBlockerItself() throws {
        let user = "blocker-bus"
        if (try run(["/usr/bin/id", "-u", user])).status != 0 {
            let made = try run(["/usr/sbin/useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", user])
            #expect(made.status == 0, "\(made.stderr)")
        }
        let uid = try run(["/usr/bin/id", "-u", user]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let bus = try PrivateBus(allowOtherUsers: true)
        let daemon = try Blockerd(on: bus)
        defer { daemon.stop(); bus.stop() }
        try daemon.launch()
        let client = try bus.client()
        try daemon.waitUntilAnswering(client)

        // The bus lets that user reach blockerd (sd-bus answers Ping itself)…
        let ping = try run(["/usr/sbin/runuser", "-u", user, "--", "/usr/bin/busctl", "--address=\(bus.address)",
                            "call", BusNames.service, BusNames.objectPath, "org.freedesktop.DBus.Peer", "Ping"])
        #expect(ping.status == 0, "\(ping.stderr)")
        // …and blocker refuses the call itself, naming the rule.
        for (member, arguments) in [("Earn", ["su", "pushups", "3"]), ("Status", []), ("BlockFor", ["st", "social", "600"])] {
            let argv = ["/usr/sbin/runuser", "-u", user, "--", "/usr/bin/busctl", "--address=\(bus.address)", "--",
                        "call", BusNames.service, BusNames.objectPath, BusNames.interface, member] + arguments
            let refused = try run(argv, environment: ["SYSTEMD_LOG_LEVEL": "debug", "PATH": "/usr/bin:/bin"])
            #expect(refused.status != 0)
            #expect(refused.stderr.contains("error-name=\(BusErrorName.accessDenied.rawValue)"), "\(refused.stderr)")
            #expect(refused.stderr.contains("error-message=blockerd runs for uid \(getuid()) and only answers that user; "
                + "uid \(uid) may not call \(member)"), "\(refused.stderr)")
        }
        let status = try client.status()
        #expect(status.balanceMs == 0 && status.todayEarnedMs == 0 && !status.shield.active)
        // The owner's own call goes through.
        #expect(try client.earn(exercise: "pushups", reps: 3).balanceMs == 90_000)
    }
}
