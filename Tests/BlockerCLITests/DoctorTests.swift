@testable import BlockerBus
@testable import BlockerCLI
import BlockerCore
import Testing
import TestSupport

@Suite struct DoctorVerdictTests {
    /// A machine where everything is right.
    static func healthy() -> DoctorFacts {
        DoctorFacts(
            environment: ["XDG_SESSION_TYPE": "x11", "DISPLAY": ":0"],
            probeChoice: .auto, probeName: "x11", probePassedOver: ["hyprland: HYPRLAND_INSTANCE_SIGNATURE is not set"],
            probeSample: .window(.init(app: "firefox", title: "t", pid: 1, groups: []), locked: false),
            managerEnvironment: .exited(0, "HOME=/home/u\nDISPLAY=:0\nPATH=/usr/bin\n"),
            units: Doctor.units.map { .init(name: $0.name, enabled: .exited(0, "enabled\n"), active: .exited(0, "active\n")) },
            configPath: "/home/u/.config/blocker/blocker.toml", config: .success((groups: 2, exercises: 1)),
            ledgerPath: "/home/u/.local/state/blocker/blocker.db",
            ledger: .present(.init(isRegularFile: true, isDirectory: false, permissions: 0o600, ownerUID: 1000), readFailure: nil),
            userID: 1000, journal: .exited(0, ""), daemon: .success(RecordingCalls.sampleReport))
    }

    func check(_ subject: String, in facts: DoctorFacts) throws -> DoctorCheck {
        try #require(Doctor.verdicts(facts).first { $0.subject == subject })
    }

