import BlockerCore
import Foundation
import Glibc
import Testing
import TestSupport
@testable import BlockerProbes

/// One X11 probe test's world: Xvfb + openbox (`X11Server`), an xterm for
/// each `(class, title)` given, an `X11Probe` on that display, and the first
/// xterm activated. Everything stops with the server.
struct X11Scene {
    typealias Term = (window: UInt32, process: ChildProcess)
    let server: X11Server
    let terms: [Term]
    let probe: X11Probe

    init(_ terms: [(class: String, title: String)] = [], followsIdle: Bool = false, ownDisplay: Bool = false) throws {
        let server = try X11Server(ownDisplay: ownDisplay)
        self.server = server
        self.terms = try terms.map { try server.xterm(class: $0.class, title: $0.title) }
        probe = try Self.openProbe(server, followsIdle: followsIdle)
        if let first = self.terms.first { try server.activate(first.window) }
    }

    /// The first xterm.
    var alpha: Term { terms[0] }

    /// What the probe sees in front now (a failed sample throws).
    func front() throws -> Window? { try probe.sample().get().window }

    /// Another probe on the same display.
    func openProbe(followsIdle: Bool = false) throws -> X11Probe { try Self.openProbe(server, followsIdle: followsIdle) }

    static func openProbe(_ server: X11Server, followsIdle: Bool) throws -> X11Probe {
        switch X11Probe.open(environment: server.environment, followsIdle: followsIdle) {
        case let .success(probe): return probe
        case let .failure(why): throw TestFailure("X11Probe.open failed: \(why)")
        }
    }
}

/// Against a real Xvfb + openbox (a missing Xvfb fails these, never skips them).
@Suite(.serialized) struct X11ProbeTests {
    static let twoTerms = [(class: "AlphaTerm", title: "alpha window"), (class: "BetaTerm", title: "beta window")]

    /// Reads events until none came for `quietMs`, so a later wake-up is caused by what the test does next.
    func settle(_ probe: X11Probe, quietMs: Int32 = 200) throws {
        let fd = try #require(probe.eventDescriptor)
        probe.drainEvents()
        var rounds = 0
        while isReadable(fd, timeoutMs: quietMs) {
            probe.drainEvents()
            rounds += 1
            if rounds > 50 { throw TestFailure("the X connection never went quiet") }
        }
    }

    /// Waits until an event that may change the answer arrives, as blockerd
    /// does: the descriptor can wake first for one that cannot (openbox
    /// restacks before it sets _NET_ACTIVE_WINDOW).
    func awaitRelevantEvent(_ probe: X11Probe, timeoutMs: Int = 2000) throws -> Bool {
        let fd = try #require(probe.eventDescriptor)
        let deadline = Date().addingTimeInterval(Double(timeoutMs) / 1000)
        while case let left = deadline.timeIntervalSinceNow, left > 0 {
            guard isReadable(fd, timeoutMs: Int32(left * 1000) + 1) else { return false }
            if probe.drainEventsMayHaveChanged() { return true }
        }
        return false
    }

    @Test func saysWhyItCannotOpen() {
        guard case let .failure(noDisplay) = X11Probe.open(environment: [:]) else {
            Issue.record("opened without DISPLAY")
            return
        }
        #expect(noDisplay == ProbeUnavailable(probe: "x11", reason: "DISPLAY is not set"))
        guard case let .failure(nobody) = X11Probe.open(environment: ["DISPLAY": ":987"]) else {
            Issue.record("opened a display nobody serves")
            return
        }
        #expect(nobody.reason.hasPrefix("cannot connect to :987: "))
    }

    @Test func reportsTheActiveWindowAndWakesOnFocusChange() throws {
        let x = try X11Scene(Self.twoTerms)
        let (server, probe, alpha, beta) = (x.server, x.probe, x.alpha, x.terms[1])
        let first = try #require(try x.front())
        #expect(first.wmClass == "AlphaTerm" && first.wmInstance == "xterm" && first.app == "AlphaTerm")
        #expect(first.title == "alpha window")
        #expect(first.pid == alpha.process.pid && first.exe == "xterm")

        try settle(probe)
        let fd = try #require(probe.eventDescriptor)
        try server.activate(beta.window)
        #expect(try awaitRelevantEvent(probe), "a focus change must wake the event descriptor")
        let second = try #require(try probe.sample().get().window)
        #expect(second.wmClass == "BetaTerm" && second.title == "beta window" && second.pid == beta.process.pid)
        #expect(probe.eventDescriptor == fd)         // same connection all along
    }

