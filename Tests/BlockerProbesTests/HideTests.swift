import BlockerCore
import Foundation
import Glibc
import Testing
import TestSupport
@testable import BlockerProbes

/// "Not now" hides the window in front: each probe against the server its
/// other tests run (Xvfb + openbox, a headless sway, the fake Hyprland),
/// checked by the server's own tools, not by the probe.
@Suite(.serialized) struct X11HideTests {
    /// `xprop -id W WM_STATE`, `xwininfo -id W`, `xprop -id W _NET_WM_STATE`: what the server and openbox say.
    func looks(_ server: X11Server, _ window: UInt32) throws -> (wmState: String, mapState: String, netState: String) {
        let id = String(window)
        let mapState = try server.run(["xwininfo", "-id", id]).split(separator: "\n")
            .first { $0.contains("Map State:") }.map(String.init) ?? "no Map State"
        return (try server.run(["xprop", "-id", id, "WM_STATE"]), mapState, try server.run(["xprop", "-id", id, "_NET_WM_STATE"]))
    }

    @Test func hidingIconifiesTheWindowAndActivatingItBringsItBack() throws {
        let x = try X11Scene(X11ProbeTests.twoTerms)
        let (server, probe, alpha) = (x.server, x.probe, x.alpha)
        // openbox may activate it a moment after the scene is up (a loaded machine).
        try server.waitFor("alpha in front") { try x.front()?.handle == .x11(alpha.window) }
        let front = try #require(try x.front())
        #expect(front.wmClass == "AlphaTerm" && front.handle == .x11(alpha.window))
        #expect(try looks(server, alpha.window).mapState.contains("IsViewable"))

        #expect(probe.hide(front) == .hidden)
        try server.waitFor("openbox to unmap it") { try looks(server, alpha.window).mapState.contains("IsUnMapped") }
        let hidden = try looks(server, alpha.window)
        #expect(hidden.wmState.contains("window state: Iconic"), "\(hidden.wmState)")
        #expect(hidden.netState.contains("_NET_WM_STATE_HIDDEN"), "\(hidden.netState)")
        // openbox gives the focus to beta: the probe sees it without being told.
        try server.waitFor("the probe to see alpha gone from the front") {
            try probe.sample().get().window?.handle != .x11(alpha.window)
        }
        #expect(try probe.sample().get().window?.wmClass == "BetaTerm")

        // Reversible, nothing lost: the same window, back in front.
        try server.activate(alpha.window)
        try server.waitFor("openbox to map it again") { try looks(server, alpha.window).mapState.contains("IsViewable") }
        try server.waitFor("the probe to see alpha back") { try probe.sample().get().window?.handle == .x11(alpha.window) }
        #expect(try x.front()?.title == "alpha window")
    }

    /// openbox does not iconify a window it does not manage (an unmapped
    /// one): hide says so after the reply timeout, never `.hidden`.
    @Test func aWindowTheWindowManagerDoesNotIconifyFails() throws {
        let x = try X11Scene()
        let client = try TestXClient(display: x.server.display)
        let id = client.newId()
        client.createWindow(id, wmClass: "Unmanaged", pid: 4242)
        client.setActive(id)
        try x.server.waitFor("the probe to see the unmanaged window") { try x.front()?.wmClass == "Unmanaged" }
        let front = try #require(try x.front())
        #expect(front.handle == .x11(id))

        let started = Date()
        let result = x.probe.hide(front)
        let took = Date().timeIntervalSince(started)
        #expect(result == .failed("the window manager did not iconify Unmanaged within 500 ms "
            + "(it may not take ICCCM's WM_CHANGE_STATE requests)"))
        #expect(took >= 0.5 && took < 1.5, "took \(took) s")
        #expect(!(try x.server.run(["xprop", "-id", String(id), "WM_STATE"]).contains("Iconic")))
    }

    @Test func aClosedWindowOrOneFromElsewhereFails() throws {
        let x = try X11Scene([("AlphaTerm", "soon gone")])
        let (server, probe, alpha) = (x.server, x.probe, x.alpha)
        let front = try #require(try x.front())

        #expect(probe.hide(Window(appID: "discord")) == .failed("discord was not read from an X server (it has no X window id)"))
        var fromSway = front
        fromSway.handle = .sway(4)
        #expect(probe.hide(fromSway) == .failed("AlphaTerm was not read from an X server (it has no X window id)"))

        alpha.process.stop()
        try server.waitFor("the window to be destroyed") {
            (try? server.run(["xprop", "-id", String(alpha.window), "WM_CLASS"])) == nil
        }
        #expect(probe.hide(front) == .failed("window \(XWindow(rawValue: alpha.window)) (AlphaTerm) is gone"))
        // The connection is not the worse for it.
        #expect(throws: Never.self) { try probe.sample().get() }
        #expect(probe.eventDescriptor != nil)
    }
}

