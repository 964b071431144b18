import Foundation
import Glibc
import Testing
@testable import BlockerProbes
import BlockerCore

/// The sway probe against a real headless sway (see `SwayHeadless`): real
/// windows from foot and xterm, focus changed with swaymsg. A missing sway
/// fails these tests; it never skips them.
@Suite(.serialized) struct SwayProbeTests {
    func openProbe(_ sway: SwayHeadless, timeoutMs: Milliseconds = 1000) throws -> SwayProbe {
        try SwayProbe.open(environment: ["SWAYSOCK": sway.socketPath], timeoutMs: timeoutMs).get()
    }

    func commandLine(of pid: Int32) -> String {
        let bytes = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") ?? Data()
        return String(decoding: bytes.map { $0 == 0 ? UInt8(ascii: " ") : $0 }, as: UTF8.self)
    }

    @Test func focusSwitchesAreReportedAndWakeTheEventDescriptor() throws {
        let sway = try SwayHeadless()
        defer { sway.close() }
        let alpha = try sway.openFoot(appID: "alpha", title: "Alpha notes")
        let beta = try sway.openFoot(appID: "beta", title: "Beta chat")
        let probe = try openProbe(sway)
        #expect(probe.eventDescriptor != nil)

        for view in [alpha, beta, alpha] {
            usleep(50_000)
            probe.drainEvents()
            #expect(!swayTestReadable(probe.eventDescriptor, timeoutMs: 0), "drained: nothing pending")
            let before = probe.eventsReceived
            try sway.swaymsg(["[app_id=\(view.appID!)] focus"])
            #expect(swayTestReadable(probe.eventDescriptor, timeoutMs: 2000), "a window event wakes the daemon")
            usleep(20_000)
            probe.drainEvents()
            #expect(probe.eventsReceived > before)
            #expect(!swayTestReadable(probe.eventDescriptor, timeoutMs: 0), "drainEvents read what woke it")

            let window = try #require(try probe.sample().get().window)
            #expect(window.appID == view.appID && window.app == view.appID)
            #expect(window.title == view.name)
            #expect(window.pid == view.pid && window.exe == "foot")
            #expect(commandLine(of: view.pid).contains("--app-id=\(view.appID!)"))
        }

        // An empty workspace: nothing in front (a workspace event, no window event).
        try sway.swaymsg(["workspace", "2"])
        #expect(swayTestReadable(probe.eventDescriptor, timeoutMs: 2000))
        #expect(try probe.sample().get() == Reading(window: nil))
        try sway.swaymsg(["workspace", "1"])
        #expect(swayTestReadable(probe.eventDescriptor, timeoutMs: 2000))
        #expect(try probe.sample().get().window?.appID == "alpha")
    }

