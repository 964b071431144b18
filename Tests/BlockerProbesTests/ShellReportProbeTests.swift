import BlockerCore
@testable import BlockerProbes
import BlockerSystemd
import Foundation
import Testing
import TestSupport

/// The reports of a desktop's shell plugin, read as the gnome and kde probes read them.
@Suite struct FocusReportTests {
    @Test func aReportNamesTheWindowByItsFlatpakThenAppThenDesktopFileID() throws {
        let full: [String: BusValue] = ["focused": .bool(true), "app-id": .string("org.gnome.Nautilus"),
                                        "sandboxed-app-id": .string("com.discordapp.Discord"),
                                        "wm-class": .string("discord"), "title": .string("#general"),
                                        "pid": .int32(getpid())]
        let reading = try FocusReport.reading(from: full).get()
        #expect(reading.window?.appID == "com.discordapp.Discord")
        #expect(reading.window?.wmClass == "discord" && reading.window?.title == "#general")
        #expect(reading.window?.pid == getpid() && reading.window?.exe != nil)
        #expect(reading.locked == false)

        let kwin: [String: BusValue] = ["focused": .bool(true), "desktop-file": .string("org.kde.dolphin.desktop"),
                                        "wm-class": .string("dolphin"), "pid": .double(1234)]
        let dolphin = try FocusReport.reading(from: kwin).get().window
        #expect(dolphin?.appID == "org.kde.dolphin" && dolphin?.wmClass == "dolphin" && dolphin?.pid == 1234)
    }

    @Test func nothingInFrontAndTheLockScreenAreReadings() throws {
        #expect(try FocusReport.reading(from: ["focused": .bool(false)]).get() == Reading(window: nil))
        #expect(try FocusReport.reading(from: ["focused": .bool(false), "locked": .bool(true)]).get()
            == Reading(window: nil, locked: true))
    }

    @Test(arguments: [
        (["app-id": BusValue.string("x")], "the report has no 'focused' (b) entry"),
        (["focused": BusValue.string("yes")], "'focused' must be a boolean (b), not s"),
        (["focused": BusValue.bool(true), "title": .int32(3)], "'title' must be a string (s), not i"),
        (["focused": BusValue.bool(true), "pid": .double(1.5)], "'pid' must be a positive integer, not double(1.5)"),
        (["focused": BusValue.bool(true), "pid": .int32(-4)], "'pid' must be a positive integer, not int32(-4)"),
        (["focused": BusValue.bool(false), "locked": .string("no")], "'locked' must be a boolean (b), not s"),
    ])
    func aMalformedReportIsRefusedSayingWhichEntry(entries: [String: BusValue], why: String) {
        #expect(FocusReport.reading(from: entries).map { _ in "" } == .failure(FocusReport.Invalid(description: why)))
    }

    @Test func aHugeTitleIsCutAtACharacterBoundary() throws {
        let title = String(repeating: "é", count: 10_000)
        let cut = try FocusReport.reading(from: ["focused": .bool(true), "title": .string(title)]).get().window?.title
        #expect(cut?.utf8.count == FocusReport.maxTextBytes && cut?.allSatisfy { $0 == "é" } == true)
    }
}

/// `probe = "gnome"` against a real dbus-daemon and a fake GNOME Shell
/// (python3-dbusmock owning org.gnome.Shell); the real shell and extension
/// are tested by scripts/itest-gnome.sh.
@Suite(.serialized) struct ShellReportProbeFakeShellTests {
    private func sample(_ probe: ShellReportProbe, until condition: (Result<Reading, ProbeFailure>) -> Bool) throws
        -> Result<Reading, ProbeFailure> {
        var last = probe.sample()
        try waitUntil("the probe to read the report (last: \(last))") {
            last = probe.sample()
            return condition(last)
        }
        return last
    }

