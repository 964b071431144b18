import BlockerBus
import BlockerSystem
import BlockerSystemd
import Foundation
import Glibc
import Testing
@testable import BlockerDaemon
import BlockerCore
import TestSupport

/// The cover's side of the bus, on a real dbus-daemon, with blockerd's loop
/// in this process: this test runner's own executable stands for
/// blocker-overlay, so a client of ours is the cover and `busctl` is not.
@Suite(.serialized) struct CoverBusTests {
    final class Running {
        let bus: PrivateBus
        let box: Sandbox
        let log = MemoryLog()
        let daemon: Daemon
        let driver: DaemonLoop

        init(before: (PrivateBus) throws -> Void = { _ in }) throws {
            bus = try PrivateBus()
            box = try Sandbox()
            try before(bus)
            var options = box.options
            options.overlayExecutable = try #require(ProcessExecutable.current).path
            daemon = try Daemon(options: options, log: log,
                                environment: bus.environment.merging(["TZ": "UTC", "HOME": box.root]) { a, _ in a })
            let server = try BlockerExport.claim(environment: bus.environment)
            driver = try DaemonLoop(daemon: daemon, server: server)
        }

        /// Runs blockerd's loop; `steps` run from its timers, each `everyMs` after the last.
        func run(everyMs: UInt64 = 300, _ steps: [() throws -> Void]) throws {
            var timers: [EventTimer] = []
            var failure: Error?
            for (index, step) in steps.enumerated() {
                let timer = try driver.loop.timer {
                    do { try step() } catch { failure = failure ?? error }
                }
                timer.arm(afterMicroseconds: UInt64(index + 1) * everyMs * 1000)
                timers.append(timer)
            }
            let stop = try driver.loop.timer { self.driver.loop.exit(code: 0) }
            stop.arm(afterMicroseconds: UInt64(steps.count + 1) * everyMs * 1000)
            timers.append(stop)
            // The loop keeps its timers, whose closures keep this and the test's
            // steps: removed, nothing holds the sandbox and the bus past `stop()`.
            defer { timers.forEach(driver.loop.remove) }
            _ = try driver.loop.run()
            if let failure { throw failure }
        }

        func stop() {
            daemon.shutdown(reason: "stopped")
            bus.stop()
        }
    }

    @Test func onlyBlockerOverlaysProcessMaySayTheCoverIsDrawnAndItsExitIsSeen() throws {
        let running = try Running()
        defer { running.stop() }
        // Row 2's supervision, and who may answer for the cover: busctl may not.
        let errors = try TemporaryDirectory()
        let stderr = open(errors.file("busctl.err"), O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        defer { close(stderr) }
        let impostor = try ChildProcess(["/usr/bin/busctl", "--address=\(running.bus.address)", "--", "call",
                                         BusNames.service, BusNames.objectPath, BusNames.interface, "CoverShown", "b", "true"],
                                        environment: ["PATH": "/usr/bin:/bin"], stderr: stderr)
        defer { impostor.stop() }
        var cover: BlockerClient? = try BlockerClient.connect(environment: running.bus.environment)
        var answered: Result<Void, BusFailure>?
        cover!.callAsync(BlockerInterface.coverShown, (true, "")) { answered = $0 }
        var clientsWhileConnected: [String: CoverSupervisor.Client] = [:]
        try running.run([
            { try cover?.dispatchPending() },
            {
                try cover?.dispatchPending()
                clientsWhileConnected = running.daemon.covers.clients
                cover = nil                    // closes its connection, as a stopped overlay's
            },
            {},
        ])
        if case .failure(let error)? = answered { Issue.record("CoverShown from the cover failed: \(error)") }
        #expect(answered != nil)
        #expect(clientsWhileConnected.values.map(\.pid) == [getpid()])
        #expect(clientsWhileConnected.values.first?.drawn == true)
        #expect(running.daemon.covers.clients.isEmpty, "its connection closed: it is gone")

        #expect(impostor.wait() != 0)
        let said = try String(contentsOfFile: errors.file("busctl.err"), encoding: .utf8)
        #expect(said.contains("busctl"), "busctl is told it is not the cover: \(said)")
        let refused = try #require(running.log.events(.coverRefused).first)
        #expect(refused.message.contains("/usr/bin/busctl"))
    }

    @Test func aProgramOwningTheCoverNameIsNoShellCover() throws {
        // Row 3: a script took io.github.blockerd.Cover first; the overlay hid
        // for it and nothing covered. blockerd now checks the owner's program.
        var squatter: BusConnection?
        let running = try Running { bus in
            squatter = try BusConnection(address: bus.address)
            try squatter!.requestName(BusNames.shellCover)
        }
        defer { running.stop() }
        #expect(running.daemon.covers.shell == nil)
        let refused = try #require(running.log.events(.coverRefused).first)
        #expect(refused.message.contains(BusNames.shellCover) && refused.message.contains("no desktop shell"))
        // It lets go and takes it again while blockerd runs: seen and refused again.
        try running.run([
            { squatter = nil },
            {
                squatter = try BusConnection(address: running.bus.address)
                try squatter!.requestName(BusNames.shellCover)
            },
            {},
        ])
        #expect(running.log.events(.coverRefused).count == 2)
        #expect(running.daemon.covers.shell == nil)
        _ = squatter
    }
}