    @Test func aTitleChangeIsSeenAndWakes() throws {
        let x = try X11Scene([("AlphaTerm", "before")])
        let (server, probe, alpha) = (x.server, x.probe, x.alpha)
        #expect(try x.front()?.title == "before")

        try settle(probe)
        try server.run(["xdotool", "set_window", "--name", "after — ünïcode", String(alpha.window)])
        #expect(try awaitRelevantEvent(probe), "a title change must wake the event descriptor")
        #expect(try probe.sample().get().window?.title == "after — ünïcode")
    }

    @Test func aSampleWithNothingChangedSendsNoRequest() throws {
        let x = try X11Scene([("AlphaTerm", "before")])
        let (server, probe, alpha) = (x.server, x.probe, x.alpha)
        #expect(try x.front()?.title == "before")
        try settle(probe)
        _ = try probe.sample().get()
        let sent = probe.requestsSent
        for _ in 0..<5 { #expect(try probe.sample().get().window?.title == "before") }
        #expect(probe.requestsSent == sent, "\(probe.requestsSent - sent) requests for 5 samples with nothing changed")
        #expect(try probe.sample().get().idle == nil)     // idle-after unset: not asked

        try server.run(["xdotool", "set_window", "--name", "after", String(alpha.window)])
        #expect(try awaitRelevantEvent(probe))
        #expect(try probe.sample().get().window?.title == "after")
        #expect(probe.requestsSent > sent)

        // Following idle costs one request a sample, and nothing else.
        let idleProbe = try x.openProbe(followsIdle: true)
        _ = try idleProbe.sample().get()
        try settle(idleProbe)
        _ = try idleProbe.sample().get()
        let before = idleProbe.requestsSent
        #expect(try idleProbe.sample().get().idle != nil)
        #expect(idleProbe.requestsSent == before + 1)
    }

    /// Alt+Tab between known windows: one request (`_NET_ACTIVE_WINDOW`) per
    /// switch, not five, and not the screen saver's state again (its events
    /// say it); a title changed meanwhile in the background is read again.
    @Test func switchingBackToARecentWindowReadsOnlyTheActiveWindow() throws {
        let x = try X11Scene(Self.twoTerms)
        let (server, probe, alpha, beta) = (x.server, x.probe, x.alpha, x.terms[1])
        func switchTo(_ window: UInt32) throws -> Window? {
            try server.activate(window)
            try settle(probe)
            let reading = try probe.sample().get()
            return reading.window
        }
        #expect(try switchTo(alpha.window)?.title == "alpha window")
        #expect(try switchTo(beta.window)?.title == "beta window")
        let sent = probe.requestsSent
        #expect(try switchTo(alpha.window)?.title == "alpha window")
        #expect(try switchTo(beta.window)?.app == "BetaTerm")
        #expect(probe.requestsSent - sent <= 2, "\(probe.requestsSent - sent) requests for 2 switches back")
        try server.run(["xdotool", "set_window", "--name", "alpha renamed", String(alpha.window)])
        #expect(try switchTo(alpha.window)?.title == "alpha renamed")
    }

    /// The event that says the active window changed sends the request for
    /// it at once: blockerd's tick then finds the reply there rather than
    /// sleeping for it (before, the sample asked, a wake-up more per change).
    @Test func aFocusChangeIsAskedForAsItsEventIsRead() throws {
        let x = try X11Scene(Self.twoTerms)
        let (server, probe, alpha, beta) = (x.server, x.probe, x.alpha, x.terms[1])
        #expect(try x.front()?.title == "alpha window")
        try server.activate(beta.window)
        #expect(try x.front()?.title == "beta window")
        try settle(probe)
        _ = try x.front()
        let sent = probe.requestsSent
        try server.activate(alpha.window)
        #expect(try awaitRelevantEvent(probe))
        #expect(probe.requestsSent == sent + 1, "\(probe.requestsSent - sent) requests sent as the event was read")
        #expect(try x.front()?.title == "alpha window")
        #expect(probe.requestsSent == sent + 1, "the sample asked again: \(probe.requestsSent - sent) requests")
    }

    /// A change after the early request makes its answer stale: the sample reads again.
    @Test func aChangeAfterTheEarlyRequestIsReadAgain() throws {
        let x = try X11Scene(Self.twoTerms)
        let (server, probe, alpha, beta) = (x.server, x.probe, x.alpha, x.terms[1])
        #expect(try x.front()?.title == "alpha window")
        try settle(probe)
        try server.activate(beta.window)
        #expect(try awaitRelevantEvent(probe))             // asks for the active window: beta
        try server.activate(alpha.window)                  // its events wait in the socket
        let fd = try #require(probe.eventDescriptor)
        #expect(isReadable(fd, timeoutMs: 2000))
        #expect(try x.front()?.title == "alpha window")
    }

    @Test func xmessageGetsItsPidFromXResource() throws {
        let x = try X11Scene()
        let xmessage = try x.server.spawn(["xmessage", "no _NET_WM_PID here"])
        let window = try x.server.window(ofClass: "Xmessage", from: xmessage)
        // The premise: xmessage does not say its pid itself.
        #expect(try x.server.run(["xprop", "-id", String(window), "_NET_WM_PID"]).contains("not found"))
        try x.server.activate(window)
        let seen = try #require(try x.front())
        #expect(seen.wmClass == "Xmessage" && seen.wmInstance == "xmessage")
        #expect(seen.pid == xmessage.pid && seen.exe == "xmessage")
    }

    @Test func aWindowNamedLikeTheCoverIsReportedAsItIs() throws {
        // Row 1 of issue 20: `xterm -class blocker-overlay` was passed over as
        // the cover, never charged. blockerd knows its cover by its process.
        let x = try X11Scene([("AlphaTerm", "the app")])
        let (server, probe) = (x.server, x.probe)
        #expect(try x.front()?.wmClass == "AlphaTerm")

        let lookalike = try server.xterm(class: "blocker-overlay", title: "discord")
        try server.activate(lookalike.window)
        #expect(try server.run(["xdotool", "getactivewindow"]).hasPrefix(String(lookalike.window)))
        let front = try probe.sample().get().window
        #expect(front?.wmClass == "blocker-overlay" && front?.pid == lookalike.process.pid)
    }

    @Test func oneEmptyAnswerKeepsTheWindowTwoMeanNothingInFront() throws {
        let x = try X11Scene([("AlphaTerm", "the app")])
        let (server, probe, alpha) = (x.server, x.probe, x.alpha)
        #expect(try x.front()?.wmClass == "AlphaTerm")

        // 0x0, and of another type than WINDOW: read with AnyPropertyType all the same.
        try server.run(["xprop", "-root", "-f", "_NET_ACTIVE_WINDOW", "32c", "-set", "_NET_ACTIVE_WINDOW", "0"])
        #expect(try probe.sample().get().window?.wmClass == "AlphaTerm")
        #expect(try probe.sample().get().window == nil)
        // (openbox still has it focused, so it would not write the property again itself.)
        try server.run(["xprop", "-root", "-f", "_NET_ACTIVE_WINDOW", "32c", "-set", "_NET_ACTIVE_WINDOW", String(alpha.window)])
        #expect(try probe.sample().get().window?.wmClass == "AlphaTerm")
    }

    @Test func aClosedActiveWindowIsLikeAnEmptyOne() throws {
        let x = try X11Scene([("AlphaTerm", "the only window")])
        let (server, probe, alpha) = (x.server, x.probe, x.alpha)
        #expect(try x.front()?.wmClass == "AlphaTerm")

        alpha.process.stop()
        // openbox leaves _NET_ACTIVE_WINDOW naming the dead window: reads of it fail with BadWindow.
        try server.waitFor("the window to be destroyed") {
            (try? server.run(["xprop", "-id", String(alpha.window), "WM_CLASS"])) == nil
        }
        #expect(try probe.sample().get().window?.wmClass == "AlphaTerm")
        #expect(try probe.sample().get().window == nil)
    }

    /// A dead window's id comes back for a new window (X hands a freed
    /// client slot's ids to the next client: a restarted blocker-overlay got
    /// the killed one's). The dead window, still named by
    /// `_NET_ACTIVE_WINDOW`, was followed after its DestroyNotify: selecting
    /// events on it failed, yet it stayed in `recent`, so the next window
    /// with its id was never followed, and the one after was taken for it
    /// (the restarted cover for the killed one's pid, no cover: the shield
    /// flapped down and up every few ms under systemd --user, issue 20 row 2).
    @Test func aWindowIdUsedAgainIsReadAgain() throws {
        let server = try X11Server()
        let probe = try X11Scene.openProbe(server, followsIdle: false)
        let x = try TestXClient(display: server.display)
        let id = x.newId()
        func show(_ name: String, pid: UInt32) throws -> Window? {
            x.createWindow(id, wmClass: name, pid: pid)
            x.setActive(id)
            _ = try awaitRelevantEvent(probe)
            return try probe.sample().get().window
        }
        #expect(try show("First", pid: 111)?.wmClass == "First")
        x.destroyWindow(id)
        // Its DestroyNotify wakes the probe; _NET_ACTIVE_WINDOW still names it.
        _ = try awaitRelevantEvent(probe)
        _ = try probe.sample().get()
        try settle(probe)
        let second = try show("Second", pid: 222)
        #expect(second?.wmClass == "Second" && second?.pid == 222)
        x.destroyWindow(id)
        try settle(probe)
        let third = try show("Third", pid: 333)
        #expect(third?.wmClass == "Third" && third?.pid == 333)
    }

    @Test func anActiveScreenSaverIsLockedAndIdleIsKnown() throws {
        let x = try X11Scene([("AlphaTerm", "t")], followsIdle: true)
        let (server, probe) = (x.server, x.probe)
        let before = try probe.sample().get()
        #expect(!before.locked)
        #expect(before.idle != nil)

        try settle(probe)
        try server.run(["xset", "s", "activate"])
        #expect(try awaitRelevantEvent(probe), "the screen saver must wake the event descriptor")
        #expect(try probe.sample().get().locked)

        try server.run(["xset", "s", "reset"])
        #expect(try !probe.sample().get().locked)
    }

    @Test func aSampleNoticesTheServerIsGone() throws {
        let x = try X11Scene()
        let (server, probe) = (x.server, x.probe)
        _ = try probe.sample().get()
        server.killServer()
        // No drainEvents first: the sample itself finds the connection broken.
        guard case let .failure(failure) = probe.sample() else {
            Issue.record("a sample succeeded with the X server gone")
            return
        }
        #expect(failure.message.hasPrefix("lost the connection to the X server at \(server.display)"))
        #expect(probe.eventDescriptor == nil)
        probe.drainEvents()                                  // harmless while disconnected
        #expect(throws: ProbeFailure.self) { try probe.sample().get() }
    }

    @Test func aStoppedServerFailsTheSampleInsteadOfHanging() throws {
        let x = try X11Scene([("AlphaTerm", "t")])
        let (server, probe, alpha) = (x.server, x.probe, x.alpha)
        _ = try probe.sample().get()
        // With nothing changed a sample asks nothing (and cannot hang); after
        // a change it must ask, and the server is stopped before it answers.
        try settle(probe)
        try server.run(["xdotool", "set_window", "--name", "changed", String(alpha.window)])
        #expect(try awaitRelevantEvent(probe))

        server.pauseServer(true)
        defer { server.pauseServer(false) }
        let started = Date()
        let result = probe.sample()
        let took = Date().timeIntervalSince(started)
        server.pauseServer(false)
        guard case let .failure(failure) = result else {
            Issue.record("a sample succeeded from a stopped X server")
            return
        }
        #expect(failure.message.contains("no answer within 500 ms"))
        #expect(took >= 0.5 && took < 1.5, "took \(took) s")
        #expect(probe.eventDescriptor != nil)                // still connected: the server only paused
        // The late replies are thrown away; the next samples are right again.
        #expect(try probe.sample().get().window?.wmClass == "AlphaTerm")
        #expect(try probe.sample().get().window?.wmClass == "AlphaTerm")
    }

    @Test func recoversAfterTheServerRestartsWithoutSpinning() throws {
        let x = try X11Scene(ownDisplay: true)
        let (server, probe) = (x.server, x.probe)
        _ = try probe.sample().get()
        let generation = probe.eventGeneration
        let fd = try #require(probe.eventDescriptor)

        server.killServer()
        // The hung-up socket wakes the loop once; draining it drops the connection.
        #expect(isReadable(fd, timeoutMs: 2000))
        probe.drainEvents()
        #expect(probe.eventDescriptor == nil)
        guard case let .failure(failure) = probe.sample() else {
            Issue.record("a sample succeeded with the X server gone")
            return
        }
        #expect(failure.message.contains(server.display))
        #expect(failure.message.contains("X server"))

        // Two seconds of samples at 10 Hz while the server is away: each fails, cheaply.
        // (Thread CPU: other suites run in this process at the same time.)
        let cpuBefore = threadCPUMilliseconds()
        for _ in 0..<20 {
            #expect(throws: ProbeFailure.self) { try probe.sample().get() }
            #expect(probe.eventDescriptor == nil)
            usleep(100_000)
        }
        let cpuUsed = threadCPUMilliseconds() - cpuBefore
        #expect(cpuUsed < 100, "used \(cpuUsed) ms of CPU while the X server was away")

        try server.restartServer()
        let back = Date()
        var recovered: Reading?
        while recovered == nil && Date().timeIntervalSince(back) < 4 {
            recovered = try? probe.sample().get()
            if recovered == nil { usleep(100_000) }
        }
        let took = Date().timeIntervalSince(back)
        #expect(recovered != nil && took < 2, "recovered after \(took) s")
        #expect(probe.eventDescriptor != nil && probe.eventGeneration > generation)

        // And it works as before on the new server.
        let alpha = try server.xterm(class: "AlphaTerm", title: "after the restart")
        try server.activate(alpha.window)
        #expect(try probe.sample().get().window?.title == "after the restart")
    }
}

/// The rules that turn what X says into what is in front, without X.
@Suite struct X11ForegroundRulesTests {
    let app = Window(wmInstance: "xterm", wmClass: "AlphaTerm", title: "a")
    let other = Window(wmInstance: "xterm", wmClass: "BetaTerm", title: "b")