    @Test func aHealthyMachineIsAllOK() {
        let checks = Doctor.verdicts(Self.healthy())
        #expect(checks.map(\.subject) == ["session", "probe", "user manager", "blockerd.service", "blockerd-watchdog.timer",
                                          "blocker-overlay.service", "session environment", "sandbox", "config", "ledger", "journal", "daemon"])
        #expect(checks.allSatisfy { $0.level == .ok && $0.fix == nil })
        #expect(checks[1].detail == "auto → x11 answers: firefox is in front")
        #expect(checks[6].detail == "imported: DISPLAY=:0")
    }

    @Test func syncSaysTheDeviceAndTheOthersOrWhySyncIsOff() throws {
        var facts = Self.healthy()
        #expect(Doctor.sync(facts) == nil, "no [sync]: nothing to check")
        var report = RecordingCalls.sampleReport
        report.sync = SyncStatus(folder: "/home/u/Sync/blocker", device: "0123456789abcdef", problem: nil, records: 12,
                                 devices: [SyncStatus.Device(id: "fedcba9876543210", records: 3, lastAt: nil, earnedMs: 0,
                                                             spentMs: 60_000)])
        facts.daemon = .success(report)
        #expect(StatusReport(busDictionary: report.busDictionary)?.sync == report.sync, "Status carries it whole")
        let working = try check("sync", in: facts)
        #expect(working.level == .ok && working.detail == "device 0123456789abcdef in /home/u/Sync/blocker, 1 other machine read (blockerctl devices)")
        report.sync?.problem = "/home/u/Sync/blocker: no sync folder: it does not exist"
        facts.daemon = .success(report)
        let off = try check("sync", in: facts)
        #expect(off.level == .warn && off.detail.hasSuffix("the balance is this machine's own") && off.fix?.contains("Several machines") == true)
    }

    @Test func sitesNeedTheBrowserExtensionAndDoctorSaysWhenItIsMissing() throws {
        var facts = Self.healthy()
        #expect(Doctor.browserExtension(facts) == nil, "no sites: nothing to check")
        facts.browserHostManifests = [:]
        let none = try check("browser extension", in: facts)
        #expect(none.level == .warn && none.detail.contains("no browser's native messaging host") && none.fix?.hasPrefix("make install") == true)
        facts.browserHostManifests = ["chromium": "/etc/chromium/native-messaging-hosts/io.github.blockerd.browser.json",
                                      "firefox": "/home/u/.mozilla/native-messaging-hosts/io.github.blockerd.browser.json"]
        let installed = try check("browser extension", in: facts)
        #expect(installed.level == .ok && installed.detail.contains("installed for chromium, firefox"))
        // blockerd saw a browser in front without the extension's word.
        var report = RecordingCalls.sampleReport
        report.browsersWithoutExtension = ["Chromium"]
        facts.daemon = .success(report)
        #expect(StatusReport(busDictionary: report.busDictionary)?.browsersWithoutExtension == ["Chromium"])
        let missing = try check("browser extension", in: facts)
        #expect(missing.level == .warn && missing.detail.hasPrefix("Chromium was in front without blocker's extension reporting")
                && missing.fix == Doctor.browserExtensionFix)
    }

    @Test func theSandboxWarnsWhereItCutsTheSessionOff() throws {
        var facts = Self.healthy()
        facts.managerEnvironment = .exited(0, "DISPLAY=:0\nXAUTHORITY=/tmp/xauth_AbCd\n"
                                              + "DBUS_SESSION_BUS_ADDRESS=unix:abstract=/tmp/dbus-x,guid=1\n")
        let verdict = try check("sandbox", in: facts)
        #expect(verdict.level == .warn)
        #expect(verdict.detail.contains("XAUTHORITY=/tmp/xauth_AbCd") && verdict.detail.contains("abstract"))
        #expect(verdict.fix?.contains("PrivateTmp=no") == true && verdict.fix?.contains("PrivateNetwork=no") == true)
        facts.managerEnvironment = .exited(0, "DISPLAY=:0\nXAUTHORITY=/run/user/1000/gdm/Xauthority\n"
                                              + "DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/1000/bus\n")
        #expect(try check("sandbox", in: facts).level == .ok)
    }

    @Test func sessionType() throws {
        var facts = Self.healthy()
        facts.environment = ["XDG_SESSION_TYPE": "wayland", "WAYLAND_DISPLAY": "wayland-1", "DISPLAY": ":1"]
        #expect(try check("session", in: facts) == DoctorCheck(.ok, "session", "wayland (WAYLAND_DISPLAY=wayland-1, XWayland DISPLAY=:1)"))
        facts.environment = ["XDG_SESSION_TYPE": "wayland", "DISPLAY": ":1"]
        #expect(try check("session", in: facts).level == .warn)
        facts.environment = ["XDG_SESSION_TYPE": "tty"]
        let none = try check("session", in: facts)
        #expect(none.level == .warn && none.detail.contains("XDG_SESSION_TYPE=tty") && none.fix != nil)
    }

    /// Issue 20's closing paragraph: on the system's default config nothing is metered; say how to start.
    @Test func onlyTheSystemsConfigWarnsAndSaysHowToStartMetering() throws {
        var facts = Self.healthy()
        facts.configPath = "/etc/xdg/blocker/blocker.toml"
        facts.missingUserConfig = "/home/u/.config/blocker/blocker.toml"
        let verdict = try check("config", in: facts)
        #expect(verdict.level == .warn && verdict.detail.contains("meters nothing"))
        #expect(verdict.fix == "to start: copy /etc/xdg/blocker/blocker.toml to /home/u/.config/blocker/blocker.toml, "
                + "edit it, then blockerctl reload")
        var report = RecordingCalls.sampleReport
        report.systemConfig = "/etc/xdg/blocker/blocker.toml"
        let lines = StatusText.human(report, clock: LocalClock(zone: .utc, label: " UTC"), now: 0,
                                     printer: Printer(output: CapturedOutput(), color: false),
                                     userConfigFile: "/home/u/.config/blocker/blocker.toml")
        #expect(lines.contains { $0.hasPrefix("metering") && $0.contains("only observes") && $0.contains("to start: copy") })
        #expect(StatusText.json(report).rendered.contains("\"system_config\":\"/etc/xdg/blocker/blocker.toml\""))
        #expect(StatusReport(busDictionary: report.busDictionary)?.systemConfig == "/etc/xdg/blocker/blocker.toml")
    }

    /// Row 11 of issue 20: blind time (blockerd ran, its probe could not see) is shown, with how much.
    @Test func blindTimeWarnsWithHowMuch() throws {
        var facts = Self.healthy()
        facts.blindStretches = []
        #expect(try check("blind", in: facts).level == .ok)
        facts.blindStretches = [Gap(from: 0, to: 40_000, reason: Gap.blind("command: timed out (now and then)")),
                                Gap(from: 100_000, to: 120_000, reason: Gap.blind("command: exited with status 1"))]
        let verdict = try check("blind", in: facts)
        #expect(verdict.level == .warn)
        #expect(verdict.detail == "in the last 7 days the probe could not see for 1m 00s in 2 stretches; "
                + "the longest: command: timed out (now and then)")
    }

    /// Row 13 of issue 20: a command probe run once a poll only samples.
    @Test func aCommandProbeRunOnceAPollIsToldAboutStreamMode() throws {
        var facts = Self.healthy()
        facts.probeChoice = .command
        facts.probeName = "command"
        facts.probeCommandMode = .once
        let verdict = try check("sampling", in: facts)
        #expect(verdict.level == .warn && verdict.detail.contains("on average"))
        #expect(verdict.fix?.contains("probe-command-mode = \"stream\"") == true)
        #expect(Doctor.verdicts(facts).map(\.subject).prefix(3) == ["session", "probe", "sampling"])
        facts.probeCommandMode = .stream
        #expect(Doctor.verdicts(facts).allSatisfy { $0.subject != "sampling" })   // exact: nothing to say
    }

    @Test func aProbeThatCannotSampleFails() throws {
        var facts = Self.healthy()
        facts.probeName = "none"
        facts.probePassedOver = ["sway: SWAYSOCK is not set", "x11: DISPLAY is not set"]
        facts.probeSample = .failed("no probe can run here (sway: SWAYSOCK is not set)")
        let verdict = try check("probe", in: facts)
        #expect(verdict.level == .fail)
        // Reasons already in the message are not repeated.
        #expect(verdict.detail == "auto → none cannot sample: no probe can run here (sway: SWAYSOCK is not set) (passed over: x11: DISPLAY is not set)")
    }

    @Test func aGnomeExtensionInstalledSinceLoginSaysToLogOutAndIn() throws {
        var facts = Self.healthy()
        facts.probeChoice = .gnome
        facts.probeName = "gnome"
        let notLoaded = "GNOME Shell: the blocker extension is installed (/home/u/.local/share/gnome-shell/extensions/"
            + "blocker@blockerd.github.io) but GNOME Shell has not loaded it yet: log out and back in"
        facts.probeSample = .failed(notLoaded)
        let probe = try check("probe", in: facts)
        #expect(probe.level == .fail)
        #expect(probe.fix?.hasPrefix("log out and back in: GNOME Shell on Wayland loads a newly installed extension") == true)
        // blockerd says the same of its own probe: the same fix.
        var report = RecordingCalls.sampleReport
        report.probeOK = false
        report.probeName = "gnome"
        report.probeError = notLoaded
        facts.daemon = .success(report)
        let daemon = try check("daemon", in: facts)
        #expect(daemon.level == .warn)
        #expect(daemon.fix?.hasPrefix("log out and back in") == true)
    }

    @Test func aGnomeProbeBesideARunningBlockerdIsNotAFailure() throws {
        var facts = Self.healthy()
        facts.probeChoice = .gnome
        facts.probeName = "gnome"
        facts.probeSample = .failed("io.github.blockerd.Focus is already taken by pid 42 (a running blockerd? …)")
        let probe = try check("probe", in: facts)
        #expect(probe.level == .ok)
        #expect(probe.detail == "gnome: blockerd holds io.github.blockerd.Focus and hears the shell (its probe is in the daemon line)")
    }

    /// blockerd's gnome probe hears the extension switched off: the probe and
    /// daemon lines say so, with `gnome-extensions enable` as the fix.
    @Test func aDisabledGnomeExtensionSaysHowToEnableIt() throws {
        var facts = Self.healthy()
        facts.probeChoice = .gnome
        facts.probeName = "gnome"
        let off = "GNOME Shell: the blocker extension is not enabled (state disabled): gnome-extensions enable "
            + "blocker@blockerd.github.io"
        facts.probeSample = .failed(off)
        var report = RecordingCalls.sampleReport
        report.probeName = "gnome"
        report.probeOK = false
        report.probeError = off
        facts.daemon = .success(report)
        let probe = try check("probe", in: facts)
        #expect(probe.level == .fail && probe.fix == Doctor.gnomeExtensionFix && probe.detail.contains(off))
        let daemon = try check("daemon", in: facts)
        #expect(daemon.level == .warn && daemon.fix == Doctor.gnomeExtensionFix)
        #expect(Doctor.gnomeExtensionFix.hasPrefix("gnome-extensions enable blocker@blockerd.github.io"))
    }

    @Test func aKDEProbeWithoutItsKWinScriptSaysHowToLoadIt() throws {
        var facts = Self.healthy()
        facts.probeChoice = .kde
        facts.probeName = "kde"
        facts.probePassedOver = []
        facts.probeSample = .failed("kde: the blocker KWin script is not loaded: enable it in System Settings")
        let verdict = try check("probe", in: facts)
        #expect(verdict.level == .fail && verdict.fix == Doctor.kwinScriptFix)
        #expect(verdict.fix?.contains("make install") == true && verdict.fix?.contains("KWin Scripts") == true)
        // Other kde failures (KWin not running) keep the general fix.
        facts.probeSample = .failed("KWin is not on the session bus (org.kde.KWin has no owner)")
        #expect(try check("probe", in: facts).fix != Doctor.kwinScriptFix)
    }

    @Test func anUnreachableUserManagerFailsAndSkipsWhatNeedsIt() {
        var facts = Self.healthy()
        facts.managerEnvironment = .exited(1, "")
        let checks = Doctor.verdicts(facts)
        #expect(checks.first { $0.subject == "user manager" }?.level == .fail)
        #expect(checks.first { $0.subject == "user manager" }?.fix == Doctor.managerFix)
        #expect(checks.filter { $0.subject.hasSuffix(".service") || $0.subject.hasSuffix(".timer") }.isEmpty)
        #expect(checks.first { $0.subject == "units" }?.level == .fail)
        #expect(checks.first { $0.subject == "session environment" }?.level == .warn)
        facts.managerEnvironment = .couldNotRun("cannot run systemctl: No such file or directory")
        #expect(Doctor.verdicts(facts).first { $0.subject == "user manager" }?.level == .fail)
    }

    @Test(arguments: [
        ("blockerd.service", "enabled", "active", DoctorCheck.Level.ok, nil as String?),
        ("blockerd.service", "static", "active", .ok, nil),
        ("blockerd.service", "", "inactive", .fail, Doctor.installFix),
        ("blockerd.service", "not-found", "inactive", .fail, Doctor.installFix),
        ("blockerd.service", "masked", "inactive", .fail, "systemctl --user unmask blockerd.service"),
        ("blockerd.service", "disabled", "inactive", .fail, "systemctl --user enable --now blockerd.service"),
        ("blockerd.service", "disabled", "active", .warn, "systemctl --user enable blockerd.service"),
        ("blockerd.service", "enabled", "failed", .fail, "systemctl --user start blockerd.service; see why with: blockerctl logs"),
        ("blockerd-watchdog.timer", "disabled", "inactive", .warn, "systemctl --user enable --now blockerd-watchdog.timer"),
        ("blockerd-watchdog.timer", "enabled", "inactive", .warn,
         "systemctl --user start blockerd-watchdog.timer; see why with: journalctl --user -u blockerd-watchdog.timer"),
        ("blocker-overlay.service", "enabled", "inactive", .fail,
         "systemctl --user start blocker-overlay.service; see why with: journalctl --user -u blocker-overlay.service"),
    ])
    func unitStates(unit: String, enabled: String, active: String, level: DoctorCheck.Level, fix: String?) throws {
        var facts = Self.healthy()
        let index = try #require(facts.units.firstIndex { $0.name == unit })
        facts.units[index] = .init(name: unit, enabled: .exited(enabled.isEmpty ? 1 : 0, enabled + "\n"), active: .exited(3, active + "\n"))
        let verdict = try check(unit, in: facts)
        #expect(verdict.level == level)
        #expect(verdict.fix == fix)
    }

    @Test func sessionEnvironmentImport() throws {
        var facts = Self.healthy()
        facts.environment = ["WAYLAND_DISPLAY": "wayland-1", "SWAYSOCK": "/run/user/1000/sway.sock"]
        facts.managerEnvironment = .exited(0, "HOME=/home/u\n")
        let missing = try check("session environment", in: facts)
        #expect(missing.level == .fail)
        #expect(missing.detail == "the user manager lacks WAYLAND_DISPLAY, SWAYSOCK: blockerd cannot see this session's windows")
        #expect(missing.fix?.hasPrefix("systemctl --user import-environment WAYLAND_DISPLAY DISPLAY XDG_CURRENT_DESKTOP HYPRLAND_INSTANCE_SIGNATURE SWAYSOCK ") == true)

        facts.managerEnvironment = .exited(0, "WAYLAND_DISPLAY=wayland-0\nSWAYSOCK=/run/user/1000/sway.sock\n")
        let stale = try check("session environment", in: facts)
        #expect(stale.level == .warn && stale.detail == "the user manager has WAYLAND_DISPLAY=wayland-0 (this terminal: wayland-1)")

        facts.environment = [:]
        #expect(try check("session environment", in: facts).level == .ok)
        facts.managerEnvironment = .exited(0, "HOME=/home/u\n")
        #expect(try check("session environment", in: facts).level == .warn)
        facts.probeChoice = .command
        #expect(try check("session environment", in: facts).level == .ok)
    }

    @Test func configLedgerJournalAndDaemon() throws {
        var facts = Self.healthy()
        facts.config = .failure(ConfigError(file: "/c.toml", line: 3, column: 18, message: "expected a string"))
        let config = try check("config", in: facts)
        #expect(config.level == .fail && config.detail == "/c.toml:3:18: expected a string")

        facts.ledger = .missing
        #expect(try check("ledger", in: facts).level == .warn)
        facts.ledger = .present(.init(isRegularFile: true, isDirectory: false, permissions: 0o644, ownerUID: 1000), readFailure: nil)
        let open = try check("ledger", in: facts)
        #expect(open.level == .warn && open.detail.contains("mode 0644") && open.fix == "chmod 600 \(facts.ledgerPath)")
        facts.ledger = .present(.init(isRegularFile: true, isDirectory: false, permissions: 0o600, ownerUID: 0), readFailure: nil)
        #expect(try check("ledger", in: facts).level == .fail)
        facts.ledger = .present(.init(isRegularFile: true, isDirectory: false, permissions: 0o000, ownerUID: 1000), readFailure: "Permission denied")
        #expect(try check("ledger", in: facts).level == .fail)
        facts.ledger = .present(.init(isRegularFile: false, isDirectory: true, permissions: 0o700, ownerUID: 1000), readFailure: nil)
        #expect(try check("ledger", in: facts).detail.hasSuffix("is not a regular file"))

        facts.journal = .exited(1, "")
        #expect(try check("journal", in: facts).level == .warn)

        facts.daemon = .failure(.notRunning("no bus"))
        let daemon = try check("daemon", in: facts)
        #expect(daemon.level == .fail && daemon.fix == BusFailureText.startFix)
        var failing = RecordingCalls.sampleReport
        failing.probeOK = false
        failing.probeError = "DISPLAY is not set"
        facts.daemon = .success(failing)
        #expect(try check("daemon", in: facts).detail == "answering, but its x11 probe fails: DISPLAY is not set")
    }

    @Test func renderingAlignsDetailsAndFixes() {
        let lines = Doctor.render([DoctorCheck(.ok, "config", "fine"), DoctorCheck(.fail, "daemon", "down", fix: "start it")],
                                  printer: Printer(output: CapturedOutput(), color: false))
        #expect(lines == ["OK    config  fine", "FAIL  daemon  down", "              fix: start it"])
    }
}

