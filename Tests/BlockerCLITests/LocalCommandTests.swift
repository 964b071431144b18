@testable import BlockerCLI
import Foundation
import Testing
import TestSupport
import BlockerBus
import BlockerProbes

@Suite struct ConfigCheckTests {
    static let good = """
        [daemon]
        probe = "auto"

        [earn]
        pushups = 0.5

        [[group]]
        name = "social"
        apps = ["discord"]

        [[group]]
        name = "video"
        apps = ["firefox"]
        titles = ["YouTube"]
        """

    @Test func aGoodFileIsOkWithItsCounts() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("blocker.toml", Self.good)
        let run = blockerctl(["config", "check", path])
        #expect(run.status == 0 && run.stderr.isEmpty && run.connections == 0)
        #expect(run.stdout == "\(path): ok (2 groups, 1 exercise)\n")
    }

    @Test func theShippedDefaultConfigIsValid() throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("config/blocker.toml").path
        let run = blockerctl(["config", "check", path])
        #expect(run.status == 0)
        #expect(run.stdout.hasPrefix("\(path): ok ("))
    }

    @Test func aSyntaxErrorNamesFileLineAndColumn() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("bad.toml", "[daemon]\nprobe = \"auto\"\npoll-interval = 1s\n")
        let run = blockerctl(["config", "check", path])
        #expect(run.status == 1 && run.stdout.isEmpty)
        #expect(run.stderr.hasPrefix("blockerctl: error: \(path):3:18: "))
        #expect(run.stderr.hasSuffix("\n") && run.stderr.filter { $0 == "\n" }.count == 1)
    }

    @Test func anUnknownKeyIsAnError() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("blocker.toml", Self.good + "\ncolour = \"red\"\n")
        let run = blockerctl(["config", "check", path])
        #expect(run.status == 1)
        #expect(run.stderr.hasPrefix("blockerctl: error: \(path): "))
        #expect(run.stderr.contains("colour"))
    }

    @Test func aMissingFileSaysHowToCreateIt() {
        let run = blockerctl(["config", "check", "/nonexistent/blocker.toml"])
        #expect(run.status == 1)
        #expect(run.stderr.hasPrefix("blockerctl: error: /nonexistent/blocker.toml: cannot read the config: No such file or directory; create it"))
    }

    @Test func withoutFileTheXDGConfigIsChecked() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("blocker/blocker.toml", Self.good)
        let run = blockerctl(["config", "check"], environment: ["XDG_CONFIG_HOME": directory.path, "HOME": "/nonexistent"])
        #expect(run.stdout == "\(path): ok (2 groups, 1 exercise)\n")
        let home = blockerctl(["config", "check"], environment: ["XDG_CONFIG_HOME": "relative/ignored", "HOME": directory.path + "/h",
                                                                 "XDG_CONFIG_DIRS": "/nonexistent-dirs"])
        #expect(home.stderr.hasPrefix("blockerctl: error: \(directory.path)/h/.config/blocker/blocker.toml: cannot read"))
    }
}

@Suite struct LogsTests {
    @Test func journalctlArguments() {
        #expect(LogsCommand.journalctlArguments(follow: false, stdoutIsTerminal: true)
                == ["journalctl", "--user", "-u", "blockerd.service", "-o", "short-iso"])
        #expect(LogsCommand.journalctlArguments(follow: true, stdoutIsTerminal: false)
                == ["journalctl", "--user", "-u", "blockerd.service", "-o", "short-iso", "-f", "--no-pager"])
    }

    @Test func aFailedExecIsAFailureWithTheReason() {
        let run = blockerctl(["logs", "-f"], terminal: true)
        #expect(run.execed == [["journalctl", "--user", "-u", "blockerd.service", "-o", "short-iso", "-f"]])
        #expect(run.status == 1)
        #expect(run.stderr == "blockerctl: error: cannot run journalctl: exec is recorded, not done, in this test — journalctl comes with systemd; make sure it is installed and on PATH\n")
        #expect(blockerctl(["logs", "--follow"]).execed.first?.contains("-f") == true)
    }
}

@Suite struct ProbeCommandTests {
    @Test func jsonIsTheForegroundObjectPlusTheProbeName() throws {
        let directory = try TemporaryDirectory()
        let config = try probeConfig(in: directory)
        try directory.write("front.json", "{\"app\":\"Firefox\",\"title\":\"Cats \\\"live\\\"\",\"pid\":\(getpid())}")
        let run = blockerctl(["probe", "--json", "--config", config], environment: [:])
        #expect(run.status == 0 && run.stderr.isEmpty && run.connections == 0)
        let json = try object(parseJSON(run.stdout))
        #expect(Set(json.keys) == ["app", "title", "pid", "groups", "probe", "source"])
        #expect(json["source"] as? String == "here")
        #expect(json["app"] as? String == "Firefox")
        #expect(json["title"] as? String == "Cats \"live\"")
        #expect(json["pid"] as? Int == Int(getpid()))
        #expect(json["groups"] as? [String] == ["video", "browsers"])
        #expect(json["probe"] as? String == "command")
    }

    @Test func nothingInFrontKeepsTheKeys() throws {
        let directory = try TemporaryDirectory()
        let config = try probeConfig(in: directory)
        let json = try object(parseJSON(blockerctl(["probe", "--json", "--config", config], environment: [:]).stdout))
        #expect(json["app"] is NSNull && json["title"] is NSNull && json["pid"] is NSNull)
        #expect((json["groups"] as? [Any])?.isEmpty == true && json["probe"] as? String == "command")
    }