@Suite(.serialized) struct SwayHideTests {
    /// The ids of the views in sway's scratchpad (the `__i3_scratch` workspace), from `swaymsg -t get_tree`.
    func scratchpad(_ sway: SwayHeadless) throws -> [Int] {
        let tree = try JSONSerialization.jsonObject(with: Data(try sway.swaymsg(["-t", "get_tree"]).utf8))
        func find(_ node: [String: Any]) -> [String: Any]? {
            if node["type"] as? String == "workspace" && node["name"] as? String == "__i3_scratch" { return node }
            for child in node["nodes"] as? [[String: Any]] ?? [] { if let found = find(child) { return found } }
            return nil
        }
        let workspace = try #require((tree as? [String: Any]).flatMap(find), "no __i3_scratch workspace in the tree")
        return ((workspace["floating_nodes"] as? [[String: Any]] ?? []) + (workspace["nodes"] as? [[String: Any]] ?? []))
            .compactMap { $0["id"] as? Int }
    }

    @Test func hidingMovesTheViewToTheScratchpad() throws {
        let sway = try SwayHeadless()
        defer { sway.close() }
        let alpha = try sway.openFoot(appID: "alpha", title: "Alpha notes")
        let beta = try sway.openFoot(appID: "beta", title: "Beta chat")
        let probe = try SwayProbe.open(environment: ["SWAYSOCK": sway.socketPath]).get()
        let front = try #require(try probe.sample().get().window)
        #expect(front.appID == "beta" && front.handle == .sway(beta.id))
        #expect(try scratchpad(sway).isEmpty)

        #expect(probe.hide(front) == .hidden)
        #expect(try scratchpad(sway) == [beta.id])
        #expect(try sway.views().first { $0.id == alpha.id }?.focused == true, "sway focuses what was behind it")
        let next = try #require(try probe.sample().get().window)
        #expect(next.appID == "alpha" && next.handle == .sway(alpha.id))

        // Reversible: `scratchpad show` brings the same view back, in front.
        try sway.swaymsg(["[con_id=\(beta.id)] scratchpad show"])
        #expect(try scratchpad(sway).isEmpty)
        #expect(swayTestReadable(probe.eventDescriptor, timeoutMs: 2000))
        #expect(try probe.sample().get().window?.handle == .sway(beta.id))
    }

    @Test func aGoneViewOrOneFromElsewhereFailsAndTheProbeCarriesOn() throws {
        let sway = try SwayHeadless()
        defer { sway.close() }
        _ = try sway.openFoot(appID: "alpha", title: "Alpha notes")
        let probe = try SwayProbe.open(environment: ["SWAYSOCK": sway.socketPath]).get()
        let front = try #require(try probe.sample().get().window)

        #expect(probe.hide(Window(appID: "discord", handle: .x11(7))) == .failed("discord was not read from sway (it has no con_id)"))
        var gone = front
        gone.handle = .sway(987_654)
        guard case let .failed(why) = probe.hide(gone) else {
            Issue.record("hiding a con_id sway does not have did not fail")
            return
        }
        #expect(why.hasPrefix("sway refused `[con_id=987654] move scratchpad`: "), "\(why)")
        #expect(try scratchpad(sway).isEmpty)
        #expect(try probe.sample().get().window == front, "the connection is kept")
    }
}

@Suite struct HyprlandHideTests {
    typealias Instance = HyprlandProbeWithFakeServerTests.Instance