    @Test func aSampleWithNothingChangedSendsNoRequest() throws {
        let sway = try SwayHeadless()
        defer { sway.close() }
        let alpha = try sway.openFoot(appID: "alpha", title: "Alpha notes")
        _ = try sway.openFoot(appID: "beta", title: "Beta chat")
        let probe = try openProbe(sway)
        #expect(try probe.sample().get().window?.appID == "beta")
        usleep(100_000)                                  // the events of opening beta, then quiet
        _ = try probe.sample().get()
        let asked = probe.treeRequests
        for _ in 0..<5 { #expect(try probe.sample().get().window?.appID == "beta") }
        #expect(probe.treeRequests == asked, "nothing changed: no GET_TREE")

        try sway.swaymsg(["[app_id=alpha] focus"])
        #expect(swayTestReadable(probe.eventDescriptor, timeoutMs: 2000))
        let window = try #require(try probe.sample().get().window)
        #expect(window.appID == "alpha" && window.pid == alpha.pid)
        #expect(probe.treeRequests == asked + 1, "a focus change: one GET_TREE")
    }

    @Test func xwaylandWindowReportsItsClass() throws {
        let sway = try SwayHeadless(xwayland: true)
        defer { sway.close() }
        _ = try sway.openFoot(appID: "alpha", title: "Alpha notes")
        try sway.exec("xterm -class BlockerXterm -title 'X terminal' -e sleep infinity")
        let xterm = try sway.waitForView(timeout: 15, "xterm") { $0.wmClass == "BlockerXterm" }
        let probe = try openProbe(sway)

        try sway.swaymsg(["[app_id=alpha] focus"])
        #expect(try probe.sample().get().window?.appID == "alpha")
        probe.drainEvents()
        try sway.swaymsg(["[class=BlockerXterm] focus"])
        #expect(swayTestReadable(probe.eventDescriptor, timeoutMs: 2000))
        probe.drainEvents()

        let window = try #require(try probe.sample().get().window)
        #expect(window.appID == nil)
        #expect(window.wmClass == "BlockerXterm" && window.wmInstance == "xterm")
        #expect(window.app == "BlockerXterm")
        #expect(window.title == "X terminal")
        #expect(window.pid == xterm.pid && window.exe == "xterm")
    }

    @Test func aViewNamedLikeTheCoverIsReportedAsItIs() throws {
        // Row 1 of issue 20: `foot --app-id blocker-overlay` was passed over as
        // the cover. blockerd now knows its cover by its process (OverlayFilter).
        let sway = try SwayHeadless()
        defer { sway.close() }
        _ = try sway.openFoot(appID: "alpha", title: "Alpha notes")
        let probe = try openProbe(sway)
        try sway.swaymsg(["[app_id=alpha] focus"])
        let lookalike = try sway.openFoot(appID: "blocker-overlay", title: "discord")
        _ = try sway.waitForView("focused lookalike") { $0.appID == "blocker-overlay" && $0.focused }
        let front = try #require(try probe.sample().get().window)
        #expect(front.appID == "blocker-overlay" && front.pid == lookalike.pid)
    }

    @Test func layerShellOverlayHoldingTheKeyboardIsNotTheForeground() throws {
        let sway = try SwayHeadless()
        defer { sway.close() }
        _ = try sway.openFoot(appID: "alpha", title: "Alpha notes")
        let beta = try sway.openFoot(appID: "beta", title: "Beta chat")
        let probe = try openProbe(sway)
        #expect(try probe.sample().get().window?.appID == "beta")

        // A full-screen layer-shell surface on the overlay layer that takes the
        // keyboard exclusively, as a gtk-layer-shell overlay does: sway then
        // marks no node focused at all.
        try sway.exec("env NO_AT_BRIDGE=1 gtk-layer-demo --layer overlay --anchor lrtb --keyboard exclusive")
        let deadline = Date().addingTimeInterval(10)
        while try sway.views().contains(where: \.focused) && Date() < deadline { usleep(30_000) }
        #expect(try !sway.views().contains(where: \.focused), "the layer surface took the keyboard")

        let window = try #require(try probe.sample().get().window)
        #expect(window.appID == "beta" && window.pid == beta.pid)
    }

    enum Restart: String, CaseIterable, CustomTestStringConvertible {
        /// SWAYSOCK unset for sway: the new sway names its socket for its new pid.
        case newSocketPath
        /// SWAYSOCK set for sway: the new sway listens at the same path again.
        case sameSocketPath
        /// SIGKILL leaves the old socket file behind; the new sway then picks the pid-named path.
        case killedLeavingAStaleSocket
        var testDescription: String { rawValue }
    }

    @Test(arguments: Restart.allCases)
    func recoversAfterSwayRestarts(_ restart: Restart) throws {
        let sway = try SwayHeadless(fixedSocket: restart != .newSocketPath)
        defer { sway.close() }
        _ = try sway.openFoot(appID: "alpha", title: "Alpha notes")
        let probe = try openProbe(sway)
        #expect(try probe.sample().get().window?.appID == "alpha")
        let generation = probe.eventGeneration
        let oldPath = sway.socketPath

        sway.stop(signal: restart == .killedLeavingAStaleSocket ? SIGKILL : SIGTERM)
        // The hang-up wakes the loop once; draining forgets the fd, so the loop cannot spin on it.
        #expect(swayTestReadable(probe.eventDescriptor, timeoutMs: 2000))
        probe.drainEvents()
        #expect(probe.eventDescriptor == nil)

        // sway is gone: samples fail and say so, and a tight loop of them costs no connect storm.
        let failure = try #require(probe.sample().failureValue)
        #expect(failure.message.contains("sway"))
        let attempts = probe.connectionAttempts
        let started = Date()
        for _ in 0..<300 { _ = probe.sample() }
        #expect(probe.connectionAttempts - attempts <= 3, "backoff between connection attempts")
        #expect(Date().timeIntervalSince(started) < 1)

        try sway.start()
        switch restart {
        case .newSocketPath, .killedLeavingAStaleSocket: #expect(sway.socketPath != oldPath)
        case .sameSocketPath: #expect(sway.socketPath == oldPath)
        }
        _ = try sway.openFoot(appID: "gamma", title: "Gamma")

        // Recovered within the backoff ceiling (2 s), and reconnected to where sway listens now.
        let deadline = Date().addingTimeInterval(5)
        var window: Window?
        while Date() < deadline {
            if case let .success(reading) = probe.sample(), reading.window?.appID == "gamma" { window = reading.window; break }
            usleep(50_000)
        }
        #expect(window?.appID == "gamma" && window?.exe == "foot")
        #expect(probe.socketPath == sway.socketPath)
        #expect(probe.eventGeneration > generation)
        #expect(probe.eventDescriptor != nil)

        // Events flow on the new connection.
        probe.drainEvents()
        _ = try sway.openFoot(appID: "delta", title: "Delta")
        #expect(swayTestReadable(probe.eventDescriptor, timeoutMs: 2000))
        probe.drainEvents()
        #expect(try probe.sample().get().window?.appID == "delta")
    }

    @Test func frozenSwayFailsTheSampleWithinItsTimeout() throws {
        let sway = try SwayHeadless()
        defer { sway.close() }
        _ = try sway.openFoot(appID: "alpha", title: "Alpha notes")
        _ = try sway.openFoot(appID: "beta", title: "Beta chat")
        let probe = try openProbe(sway, timeoutMs: 300)
        #expect(try probe.sample().get().window?.appID == "beta")
        // With nothing changed a sample asks nothing (and cannot hang); after
        // a change it must ask, and sway is stopped before it answers.
        try sway.swaymsg(["[app_id=alpha] focus"])
        #expect(swayTestReadable(probe.eventDescriptor, timeoutMs: 2000))
        usleep(50_000)
        probe.drainEvents()

        sway.signal(SIGSTOP)
        let started = Date()
        let failure = try #require(probe.sample().failureValue)
        let elapsed = Date().timeIntervalSince(started)
        sway.signal(SIGCONT)
        #expect(failure.message.contains("no answer within 300 ms"))
        #expect(elapsed >= 0.25 && elapsed < 1.0)

        // Thawed: the next samples reconnect (the timed-out connection was out of step).
        let deadline = Date().addingTimeInterval(3)
        var recovered = false
        while Date() < deadline && !recovered {
            recovered = (try? probe.sample().get().window?.appID) == "alpha"
            if !recovered { usleep(50_000) }
        }
        #expect(recovered)
    }

    @Test func openSaysWhySwayCannotBeUsed() {
        let unset = SwayProbe.open(environment: [:]).failureValue
        #expect(unset == ProbeUnavailable(probe: "sway", reason: "SWAYSOCK is not set"))

        let missing = SwayProbe.open(environment: ["SWAYSOCK": "/nonexistent/blocker/sway-ipc.1000.1.sock"]).failureValue
        #expect(missing?.probe == "sway")
        #expect(missing?.reason.contains("/nonexistent/blocker/sway-ipc.1000.1.sock") == true)
        #expect(missing?.reason.contains("No such file or directory") == true)
    }

    @Test func eventStreamIsSplitIntoMessagesAcrossReads() {
        let first = SwayIPC.frame(type: 0x8000_0003, payload: Array("{\"change\":\"focus\"}".utf8))
        let second = SwayIPC.frame(type: 0x8000_0003, payload: Array("{\"change\":\"title\"}".utf8))
        let stream = first + second
        var buffer = SwayIPC.MessageBuffer()
        buffer.append(Array(stream[0..<3]))
        #expect(buffer.takeMessages()?.count == 0)
        buffer.append(Array(stream[3..<(first.count + 5)]))
        let one = buffer.takeMessages()
        #expect(one?.count == 1)
        #expect(one?.first?.header == SwayIPC.Header(length: 18, type: 0x8000_0003))
        #expect(one?.first?.header.isEvent == true)
        #expect(one.map { String(decoding: $0[0].payload, as: UTF8.self) } == "{\"change\":\"focus\"}")
        buffer.append(Array(stream[(first.count + 5)...]))
        #expect(buffer.takeMessages()?.map { String(decoding: $0.payload, as: UTF8.self) } == ["{\"change\":\"title\"}"])

        var garbage = SwayIPC.MessageBuffer()
        garbage.append(Array("HTTP/".utf8))
        #expect(garbage.takeMessages() == nil, "out of step as soon as the magic is wrong")
    }

    @Test func restartedSwayIsLookedForAmongItsOwnersSockets() {
        typealias Entry = SwaySocketDiscovery.Entry
        let entries = [
            Entry(name: "sway-ipc.1000.5.sock", isSocket: true, owner: 1000, modifiedNs: 10),     // SWAYSOCK itself
            Entry(name: "sway-ipc.1000.7.sock", isSocket: true, owner: 1000, modifiedNs: 20),
            Entry(name: "sway-ipc.1000.9.sock", isSocket: true, owner: 1000, modifiedNs: 30),     // newest
            Entry(name: "sway-ipc.1001.8.sock", isSocket: true, owner: 1001, modifiedNs: 40),     // another user's
            Entry(name: "sway-ipc.1000.6.sock", isSocket: true, owner: 0, modifiedNs: 50),        // not the owner's
            Entry(name: "sway-ipc.1000.x.sock", isSocket: true, owner: 1000, modifiedNs: 60),     // not a pid
            Entry(name: "sway-ipc.1000.4.sock", isSocket: false, owner: 1000, modifiedNs: 70),    // not a socket
        ]
        #expect(SwaySocketDiscovery.siblings(of: "/run/user/1000/sway-ipc.1000.5.sock", directoryOwner: 1000, entries: entries)
            == ["/run/user/1000/sway-ipc.1000.9.sock", "/run/user/1000/sway-ipc.1000.7.sock"])
    }
}

private extension Result {
    var failureValue: Failure? {
        if case let .failure(failure) = self { return failure }
        return nil
    }
}