    /// An event stamped before our read of `_NET_ACTIVE_WINDOW` was handled
    /// is in that read; one stamped with the read's own number came after it.
    @Test func anEventStampedBeforeARequestIsInItsReply() {
        typealias Cookie = XCookie<XProperty?>
        #expect(Cookie.request(100, wasHandledAfter: 99))
        #expect(!Cookie.request(100, wasHandledAfter: 100))          // generated after request 100 was handled
        #expect(!Cookie.request(100, wasHandledAfter: 101))
        #expect(Cookie.request(0x1_0002, wasHandledAfter: 0xFFFF))     // the 16-bit stamp wrapped
        #expect(!Cookie.request(0x1_0002, wasHandledAfter: 0x0003))
        #expect(Cookie.request(70_000, wasHandledAfter: UInt16(truncatingIfNeeded: 70_000 - 5)))
    }

    @Test func emptyOnceIsAGapEmptyTwiceIsNothing() {
        var rules = ForegroundSmoother()
        #expect(rules.next(app) == app)
        #expect(rules.next(nil) == app)
        #expect(rules.next(app) == app)
        #expect(rules.next(nil) == app)              // the streak started over
        #expect(rules.next(nil) == nil)
        #expect(rules.next(nil) == nil)
        #expect(rules.next(other) == other)
    }

    @Test func textProperties() {
        #expect(X11Probe.text(XProperty(type: .string, format: 8, bytes: [0x63, 0x61, 0x66, 0xE9, 0])) == "café")   // Latin-1
        #expect(X11Probe.text(XProperty(type: .string, format: 8, bytes: Array("café".utf8))) == "café")
        #expect(X11Probe.text(XProperty(type: .string, format: 8, bytes: [0xE9]), alwaysUTF8: true) == "\u{FFFD}")
        #expect(X11Probe.text(XProperty(type: XAtom(rawValue: 999), format: 8, bytes: Array("café".utf8))) == "café")
        #expect(X11Probe.text(XProperty(type: .string, format: 32, bytes: [1, 0, 0, 0])) == nil)
        let both = X11Probe.parseClass(XProperty(type: .string, format: 8, bytes: Array("navigator\0Firefox\0".utf8)))
        #expect(both.instance == "navigator" && both.wmClass == "Firefox")
        let onlyInstance = X11Probe.parseClass(XProperty(type: .string, format: 8, bytes: Array("solo\0".utf8)))
        #expect(onlyInstance.instance == "solo" && onlyInstance.wmClass == nil)
        #expect(X11Probe.parseClass(nil).instance == nil)
    }
}