    @Test func theShellsReportsAreTheForegroundAndNobodyElseCanReport() throws {
        let bus = try SessionTestBus()
        try bus.startFakeGnomeShell(extensionState: 1)
        let probe = try ShellReportProbe.open(GnomeShell(environment: [:]), environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address]).get()
        #expect(probe.name == "gnome")
        // Before any report: a failure that says so, not "nothing in front".
        guard case let .failure(waiting) = probe.sample() else { Issue.record("a reading before any report"); return }
        #expect(waiting.message == "GNOME Shell: it has not reported the window in front yet")

        try bus.sendReport(["3", "focused", "b", "true", "app-id", "s", "org.gnome.Terminal", "title", "s", "~"])
        let reading = try sample(probe) { (try? $0.get())?.window != nil }
        #expect(try reading.get().window?.appID == "org.gnome.Terminal" && reading.get().window?.title == "~")

        try bus.sendReport(["2", "focused", "b", "false", "locked", "b", "true"])
        _ = try sample(probe) { (try? $0.get()) == Reading(window: nil, locked: true) }

        // Another program of the same user calling Report is refused.
        let impostor = try #require(try? ChildProcess(["busctl", "--address=\(bus.address)", "call", FocusReport.busName,
                                                       FocusReport.objectPath, FocusReport.interface, "Report", "a{sv}",
                                                       "2", "focused", "b", "true", "app-id", "s", "calculator"],
                                                      environment: [:]))
        try waitUntil("busctl to get its answer") { probe.drainEvents(); return !impostor.isRunning }
        #expect(probe.reportsRefused == 1)
        #expect(try probe.sample().get() == Reading(window: nil, locked: true))

        // A malformed report from the shell is refused with the reason, and changes nothing.
        try bus.sendReport(["1", "focused", "s", "yes"])
        try waitUntil("the refusal to reach the shell") {
            probe.drainEvents()
            return ((try? String(contentsOfFile: bus.reportErrors, encoding: .utf8)) ?? "")
                .contains("org.freedesktop.DBus.Error.InvalidArgs: 'focused' must be a boolean (b), not s")
        }
        #expect(try probe.sample().get() == Reading(window: nil, locked: true))
    }

    @Test func reportsReplacedBeforeASampleAreKeptForTheCoverFilter() throws {
        let bus = try SessionTestBus()
        try bus.startFakeGnomeShell(extensionState: 1)
        let probe = try ShellReportProbe.open(GnomeShell(environment: [:]), environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address]).get()
        try bus.sendReport(["2", "focused", "b", "true", "wm-class", "s", "discord"])
        _ = try sample(probe) { (try? $0.get())?.window?.wmClass == "discord" }
        #expect(probe.takeSkippedFocus().isEmpty, "a report the sample read is no skip")
        // A switch and the cover taking the focus back, both before the next sample.
        try bus.sendReport(["2", "focused", "b", "true", "wm-class", "s", "notes"])
        try bus.sendReport(["2", "focused", "b", "true", "wm-class", "s", "blocker-overlay"])
        try waitUntil("both reports to arrive") { probe.drainEvents(); return probe.reportsAccepted == 3 }
        #expect(try probe.sample().get().window?.wmClass == "blocker-overlay")
        #expect(probe.takeSkippedFocus().map { $0?.wmClass } == ["notes"])
        #expect(probe.takeSkippedFocus().isEmpty, "taken once")
    }

    @Test func aShellWithoutTheExtensionIsPassedOverSayingHowToInstallIt() throws {
        let bus = try SessionTestBus()
        try bus.startFakeGnomeShell(extensionState: nil)
        let opened = ShellReportProbe.open(GnomeShell(environment: [:]), environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        guard case let .failure(why) = opened else { Issue.record("opened without the extension"); return }
        #expect(why.description.hasPrefix("gnome: the blocker extension is not installed: run `make install`"))
    }

    @Test func anExtensionInstalledSinceLoginSaysToLogOutAndIn() throws {
        let bus = try SessionTestBus()
        try bus.startFakeGnomeShell(extensionState: nil)
        let data = try TemporaryDirectory()
        try data.write("gnome-shell/extensions/blocker@blockerd.github.io/metadata.json", "{}")
        let environment = ["DBUS_SESSION_BUS_ADDRESS": bus.address, "XDG_DATA_HOME": data.path]
        let opened = ShellReportProbe.open(GnomeShell(environment: environment), environment: environment)
        guard case let .failure(why) = opened else { Issue.record("opened without the extension loaded"); return }
        #expect(why.description.contains("is installed (\(data.path)/gnome-shell/extensions/blocker@blockerd.github.io) "
            + "but GNOME Shell has not loaded it yet: log out and back in"))
    }

    @Test func aDisabledExtensionSaysHowToEnableIt() throws {
        let bus = try SessionTestBus()
        try bus.startFakeGnomeShell(extensionState: 2)
        let opened = ShellReportProbe.open(GnomeShell(environment: [:]), environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        guard case let .failure(why) = opened else { Issue.record("opened with the extension disabled"); return }
        #expect(why.description.contains("gnome-extensions enable blocker@blockerd.github.io"))
    }

    @Test func theBusNameIsOneProbesAtATime() throws {
        let bus = try SessionTestBus()
        try bus.startFakeGnomeShell(extensionState: 1)
        let environment = ["DBUS_SESSION_BUS_ADDRESS": bus.address]
        let first = try ShellReportProbe.open(GnomeShell(environment: [:]), environment: environment).get()
        let second = ShellReportProbe.open(GnomeShell(environment: [:]), environment: environment)
        guard case let .failure(why) = second else { Issue.record("two probes own the name"); return }
        #expect(why.description.contains("io.github.blockerd.Focus is already taken by pid \(getpid())"))
        _ = first
    }

    @Test func whenTheShellLeavesItsLastReportNoLongerCounts() throws {
        let bus = try SessionTestBus()
        try bus.startFakeGnomeShell(extensionState: 1)
        let probe = try ShellReportProbe.open(GnomeShell(environment: [:]), environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address]).get()
        try bus.sendReport(["2", "focused", "b", "true", "wm-class", "s", "firefox"])
        _ = try sample(probe) { (try? $0.get())?.window?.wmClass == "firefox" }
        bus.stopServices()
        let gone = try sample(probe) { if case .failure = $0 { return true } else { return false } }
        #expect(gone.map { _ in "" } == .failure(ProbeFailure(
            "GNOME Shell is not on the session bus (org.gnome.Shell has no owner)")))
    }
}

