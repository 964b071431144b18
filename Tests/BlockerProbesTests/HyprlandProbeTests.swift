import Foundation
import Glibc
import Testing
import TestSupport
@testable import BlockerProbes
import BlockerCore

/// The Hyprland probe against `FakeHyprlandServer` — a fake, because
/// Hyprland cannot run here — speaking Hyprland's documented socket protocol.
@Suite struct HyprlandProbeWithFakeServerTests {
    /// A fresh `$XDG_RUNTIME_DIR` with a fake instance in `hypr/SIGNATURE/`.
    final class Instance {
        let runtime: TemporaryDirectory
        var runtimeDir: String { runtime.path }
        let signature = "fake_\(UInt32.random(in: 0...UInt32.max))_1720879584"
        let server: FakeHyprlandServer
        /// A real process whose pid the fake reports, so `exe` is read from /proc.
        let app: Process

        init() throws {
            runtime = try TemporaryDirectory()
            server = try FakeHyprlandServer(directory: "\(runtime.path)/hypr/\(signature)")
            app = Process()
            app.executableURL = URL(fileURLWithPath: "/bin/sleep")
            app.arguments = ["60"]
            try app.run()
        }

        var environment: [String: String] { ["HYPRLAND_INSTANCE_SIGNATURE": signature, "XDG_RUNTIME_DIR": runtimeDir] }

        /// The probe, once the fake has accepted its event connection (so
        /// every later `setActiveWindow` reaches it, as with Hyprland).
        func openProbe(timeoutMs: Milliseconds = 1000) throws -> HyprlandProbe {
            let clients = server.eventClientCount
            let probe = try HyprlandProbe.open(environment: environment, timeoutMs: timeoutMs).get()
            try waitUntil("the fake accepts the event connection") { server.eventClientCount > clients }
            return probe
        }

        func close() {
            server.stop()
            // SIGKILL: the test runner's blocked signals are inherited, so SIGTERM would wait.
            kill(app.processIdentifier, SIGKILL)
            app.waitUntilExit()
        }
    }

    /// `hyprctl activewindow -j` as Hyprland prints it.
    static func activeWindowJSON(class wmClass: String, title: String, pid: Int32, xwayland: Bool = false,
                                 address: String = "0x55d0a8b0c6f0") -> String {
        """
        {
            "address": "\(address)",
            "mapped": true,
            "hidden": false,
            "at": [10, 40],
            "size": [1900, 1030],
            "workspace": {
                "id": 1,
                "name": "1"
            },
            "floating": false,
            "monitor": 0,
            "class": "\(wmClass)",
            "title": "\(title)",
            "initialClass": "\(wmClass)",
            "initialTitle": "\(title)",
            "pid": \(pid),
            "xwayland": \(xwayland),
            "pinned": false,
            "fullscreen": false,
            "fullscreenMode": 0,
            "fakeFullscreen": false,
            "grouped": [],
            "swallowing": "0x0",
            "focusHistoryID": 0
        }
        """
    }

    @Test func reportsTheActiveWindow() throws {
        let instance = try Instance()
        defer { instance.close() }
        let pid = instance.app.processIdentifier
        instance.server.setActiveWindow(Self.activeWindowJSON(class: "firefox", title: "News — Mozilla Firefox", pid: pid))
        let probe = try instance.openProbe()

        let window = try #require(try probe.sample().get().window)
        #expect(window.appID == "firefox" && window.wmClass == nil && window.app == "firefox")
        #expect(window.title == "News — Mozilla Firefox")
        #expect(window.pid == pid && window.exe == "sleep")
        #expect(instance.server.requests == ["j/activewindow"], "one request per sample, on its own connection")
    }