@Suite struct DoctorRunTests {
    /// The real gathering on this machine (no user manager, no daemon, no session).
    @Test func doctorHereReportsEveryCheckAndFails() throws {
        let directory = try TemporaryDirectory()
        let config = try probeConfig(in: directory)
        try directory.write("state/blocker/blocker.db", "", mode: 0o644)
        let run = blockerctl(["doctor", "--config", config],
                             environment: ["HOME": directory.path, "XDG_STATE_HOME": directory.path + "/state", "PATH": "/usr/bin:/bin"])
        let lines = run.stdout.split(separator: "\n").map(String.init)
        for subject in ["session", "probe", "config", "ledger", "journal", "daemon"] {
            #expect(lines.contains { $0.dropFirst(6).hasPrefix(subject + " ") }, "\(subject) checked")
        }
        #expect(lines.contains { $0.hasPrefix("OK    probe") && $0.hasSuffix("command answers: nothing is in front") })
        #expect(lines.contains { $0.hasPrefix("OK    config") && $0.contains("2 groups, 1 exercise") })
        #expect(lines.contains { $0.hasPrefix("WARN  ledger") && $0.contains("mode 0644") })
        #expect(lines.contains { $0.hasPrefix("FAIL  daemon") })
        #expect(run.status == 1)
        #expect(run.stderr.hasPrefix("blockerctl: error: ") && run.stderr.contains("checks failed"))
    }
}