    @Test func hidingMovesTheWindowToASpecialWorkspaceSilently() throws {
        let instance = try Instance()
        defer { instance.close() }
        let pid = instance.app.processIdentifier
        instance.server.setActiveWindow(HyprlandProbeWithFakeServerTests.activeWindowJSON(class: "discord", title: "#general", pid: pid))
        let probe = try instance.openProbe()
        let front = try #require(try probe.sample().get().window)
        #expect(front.handle == .hyprland(address: "0x55d0a8b0c6f0"))

        #expect(probe.hide(front) == .hidden)
        #expect(instance.server.requests == ["j/activewindow", "/dispatch movetoworkspacesilent special:blocker,address:0x55d0a8b0c6f0"])
        // Whatever its event says, the next sample asks again.
        _ = try probe.sample().get()
        #expect(instance.server.requests.last == "j/activewindow")
    }

    @Test func hyprlandsRefusalOrABadAddressFails() throws {
        let instance = try Instance()
        defer { instance.close() }
        let probe = try instance.openProbe()
        instance.server.setDispatchAnswer("Window not found")
        #expect(probe.hide(Window(appID: "discord", handle: .hyprland(address: "0x55d0a8b0c6f0")))
            == .failed("Hyprland did not move discord to special:blocker: Window not found"))

        let sent = instance.server.requests.count
        #expect(probe.hide(Window(appID: "discord", handle: .hyprland(address: "0x1 ; dispatch exit")))
            == .failed("discord's Hyprland address \"0x1 ; dispatch exit\" is not 0x and hex digits"))
        #expect(probe.hide(Window(appID: "discord", handle: .sway(3))) == .failed("discord was not read from Hyprland (it has no window address)"))
        #expect(instance.server.requests.count == sent, "nothing sent for a window it cannot name")
    }
}

/// Probes with no way to hide a window say so; the wrappers ask the probe they wrap.
@Suite struct HideElsewhereTests {
    final class HidingProbe: ForegroundProbe {
        let name = "fake"
        var asked: [Window] = []
        func sample() -> Result<Reading, ProbeFailure> { .success(Reading(window: nil)) }
        func hide(_ window: Window) -> HideResult {
            asked.append(window)
            return .failed("the fake refuses")
        }
    }

    @Test func theSessionLockWrapperForwardsHide() {
        let inner = HidingProbe()
        let wrapped = LockAwareProbe(inner, session: SessionLock(environment: [:]))
        let window = Window(appID: "discord", handle: .x11(0x1a00003))
        #expect(wrapped.hide(window) == .failed("the fake refuses"))
        #expect(inner.asked == [window])
    }

    @Test func probesWithoutAWayToHideSaySo() {
        let window = Window(appID: "discord")
        #expect(UnavailableProbe(name: "none", reason: "no display").hide(window) == .unsupported("this probe cannot hide windows"))
        #expect(CommandProbe(argv: ["true"], timeoutMs: 1000).hide(window) == .unsupported("this probe cannot hide windows"))
        let gnome = ShellReportProbe(shell: GnomeShell(environment: [:]), address: "unix:path=/nonexistent")
        #expect(gnome.hide(window) == .failed("not connected to the session bus"))
        #expect(HideResult.failed("the window is gone").description == "could not hide the window: the window is gone")
    }
}

/// KWin lets no program call into blocker's script, so "Not now" loads a
/// one-shot script (`KWinShell.hideScript`). The load is checked against the
/// fake KWin of the probe's tests; the script itself runs in gjs against a
/// stand-in `workspace` (a real KWin runs it in itest-kde and itest-kde6).
@Suite struct KWinHideTests {
    @Test func hidingWritesTheScriptAndHasKWinLoadAndStartIt() throws {
        let bus = try SessionTestBus()
        try bus.startFakeKWin(scriptLoaded: true)
        let runtime = try TemporaryDirectory()
        let environment = ["DBUS_SESSION_BUS_ADDRESS": bus.address, "XDG_RUNTIME_DIR": runtime.path]
        let probe = try ShellReportProbe.open(KWinShell(environment: environment), environment: environment).get()
        let window = Window(wmInstance: "xterm", wmClass: "XTerm", title: "Discord", pid: 4242)

        #expect(probe.hide(window) == .hidden)
        let loaded = try bus.busctl(["call", "org.kde.KWin", "/Scripting", "org.kde.kwin.Scripting",
                                     "isScriptLoaded", "s", KWinShell.hideScriptName])
        #expect(loaded == "b true\n")
        let script = try String(contentsOfFile: runtime.file("blocker-kwin-hide.js"), encoding: .utf8)
        #expect(script == KWinShell.hideScript(for: window))
        // A second "Not now" loads the script again under the same name.
        #expect(probe.hide(window) == .hidden)
    }