/// The plugin switched off while the shell runs: GNOME's extension disabled
/// (a fake GNOME Shell emits ExtensionStateChanged), the KWin script unloaded
/// (a fake KWin answers isScriptLoaded). The last report must not stand.
@Suite(.serialized) struct ShellPluginGoneFakeShellTests {
    private func waitForFailure(_ probe: ShellReportProbe, containing text: String, within seconds: Double) throws {
        let started = Date()
        try waitUntil("the probe to fail with '\(text)'", timeout: seconds) {
            if case let .failure(failure) = probe.sample() { return failure.message.contains(text) }
            usleep(20_000)
            return false
        }
        #expect(Date().timeIntervalSince(started) < seconds)
    }

    private func waitForWindow(_ probe: ShellReportProbe, _ wmClass: String) throws {
        try waitUntil("the probe to read \(wmClass)") {
            (try? probe.sample().get())?.window?.wmClass == wmClass
        }
    }

    @Test func aDisabledExtensionBlindsTheProbeAtOnceAndEnablingItAgainRecovers() throws {
        let bus = try SessionTestBus()
        try bus.startFakeGnomeShell(extensionState: 1)
        let probe = try ShellReportProbe.open(GnomeShell(environment: [:]), environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address]).get()
        try bus.sendReport(["2", "focused", "b", "true", "wm-class", "s", "discord"])
        try waitForWindow(probe, "discord")

        try bus.setExtensionState(2)   // gnome-extensions disable
        try waitForFailure(probe, containing: "GNOME Shell: the blocker extension is not enabled (state disabled): "
            + "gnome-extensions enable blocker@blockerd.github.io", within: 2)

