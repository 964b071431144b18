import BlockerCore
import Foundation
import Glibc
import Testing
@testable import BlockerProbes
import TestSupport

/// The wlroots probe against real headless compositors (`WlrootsHeadless`):
/// sway 1.7 and phoc 0.24, real foot windows, focus switched with the
/// protocol's own `activate` request from a second connection (the same on
/// every compositor). A missing compositor fails these tests; it never skips them.
@Suite(.serialized) struct WlrootsProbeTests {
    func openProbe(_ compositor: WlrootsHeadless) throws -> WlrootsProbe {
        try WlrootsProbe.open(environment: compositor.probeEnvironment).get()
    }

    /// Waits until `probe` (draining its events) knows a toplevel for each app id.
    func waitForToplevels(_ probe: WlrootsProbe, _ appIDs: [String], _ compositor: WlrootsHeadless,
                          timeout: TimeInterval = 15) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            _ = probe.sample()
            if Set(appIDs).isSubset(of: probe.toplevelAppIDs) { return }
            _ = swayTestReadable(probe.eventDescriptor, timeoutMs: 50)
        }
        throw TestFailure("no toplevels \(appIDs) within \(timeout) s (have \(probe.toplevelAppIDs)): \(compositor.log())")
    }

    /// Waits for events until `probe`'s sample satisfies `predicate`; the last reading.
    @discardableResult
    func waitForReading(_ probe: WlrootsProbe, _ what: String, timeout: TimeInterval = 5,
                        where predicate: (Reading) -> Bool) throws -> Reading {
        let deadline = Date().addingTimeInterval(timeout)
        var last: Result<Reading, ProbeFailure> = probe.sample()
        while Date() < deadline {
            if case let .success(reading) = last, predicate(reading) { return reading }
            if swayTestReadable(probe.eventDescriptor, timeoutMs: 100) { probe.drainEvents() }
            last = probe.sample()
        }
        throw TestFailure("\(what): the probe still reads \(last)")
    }

    @Test(arguments: WlrootsHeadless.Compositor.wlroots)
    func focusSwitchesTitlesAndClosedWindowsAreReported(_ kind: WlrootsHeadless.Compositor) throws {
        let compositor = try WlrootsHeadless(kind)
        defer { compositor.close() }
        let retitle = compositor.runtimeDir + "/retitle"
        try compositor.openFoot(appID: "alpha", title: "Alpha notes", script:
            "while [ ! -e \(retitle) ]; do sleep 0.05; done; printf '\\033]2;Alpha renamed\\007'; exec sleep infinity")
        let beta = try compositor.openFoot(appID: "beta", title: "Beta chat")
        let driver = try openProbe(compositor)
        try waitForToplevels(driver, ["alpha", "beta"], compositor)
        let probe = try openProbe(compositor)
        #expect(probe.eventDescriptor != nil)
        #expect(probe.pidUnavailable == "wlr-foreign-toplevel-management gives no pid")

        let titles = ["alpha": "Alpha notes", "beta": "Beta chat"]
        // Start with the one not in front (which one the compositor focused on mapping is its choice).
        let alphaInFront = try probe.sample().get().window?.appID == "alpha"
        for app in alphaInFront ? ["beta", "alpha", "beta", "alpha"] : ["alpha", "beta", "alpha"] {
            probe.drainEvents()
            #expect(!swayTestReadable(probe.eventDescriptor, timeoutMs: 0), "drained: nothing pending")
            #expect(driver.requestActivation(appID: app))
            #expect(swayTestReadable(probe.eventDescriptor, timeoutMs: 2000), "the activation wakes the daemon")
            let reading = try waitForReading(probe, "\(app) activated") { $0.window?.appID == app }
            #expect(reading.window == Window(appID: app, title: titles[app]!))
            #expect(reading.window?.pid == nil && reading.window?.exe == nil)
        }

        // A sample with nothing changed reads the socket once and reuses what the last change made.
        let events = probe.eventsReceived
        for _ in 0..<3 { #expect(try probe.sample().get().window?.appID == "alpha") }
        #expect(probe.eventsReceived == events)

        // A title change of the window in front.
        #expect(FileManager.default.createFile(atPath: retitle, contents: nil))
        try waitForReading(probe, "alpha's new title") { $0.window == Window(appID: "alpha", title: "Alpha renamed") }

        // The window in front closes: never reported again; then the other one is
        // in front or nothing (the compositor decides), and once it closes too, nothing.
        #expect(driver.requestActivation(appID: "beta"))
        try waitForReading(probe, "beta activated") { $0.window?.appID == "beta" }
        beta.stop()
        try waitForReading(probe, "beta closed") { $0.window?.appID != "beta" }
        try waitForToplevels(driver, ["alpha"], compositor)
        #expect(!probe.toplevelAppIDs.contains("beta"))
        let after = try probe.sample().get().window
        #expect(after == nil || after?.appID == "alpha", "\(String(describing: after))")
        compositor.stop()
        _ = compositor   // the compositor is gone: its toplevels with it
    }

    @Test(arguments: WlrootsHeadless.Compositor.wlroots)
    func lastWindowClosingLeavesNothingInFront(_ kind: WlrootsHeadless.Compositor) throws {
        let compositor = try WlrootsHeadless(kind)
        defer { compositor.close() }
        let alpha = try compositor.openFoot(appID: "alpha", title: "Alpha notes")
        let probe = try openProbe(compositor)
        try waitForToplevels(probe, ["alpha"], compositor)
        #expect(probe.requestActivation(appID: "alpha"))
        try waitForReading(probe, "alpha activated") { $0.window?.appID == "alpha" }
        alpha.stop()
        let reading = try waitForReading(probe, "nothing in front") { $0.window == nil }
        #expect(reading == Reading(window: nil))
        #expect(probe.toplevelAppIDs.isEmpty)
    }

    @Test(arguments: WlrootsHeadless.Compositor.wlroots)
    func aToplevelNamedLikeTheCoverIsReportedAsItIs(_ kind: WlrootsHeadless.Compositor) throws {
        // Row 1 of issue 20: an app id "blocker-overlay" was passed over as the
        // cover. The protocol gives no pid, so no toplevel is ever the cover;
        // blocker's cover is a layer-shell surface there, never a toplevel.
        let compositor = try WlrootsHeadless(kind)
        defer { compositor.close() }
        try compositor.openFoot(appID: "alpha", title: "Alpha notes")
        try compositor.openFoot(appID: OverlayIdentity.name, title: "discord")
        let probe = try openProbe(compositor)
        try waitForToplevels(probe, ["alpha", OverlayIdentity.name], compositor)
        #expect(probe.requestActivation(appID: "alpha"))
        try waitForReading(probe, "alpha activated") { $0.window?.appID == "alpha" }
        #expect(probe.requestActivation(appID: OverlayIdentity.name))
        try waitForReading(probe, "the lookalike activated") { $0.window?.appID == OverlayIdentity.name }
    }

    @Test(arguments: WlrootsHeadless.Compositor.wlroots)
    func aRestartedCompositorIsFoundAgain(_ kind: WlrootsHeadless.Compositor) throws {
        let compositor = try WlrootsHeadless(kind)
        defer { compositor.close() }
        try compositor.openFoot(appID: "alpha", title: "Alpha notes")
        let probe = try openProbe(compositor)
        try waitForToplevels(probe, ["alpha"], compositor)
        let generation = probe.eventGeneration

        compositor.stop()
        // The hang-up wakes the loop once; draining it drops the descriptor, so the loop cannot spin.
        #expect(swayTestReadable(probe.eventDescriptor, timeoutMs: 2000))
        probe.drainEvents()
        #expect(probe.eventDescriptor == nil)
        guard case let .failure(failure) = probe.sample() else {
            Issue.record("a sample without the compositor succeeded")
            return
        }
        #expect(failure.message.contains("the compositor at \(compositor.socketName)"), "\(failure.message)")
        // While it is away, samples do not try to connect each time (backoff).
        let attempts = probe.connectionAttempts
        for _ in 0..<20 { _ = probe.sample() }
        #expect(probe.connectionAttempts <= attempts + 1)

        try compositor.start()
        try compositor.openFoot(appID: "beta", title: "Beta chat")
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline, !probe.toplevelAppIDs.contains("beta") {
            _ = probe.sample()
            if !swayTestReadable(probe.eventDescriptor, timeoutMs: 100) { usleep(100_000) }
        }
        #expect(probe.toplevelAppIDs == ["beta"], "\(compositor.log())")
        #expect(probe.eventGeneration > generation)
        #expect(probe.eventDescriptor != nil)
        #expect(probe.requestActivation(appID: "beta"))
        try waitForReading(probe, "beta activated after the restart") { $0.window?.appID == "beta" }
    }

    @Test func aCompositorWithoutTheProtocolIsNamedWithTheFix() throws {
        let kwin = try WlrootsHeadless(.kwin)
        defer { kwin.close() }
        #expect(!(try kwin.globals()).contains("zwlr_foreign_toplevel_manager_v1"))
        #expect(WlrootsProbe.open(environment: kwin.probeEnvironment).failure?.reason
            == "the compositor at wayland-kwin does not offer zwlr_foreign_toplevel_manager_v1 (GNOME and KDE don't: use probe = gnome/kde)")
    }

    @Test func openSaysWhatToFix() throws {
        #expect(WlrootsProbe.open(environment: [:]).failure?.description == "wlroots: WAYLAND_DISPLAY is not set")
        #expect(WlrootsProbe.open(environment: ["WAYLAND_DISPLAY": "wayland-1"]).failure?.description
            == "wlroots: XDG_RUNTIME_DIR is not set (WAYLAND_DISPLAY=wayland-1 names a socket in it)")
        let empty = try TemporaryDirectory()
        let missing = WlrootsProbe.open(environment: ["WAYLAND_DISPLAY": "wayland-9", "XDG_RUNTIME_DIR": empty.path])
        #expect(missing.failure?.reason.hasPrefix("cannot connect to the compositor at wayland-9 (\(empty.path)/wayland-9): connect: ") == true,
                "\(String(describing: missing.failure))")
    }
}