    @Test func withoutARuntimeDirectoryOrAWindowNameItFails() throws {
        let bus = try SessionTestBus()
        try bus.startFakeKWin(scriptLoaded: true)
        let environment = ["DBUS_SESSION_BUS_ADDRESS": bus.address]
        let probe = try ShellReportProbe.open(KWinShell(environment: environment), environment: environment).get()
        #expect(probe.hide(Window(wmClass: "XTerm", pid: 1)) == .failed("$XDG_RUNTIME_DIR is not set: nowhere to write KWin a script"))
        probe.shutdown()
        let runtime = try TemporaryDirectory()
        let named = ["DBUS_SESSION_BUS_ADDRESS": bus.address, "XDG_RUNTIME_DIR": runtime.path]
        let withRuntime = try ShellReportProbe.open(KWinShell(environment: named), environment: named).get()
        #expect(withRuntime.hide(Window(title: "no pid, no class")) == .failed("KWin named neither the window's process nor its class"))
    }

    /// The windows the stand-in workspace holds: [pid, class, instance, caption, normal, minimized].
    static let windows: [(Int, String, String, String, Bool, Bool)] = [
        (4242, "XTerm", "xterm", "Discord", true, false),       // the paused one
        (4242, "XTerm", "xterm", "another tab", true, false),   // same process, another title: stays
        (5151, "XTerm", "xterm", "Discord", true, false),       // another process: stays
        (4242, "XTerm", "xterm", "Discord", false, false),      // not a normal window (a dialog): stays
    ]

    /// Runs the script in gjs against `windows` (as Plasma 6's or 5's API) and
    /// says which ended minimized.
    func minimized(by window: Window, plasma6: Bool) throws -> [Bool] {
        let list = Self.windows.map { pid, cls, name, caption, normal, minimized in
            "{pid: \(pid), resourceClass: \"\(cls)\", resourceName: \"\(name)\", caption: \"\(caption)\", "
                + "normalWindow: \(normal), minimized: \(minimized)}"
        }.joined(separator: ", ")
        let harness = """
            const windows = [\(list)];
            globalThis.workspace = \(plasma6 ? "{windowList: () => windows}" : "{clientList: () => windows}");
            (0, eval)(ARGV[0]);
            print(JSON.stringify(windows.map(w => w.minimized)));
            """
        let directory = try TemporaryDirectory()
        let path = try directory.write("harness.js", harness)
        let out = try output(of: ["gjs", path, KWinShell.hideScript(for: window)])
        return try #require(try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [Bool])
    }

    @Test func theScriptMinimizesOnlyTheWindowOfThatProcessClassAndTitle() throws {
        let paused = Window(wmInstance: "xterm", wmClass: "XTerm", title: "Discord", pid: 4242)
        #expect(try minimized(by: paused, plasma6: true) == [true, false, false, false])
        #expect(try minimized(by: paused, plasma6: false) == [true, false, false, false])
        // The title changed since the report: every window of that process and class.
        let retitled = Window(wmInstance: "xterm", wmClass: "XTerm", title: "Discord (3)", pid: 4242)
        #expect(try minimized(by: retitled, plasma6: true) == [true, true, false, false])
    }

    @Test func aTitleCannotBreakOutOfItsString() throws {
        let hostile = "\"; workspace.windowList().forEach(w => w.minimized = true); \"\u{2028}\\"
        let window = Window(wmInstance: "xterm", wmClass: "XTerm", title: hostile, pid: 4242)
        // Nothing has that title: the windows of the process and class, and only those.
        #expect(try minimized(by: window, plasma6: true) == [true, true, false, false])
        #expect(KWinShell.hideScript(for: window).contains("\\u2028"))
    }
}