    @Test func aSampleWithNothingChangedSendsNoRequest() throws {
        let instance = try Instance()
        defer { instance.close() }
        let pid = instance.app.processIdentifier
        instance.server.setActiveWindow(Self.activeWindowJSON(class: "firefox", title: "News", pid: pid))
        let probe = try instance.openProbe()
        for _ in 0..<5 { #expect(try probe.sample().get().window?.app == "firefox") }
        #expect(instance.server.requests.count == 1, "no event since the first answer: no request")

        instance.server.setActiveWindow(Self.activeWindowJSON(class: "kitty", title: "~", pid: pid))
        #expect(try probe.sample().get().window?.app == "kitty")
        #expect(try probe.sample().get().window?.app == "kitty")
        #expect(instance.server.requests.count == 2, "an event: one request")
    }

    @Test func xwaylandWindowsReportTheirClassAsWMClass() throws {
        let instance = try Instance()
        defer { instance.close() }
        instance.server.setActiveWindow(Self.activeWindowJSON(class: "steam", title: "Steam", pid: instance.app.processIdentifier, xwayland: true))
        let window = try #require(try instance.openProbe().sample().get().window)
        #expect(window.appID == nil && window.wmClass == "steam" && window.app == "steam")
    }

    @Test func emptyObjectMeansNothingInFront() throws {
        let instance = try Instance()
        defer { instance.close() }
        instance.server.setActiveWindow("{}")
        #expect(try instance.openProbe().sample().get() == Reading(window: nil))
    }

    @Test(arguments: ["unknown request", "", "ok", "[]"])
    func anAnswerThatIsNotAnObjectIsAFailure(answer: String) throws {
        let instance = try Instance()
        defer { instance.close() }
        instance.server.setActiveWindow(answer)
        let probe = try instance.openProbe()
        #expect(throws: ProbeFailure.self) { try probe.sample().get() }
    }

    @Test func aWindowNamedLikeTheCoverIsReportedAsItIs() throws {
        // Row 1 of issue 20: the probe passed over any class "blocker-overlay";
        // blockerd now knows its cover by its process (OverlayFilter).
        let instance = try Instance()
        defer { instance.close() }
        let pid = instance.app.processIdentifier
        let probe = try instance.openProbe()

        instance.server.setActiveWindow(Self.activeWindowJSON(class: "firefox", title: "News", pid: pid))
        #expect(try probe.sample().get().window?.app == "firefox")
        instance.server.setActiveWindow(Self.activeWindowJSON(class: "blocker-overlay", title: "discord", pid: pid,
                                                              address: "0x55d0a8b0d000"))
        let front = try #require(try probe.sample().get().window)
        #expect(front.app == "blocker-overlay" && front.pid == pid)
    }

    @Test func activeWindowEventsWakeTheEventDescriptor() throws {
        let instance = try Instance()
        defer { instance.close() }
        let probe = try instance.openProbe()
        let fd = try #require(probe.eventDescriptor)
        #expect(!readable(fd, timeoutMs: 50))

        try waitFor { instance.server.eventClientCount == 1 }
        instance.server.send("activewindow>>firefox,News — Mozilla Firefox\nactivewindowv2>>55d0a8b0c6f0\n")
        #expect(readable(fd, timeoutMs: 2000))
        probe.drainEvents()
        #expect(!readable(fd, timeoutMs: 0), "drainEvents read what woke it")
        #expect(probe.recentEvents.suffix(2) == ["activewindow>>firefox,News — Mozilla Firefox", "activewindowv2>>55d0a8b0c6f0"])

        // A line split across writes is kept until its end arrives.
        instance.server.send("activewindow>>kitty,")
        #expect(readable(fd, timeoutMs: 2000))
        probe.drainEvents()
        #expect(probe.recentEvents.last == "activewindowv2>>55d0a8b0c6f0")
        instance.server.send("~/src\n")
        #expect(readable(fd, timeoutMs: 2000))
        probe.drainEvents()
        #expect(probe.recentEvents.last == "activewindow>>kitty,~/src")
        #expect(probe.eventDescriptor == fd)
    }

    @Test func aHangingHyprlandFailsTheSampleWithinItsTimeout() throws {
        let instance = try Instance()
        defer { instance.close() }
        let probe = try instance.openProbe(timeoutMs: 300)
        instance.server.setHangs(true)
        let started = Date()
        let result = probe.sample()
        let elapsed = Date().timeIntervalSince(started)
        #expect(result.failureValue?.message.contains("no answer within 300 ms") == true)
        #expect(elapsed >= 0.25 && elapsed < 1.0)
    }

    @Test func recoversWhenHyprlandComesBack() throws {
        let instance = try Instance()
        defer { instance.close() }
        let pid = instance.app.processIdentifier
        instance.server.setActiveWindow(Self.activeWindowJSON(class: "firefox", title: "News", pid: pid))
        let probe = try instance.openProbe()
        #expect(try probe.sample().get().window?.app == "firefox")
        let generation = probe.eventGeneration

        instance.server.stop()
        // The hang-up wakes the loop once; draining forgets the fd, so the loop cannot spin on it.
        #expect(readable(probe.eventDescriptor, timeoutMs: 2000))
        probe.drainEvents()
        #expect(probe.eventDescriptor == nil)
        let failure = try #require(probe.sample().failureValue)
        #expect(failure.message.contains(instance.server.requestSocketPath))
        let attempts = probe.connectionAttempts
        for _ in 0..<300 { _ = probe.sample() }
        #expect(probe.connectionAttempts - attempts <= 3, "backoff between connection attempts")

        try instance.server.start()
        instance.server.setActiveWindow(Self.activeWindowJSON(class: "kitty", title: "~", pid: pid))
        let deadline = Date().addingTimeInterval(4)
        while Date() < deadline && probe.eventDescriptor == nil {
            _ = probe.sample()
            usleep(50_000)
        }
        #expect(try probe.sample().get().window?.app == "kitty")
        #expect(probe.eventGeneration > generation)
        try waitFor { instance.server.eventClientCount == 1 }
        instance.server.send("activewindowv2>>55d0a8b0c6f0\n")
        #expect(readable(probe.eventDescriptor, timeoutMs: 2000))
    }

    @Test func openFindsTheSocketsWhereHyprlandVersionsPutThem() throws {
        #expect(HyprlandProbe.open(environment: [:]).failureValue
            == ProbeUnavailable(probe: "hyprland", reason: "HYPRLAND_INSTANCE_SIGNATURE is not set"))

        // Current Hyprland: $XDG_RUNTIME_DIR/hypr/SIG.
        let instance = try Instance()
        defer { instance.close() }
        #expect(try instance.openProbe().socketDirectory == "\(instance.runtimeDir)/hypr/\(instance.signature)")

        // Before 0.40: /tmp/hypr/SIG, used when the runtime dir has no instance.
        let signature = "fake_legacy_\(UInt32.random(in: 0...UInt32.max))"
        let createdTmpHypr = !FileManager.default.fileExists(atPath: "/tmp/hypr")
        let legacy = try FakeHyprlandServer(directory: "/tmp/hypr/\(signature)")
        defer {
            legacy.stop()
            try? FileManager.default.removeItem(atPath: "/tmp/hypr/\(signature)")
            if createdTmpHypr { rmdir("/tmp/hypr") }
        }
        let old = try HyprlandProbe.open(environment: ["HYPRLAND_INSTANCE_SIGNATURE": signature,
                                                       "XDG_RUNTIME_DIR": instance.runtimeDir]).get()
        #expect(old.socketDirectory == "/tmp/hypr/\(signature)")

        // Neither: the reason names both places.
        let missing = HyprlandProbe.open(environment: ["HYPRLAND_INSTANCE_SIGNATURE": "nosuch",
                                                       "XDG_RUNTIME_DIR": instance.runtimeDir]).failureValue
        #expect(missing?.reason == "no Hyprland socket at \(instance.runtimeDir)/hypr/nosuch/.socket.sock or /tmp/hypr/nosuch/.socket.sock")
    }

    func readable(_ fd: Int32?, timeoutMs: Int32) -> Bool {
        guard let fd else { return false }
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&pfd, 1, timeoutMs) > 0
    }

    func waitFor(_ condition: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(2)
        while !condition() {
            guard Date() < deadline else { throw ProbeFailure("condition not met within 2 s") }
            usleep(5_000)
        }
    }
}

private extension Result {
    var failureValue: Failure? {
        if case let .failure(failure) = self { return failure }
        return nil
    }
}