/// Each toplevel's changes count only once its `done` came (pure).
@Suite struct ToplevelListTests {
    let a = WaylandToplevelID(rawValue: 7), b = WaylandToplevelID(rawValue: 9)

    /// Applies `events`; whether the last one changed what the list shows.
    func apply(_ list: inout ToplevelList, _ events: WaylandEvent...) -> Bool {
        var changed = false
        for event in events { changed = list.apply(event) }
        return changed
    }

    @Test func changesWaitForTheirDone() {
        var list = ToplevelList()
        let early = apply(&list, .toplevelAdded(a), .appID(a, "alpha"), .state(a, activated: true))
        #expect(!early && list.activated == nil, "nothing before done")
        let done = apply(&list, .done(a))
        #expect(done && list.activated?.appID == "alpha")
        let halfBatch = apply(&list, .title(a, "half a batch"))
        #expect(!halfBatch && list.activated?.title == "", "a title without its done is not shown")
        let titled = apply(&list, .done(a))
        #expect(titled && list.activated?.title == "half a batch")
        let again = apply(&list, .done(a))
        #expect(!again, "a done with nothing new changes nothing")
    }

    @Test func theLastActivatedWinsAndClosedToplevelsGo() {
        var list = ToplevelList()
        for (id, app) in [(a, "alpha"), (b, "beta")] {
            _ = apply(&list, .toplevelAdded(id), .appID(id, app), .state(id, activated: true), .done(id))
        }
        #expect(list.activated?.appID == "beta")
        _ = apply(&list, .state(a, activated: false), .done(a), .state(a, activated: true), .done(a))
        #expect(list.activated?.appID == "alpha", "re-activated last")
        let closedA = apply(&list, .closed(a))
        #expect(closedA && list.activated?.appID == "beta")
        let closedB = apply(&list, .closed(b))
        #expect(closedB && list.activated == nil && list.current.isEmpty)
        let twice = apply(&list, .closed(b))
        #expect(!twice)
    }
}

extension Result {
    fileprivate var failure: Failure? {
        if case let .failure(failure) = self { return failure }
        return nil
    }
}