        try bus.setExtensionState(1)   // enabled again: the extension reports as it starts
        try bus.sendReport(["2", "focused", "b", "true", "wm-class", "s", "firefox"])
        try waitForWindow(probe, "firefox")
        // Another extension's state changes nothing.
        try bus.busctl(["call", "org.gnome.Shell", "/org/gnome/Shell", "org.freedesktop.DBus.Mock", "EmitSignal",
                        "sssav", "org.gnome.Shell.Extensions", "ExtensionStateChanged", "sa{sv}", "2",
                        "s", "other@example.com", "a{sv}", "1", "state", "d", "2"])
        usleep(200_000)
        #expect((try? probe.sample().get())?.window?.wmClass == "firefox")
    }

    @Test func anUnloadedKWinScriptIsNoticedWithinTheCheckIntervalAndLoadingItRecovers() throws {
        let bus = try SessionTestBus()
        try bus.startFakeKWin(scriptLoaded: true)
        let data = try TemporaryDirectory()
        try data.write("kwin/scripts/blocker/contents/code/main.js", "// the script")
        let environment = ["DBUS_SESSION_BUS_ADDRESS": bus.address, "XDG_DATA_HOME": data.path]
        let shell = KWinShell(environment: environment, scriptCheckEveryMs: 300)
        let probe = try ShellReportProbe.open(shell, environment: environment).get()
        #expect(probe.nextCheck != nil)
        try bus.sendReport(["2", "focused", "b", "true", "wm-class", "s", "discord"], from: "org.kde.KWin")
        try waitForWindow(probe, "discord")

        try bus.busctl(["call", "org.kde.KWin", "/Scripting", "org.kde.kwin.Scripting", "unloadScript", "s", "blocker"])
        try waitForFailure(probe, containing: "KWin: the blocker KWin script is not loaded", within: 2)

        try bus.busctl(["call", "org.kde.KWin", "/Scripting", "org.kde.kwin.Scripting", "loadScript", "ss",
                        "main.js", "blocker"])
        try bus.sendReport(["2", "focused", "b", "true", "wm-class", "s", "firefox"], from: "org.kde.KWin")
        try waitForWindow(probe, "firefox")
    }

    /// The check runs every few seconds for good: an answer that the script
    /// still runs must not wake a tick (it was most of an idle KDE blockerd's CPU).
    @Test func aCheckThatFindsTheScriptRunningChangesNothingAndOneThatFindsItGoneDoes() throws {
        let bus = try SessionTestBus()
        try bus.startFakeKWin(scriptLoaded: true)
        let data = try TemporaryDirectory()
        try data.write("kwin/scripts/blocker/contents/code/main.js", "// the script")
        let environment = ["DBUS_SESSION_BUS_ADDRESS": bus.address, "XDG_DATA_HOME": data.path]
        let probe = try ShellReportProbe.open(KWinShell(environment: environment, scriptCheckEveryMs: 50),
                                              environment: environment).get()
        try bus.sendReport(["2", "focused", "b", "true", "wm-class", "s", "discord"], from: "org.kde.KWin")
        try waitForWindow(probe, "discord")

        let answered = probe.pluginAnswers
        var changed = false
        try waitUntil("KWin to answer a check") {
            usleep(60_000)
            probe.check()
            usleep(20_000)
            changed = changed || probe.drainEventsMayHaveChanged()
            return probe.pluginAnswers > answered
        }
        #expect(!changed)

        try bus.busctl(["call", "org.kde.KWin", "/Scripting", "org.kde.kwin.Scripting", "unloadScript", "s", "blocker"])
        try waitUntil("a check to find the script gone") {
            usleep(60_000)
            probe.check()
            usleep(20_000)
            return probe.drainEventsMayHaveChanged()
        }
        if case let .failure(failure) = probe.sample() {
            #expect(failure.message.contains("the blocker KWin script is not loaded"))
        } else {
            Issue.record("the probe still reads a window with the script gone")
        }
    }
}