    @Test func humanOutputIsAligned() throws {
        let directory = try TemporaryDirectory()
        let config = try probeConfig(in: directory)
        try directory.write("front.json", "{\"app\":\"chromium\",\"title\":\"Docs\",\"pid\":7,\"locked\":true}")
        let run = blockerctl(["probe", "--config", config], environment: [:])
        #expect(run.stdout == """
            probe   command
            app     chromium
            title   Docs
            pid     7
            groups  browsers
            locked  yes

            """)
    }

    @Test func aProbeThatCannotRunSaysWhyForEachBackend() throws {
        let directory = try TemporaryDirectory()
        let config = try directory.write("blocker.toml", "[daemon]\nprobe = \"auto\"\n")
        let run = blockerctl(["probe", "--config", config], environment: ["HOME": directory.path])
        #expect(run.status == 1 && run.stdout.isEmpty)
        let lines = run.stderr.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("blockerctl: error: ") == true)
        #expect(lines.contains("backends passed over:"))
        for backend in ["hyprland", "sway", "x11"] {
            #expect(lines.contains { $0.hasPrefix("  \(backend): ") }, "\(backend) explained")
        }
    }

    @Test func anUnreadableConfigFallsBackToDefaultsWithAWarning() {
        let run = blockerctl(["probe", "--config", "/nonexistent/blocker.toml"], environment: [:])
        #expect(run.stderr.hasPrefix("blockerctl: warning: using the default [daemon] settings and no groups: /nonexistent/blocker.toml: cannot read the config"))
        #expect(run.status == 1)       // the default is auto, and nothing can run with an empty environment
    }

    @Test func aFailingSampleIsReported() throws {
        let directory = try TemporaryDirectory()
        let config = try probeConfig(in: directory)
        try directory.write("front.json", "not json")
        let run = blockerctl(["probe", "--config", config], environment: [:])
        #expect(run.status == 1)
        #expect(run.stderr.hasPrefix("blockerctl: error: the command probe cannot tell what is in front: "))
    }
}

/// `blockerctl probe` on GNOME while blockerd runs: blockerd's gnome probe
/// owns io.github.blockerd.Focus (here a probe of the test holds it, beside a
/// fake GNOME Shell on a real dbus-daemon), so the command asks blockerd.
@Suite(.serialized) struct ProbeBesideBlockerdFakeShellTests {
    let bus: SessionTestBus
    let held: ShellReportProbe
    let config: String
    let directory: TemporaryDirectory
    var environment: [String: String] { ["DBUS_SESSION_BUS_ADDRESS": bus.address, "TZ": "UTC"] }

    init() throws {
        bus = try SessionTestBus()
        try bus.startFakeGnomeShell(extensionState: 1)
        held = try ShellReportProbe.open(GnomeShell(environment: [:]), environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address]).get()
        directory = try TemporaryDirectory()
        config = try directory.write("blocker.toml", "[daemon]\nprobe = \"gnome\"\n\n[[group]]\nname = \"social\"\napps = [\"discord\"]\n")
    }

    static func blockerd(foreground: StatusReport.Foreground?, probeError: String? = nil) -> RecordingCalls {
        let service = RecordingCalls()
        service.report.probeName = "gnome"
        service.report.foreground = foreground
        service.report.probeOK = probeError == nil
        service.report.probeError = probeError
        return service
    }

    @Test func itPrintsWhatBlockerdsGnomeProbeSeesAndSaysItIsBlockerds() throws {
        let service = Self.blockerd(foreground: .init(app: "discord", title: "#general", pid: 42, groups: ["social"]))
        let run = blockerctl(["probe", "--config", config], service: service, environment: environment)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == """
            probe   gnome (blockerd's gnome probe answers: blockerd holds io.github.blockerd.Focus)
            app     discord
            title   #general
            pid     42
            groups  social
            locked  no

            """, "\(run.stdout)")
        #expect(service.calls == [.status])

        let json = try object(parseJSON(blockerctl(["probe", "--json", "--config", config], service: service,
                                                   environment: environment).stdout))
        #expect(Set(json.keys) == ["app", "title", "pid", "groups", "probe", "source"])
        #expect(json["source"] as? String == "blockerd" && json["probe"] as? String == "gnome" && json["app"] as? String == "discord")
    }

    @Test func blockerdsFailingProbeIsAFailureNamingIt() {
        let service = Self.blockerd(foreground: nil, probeError: "GNOME Shell: the blocker extension is not enabled (state disabled): "
            + "gnome-extensions enable blocker@blockerd.github.io")
        let run = blockerctl(["probe", "--config", config], service: service, environment: environment)
        #expect(run.status == 1)
        #expect(run.stderr.hasPrefix("blockerctl: error: blockerd's gnome probe cannot tell what is in front: GNOME Shell: "
            + "the blocker extension is not enabled"), "\(run.stderr)")
    }

    @Test func withoutBlockerdTheNameHoldersFailureStands() {
        let run = blockerctl(["probe", "--config", config], service: nil, environment: environment)
        #expect(run.status == 1 && run.stderr.contains("io.github.blockerd.Focus is already taken"), "\(run.stderr)")
    }
}
