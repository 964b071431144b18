import Foundation
import Glibc
import Testing
import TestSupport

/// How often the real blockerd wakes, from its main thread's voluntary
/// context switches (/proc/PID/status): each sleep in the event loop is one.
@Suite struct WakeupTests {
    static func voluntarySwitches(_ pid: pid_t) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("voluntary_ctxt_switches:") }),
              let count = Int(line.split(separator: "\t").last?.trimmingCharacters(in: .whitespaces) ?? "") else {
            throw TestFailure("no voluntary_ctxt_switches in /proc/\(pid)/status")
        }
        return count
    }

    /// blockerd with a streaming command probe (event-driven) that prints
    /// `app` once and then stays quiet, polling every 200 ms.
    func run(front app: String, idleAfter: Bool = false, warnBefore: String? = nil,
             environment extra: [String: String] = [:], measure: (pid_t) throws -> Void) throws {
        let box = try Sandbox(config: "")
        let front = try box.directory.write("front.json", frontJSON(app) + "\n")
        _ = try box.directory.write("blocker.toml", """
            [daemon]
            probe = "command"
            poll-interval = "200ms"
            probe-command = ["/bin/sh", "-c", "cat \(front); exec sleep 1000"]
            probe-command-mode = "stream"
            \(idleAfter ? "idle-after = \"10m\"" : "")

            [earn]
            pushups = 0.5
            \(warnBefore.map { "[warn]\nbefore = [\"\($0)\"]" } ?? "")

            \(socialAndToolsGroups)
            """)
        let daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: KillTests.binary)
        daemon.arguments = ["--config", box.configPath, "--state-dir", box.stateDirectory]
        daemon.environment = ["TZ": "UTC", "HOME": box.root, "PATH": "/usr/bin:/bin"].merging(extra) { $1 }
        daemon.standardError = FileHandle.nullDevice
        try daemon.run()
        defer {
            daemon.terminate()
            daemon.waitUntilExit()
        }
        Thread.sleep(forTimeInterval: 1)                  // started, sampled the first line
        try measure(daemon.processIdentifier)
    }

    @Test func withNothingChargedAnEventDrivenDaemonSleeps() throws {
        try run(front: "firefox") { pid in                // in no group: nothing is charged
            let before = try Self.voluntarySwitches(pid)
            Thread.sleep(forTimeInterval: 3)
            let woke = try Self.voluntarySwitches(pid) - before
            // A 200 ms poll would be 15 wake-ups.
            #expect(woke <= 2, "\(woke) wake-ups in 3 s with nothing charged")
        }
    }

    /// The probe pushes every change, so what is charged needs no poll: the
    /// daemon wakes to commit (every 10 s), not every 200 ms. Before, 15 wake-ups.
    @Test func whileSomethingIsChargedAnEventDrivenDaemonWakesOnlyToCommit() throws {
        try run(front: "notes") { pid in                  // a group's use is counted
            let before = try Self.voluntarySwitches(pid)
            Thread.sleep(forTimeInterval: 3)
            let woke = try Self.voluntarySwitches(pid) - before
            #expect(woke <= 2, "\(woke) wake-ups in 3 s with notes charged")
        }
    }

    @Test func idleFollowedOrTheLastSecondsCountingDownItPolls() throws {
        try run(front: "firefox", idleAfter: true) { pid in   // idle has no event: the poll stays
            let before = try Self.voluntarySwitches(pid)
            Thread.sleep(forTimeInterval: 3)
            #expect(try Self.voluntarySwitches(pid) - before >= 10)
        }
        // Under the last [warn] threshold the countdown notification changes every second.
        let bus = try PrivateBus()
        let environment = ["DBUS_SESSION_BUS_ADDRESS": bus.address]
        try run(front: "discord", warnBefore: "1m", environment: environment) { pid in
            let earned = try TestSupport.run([builtProgram("blockerctl"), "earn", "2", "pushups"], environment: environment)
            #expect(earned.status == 0, "\(earned.stderr)")   // 60 s: the countdown from the start
            Thread.sleep(forTimeInterval: 0.3)
            let before = try Self.voluntarySwitches(pid)
            Thread.sleep(forTimeInterval: 3)
            #expect(try Self.voluntarySwitches(pid) - before >= 10)
        }
    }

    /// Asleep behind a shield, an earning that lifts it must start the
    /// charging at once: before, nothing was charged until the next focus event.
    @Test func anEarningThatUncoversTheAppInFrontStartsCharging() throws {
        let bus = try PrivateBus()
        let environment = ["DBUS_SESSION_BUS_ADDRESS": bus.address]
        let blockerctl = builtProgram("blockerctl")
        try run(front: "discord", environment: environment) { _ in   // metered, no balance: shielded, asleep
            func balanceMs() throws -> Int {
                let out = try TestSupport.run([blockerctl, "status", "--json"], environment: environment).stdout
                guard let data = out.data(using: .utf8),
                      let status = try JSONSerialization.jsonObject(with: data) as? [String: Any],
                      let balance = status["balance_ms"] as? Int else { throw TestFailure("status --json: \(out)") }
                return balance
            }
            let earned = try TestSupport.run([blockerctl, "earn", "4", "pushups"], environment: environment)
            #expect(earned.status == 0, "\(earned.stderr)")
            let before = try balanceMs()
            Thread.sleep(forTimeInterval: 2)
            let spent = before - (try balanceMs())
            #expect(spent >= 1_500 && spent <= 2_600, "2 s with discord in front after earning cost \(spent) ms")
        }
    }

    @Test func asleepItStillPingsTheWatchdogInTime() throws {
        let directory = try TemporaryDirectory()
        let socket = try WatchdogTests.NotifySocket(path: directory.file("notify"))
        var pings: [Date] = []
        try run(front: "firefox", environment: ["NOTIFY_SOCKET": directory.file("notify"), "WATCHDOG_USEC": "2000000"]) { _ in
            let until = Date().addingTimeInterval(4)
            while Date() < until {
                for message in socket.messages() where message.split(separator: "\n").contains("WATCHDOG=1") {
                    pings.append(Date())
                }
                Thread.sleep(forTimeInterval: 0.05)
            }
        }
        // WatchdogSec=2s: a ping every second, asleep or not.
        #expect(pings.count >= 3, "\(pings.count) pings in 4 s")
        let gaps = zip(pings.dropFirst(), pings).map { $0.timeIntervalSince($1) }
        #expect(gaps.allSatisfy { $0 < 1.5 }, "gaps between pings: \(gaps)")
    }
}
