import Testing
@testable import BlockerCore

/// (Shared with GroupValidationTests.swift.)
/// The message `Config(document:file:)` refuses `document` with, or nil when it is valid.
func refusal(_ document: ConfigValue) -> String? {
    do {
        _ = try Config(document: document, file: "blocker.toml")
        return nil
    } catch {
        return error.description
    }
}

func config(_ document: ConfigValue) throws -> Config {
    try Config(document: document, file: "blocker.toml")
}

/// One document and the exact message it must be refused with.
struct Refusal: Sendable, CustomTestStringConvertible {
    let document: ConfigValue
    let message: String
    var testDescription: String { message }
}

func refused(_ document: ConfigValue, _ message: String) -> Refusal {
    Refusal(document: document, message: message)
}

/// A document with these `[[group]]` tables.
func groups(_ tables: ConfigValue...) -> ConfigValue {
    ["group": .array(tables)]
}

/// A document with one group holding these `[[group.schedule]]` tables.
func schedules(_ tables: ConfigValue...) -> ConfigValue {
    groups(["name": "social", "apps": ["discord"], "schedule": .array(tables)])
}

@Suite struct ConfigErrorTests {
    @Test func syntaxErrorShowsLineAndColumn() {
        let error = ConfigError(file: "/home/me/blocker.toml", line: 3, column: 14, message: "expected '='")
        #expect(error.description == "/home/me/blocker.toml:3:14: expected '='")
    }

    @Test func semanticErrorShowsKeyPath() {
        let error = ConfigError(file: "blocker.toml", keyPath: "daemon.probe", message: "bad")
        #expect(error.description == "blocker.toml: daemon.probe: bad")
    }

    @Test func fileErrorShowsOnlyTheFile() {
        let error = ConfigError(file: "x.toml", message: "cannot read the config")
        #expect(error.description == "x.toml: cannot read the config")
    }
}

@Suite struct ConfigDefaultsTests {
    @Test func emptyDocumentIsValidAndMetersNothing() throws {
        let config = try config([:])
        #expect(config.daemon == DaemonSettings(probe: .auto, pollInterval: 1000, probeCommand: [], idleAfter: nil))
        #expect(config.exercises.isEmpty)
        #expect(config.warnBefore.isEmpty)
        #expect(config.groups.isEmpty)
    }

    @Test func emptySectionsAreValid() throws {
        let config = try config(["daemon": [:], "earn": [:], "warn": [:], "group": []])
        #expect(config.groups.isEmpty)
        #expect(config.daemon.pollInterval == 1000)
    }

    @Test func groupDefaults() throws {
        let group = try #require(try config(groups(["name": "social", "apps": ["Discord"]])).groups.first)
        #expect(group.name == "social")
        #expect(group.apps == ["discord"])
        #expect(group.metered)
        #expect(group.titles.isEmpty)
        #expect(group.dailyLimit == nil)
        #expect(group.schedules.isEmpty)
        #expect(group.opensPerDay == nil)
        #expect(group.pause == nil)
    }

    @Test func rootMustBeATable() {
        #expect(refusal(["a"]) == "blocker.toml: the document is not a TOML table")
    }
}

@Suite struct UnknownKeyTests {
    static let cases: [Refusal] = [
        refused(["deamon": [:]],
            "blocker.toml: deamon: unknown key \"deamon\" (known: daemon, earn, warn, group, cover, strict, pause, pass, sync)"),
        refused(["daemon": ["polll-interval": "1s"]],
            "blocker.toml: daemon.polll-interval: unknown key \"polll-interval\" "
                + "(known: probe, poll-interval, probe-command, probe-command-mode, idle-after, time-zone)"),
        refused(["warn": ["after": ["1m"]]],
            "blocker.toml: warn.after: unknown key \"after\" (known: before)"),
        refused(groups(["name": "a", "apps": ["x"]], ["name": "b", "apps": ["y"], "daily_limit": "1h"]),
            "blocker.toml: group[1].daily_limit: unknown key \"daily_limit\" "
                + "(known: name, apps, titles, sites, metered, daily-limit, opens-per-day, schedule, pause)"),
        refused(schedules(["day": "Mon", "all-day": true]),
            "blocker.toml: group[0].schedule[0].day: unknown key \"day\" (known: days, from, to, all-day)"),
        refused(["my key": 1],
            "blocker.toml: \"my key\": unknown key \"my key\" (known: daemon, earn, warn, group, cover, strict, pause, pass, sync)"),
    ]

    @Test(arguments: cases)
    func unknownKeyIsNamedWithTheKnownOnes(_ test: Refusal) {
        #expect(refusal(test.document) == test.message)
    }
}

@Suite struct WrongTypeTests {
    static let cases: [Refusal] = [
        refused(["daemon": ["poll-interval": 5]],
            "blocker.toml: daemon.poll-interval: expected a duration string (example: poll-interval = \"1s\"), "
                + "found integer 5"),
        refused(groups(["name": "social", "apps": "discord"]),
            "blocker.toml: group[0].apps: expected an array of strings "
                + "(example: apps = [\"discord\", \"org.telegram.desktop\"]), found string \"discord\""),
        refused(groups(["name": "social", "apps": ["discord", 5]]),
            "blocker.toml: group[0].apps[1]: expected a string "
                + "(example: apps = [\"discord\", \"org.telegram.desktop\"]), found integer 5"),
        refused(groups(["name": "social", "apps": ["discord"], "metered": "no"]),
            "blocker.toml: group[0].metered: expected true or false (example: metered = false), found string \"no\""),
        refused(groups(["name": 7, "apps": ["discord"]]),
            "blocker.toml: group[0].name: expected a string (example: name = \"social\"), found integer 7"),
        refused(groups(["name": "video", "apps": ["firefox"], "titles": "YouTube"]),
            "blocker.toml: group[0].titles: expected an array of regexes "
                + "(example: titles = [\"YouTube\", \"Twitch\"]), found string \"YouTube\""),
        refused(["daemon": ["probe": true]],
            "blocker.toml: daemon.probe: expected a probe name (example: probe = \"auto\"), found boolean true"),
        refused(["daemon": 5],
            "blocker.toml: daemon: expected a table (write it as [daemon] on a line of its own), found integer 5"),
        refused(["earn": ["pushups"]],
            "blocker.toml: earn: expected a table (write it as [earn] on a line of its own), found an array"),
        refused(["earn": ["pushups": "0.5"]],
            "blocker.toml: earn.pushups: expected a number of minutes per repetition (example: pushups = 0.5), "
                + "found string \"0.5\""),
        refused(["warn": ["before": "5m"]],
            "blocker.toml: warn.before: expected an array of durations (example: before = [\"5m\", \"1m\"]), "
                + "found string \"5m\""),
        refused(schedules(["days": 5, "all-day": true]),
            "blocker.toml: group[0].schedule[0].days: expected a string of days (example: days = \"Mon-Fri\"), "
                + "found integer 5"),
        refused(schedules(["from": 2230, "to": "07:00"]),
            "blocker.toml: group[0].schedule[0].from: expected a time of day \"HH:MM\" (example: from = \"22:30\"), "
                + "found integer 2230"),
        refused(schedules(["all-day": "yes"]),
            "blocker.toml: group[0].schedule[0].all-day: expected true or false (example: all-day = true), "
                + "found string \"yes\""),
    ]

    @Test(arguments: cases)
    func wrongTypeNamesTheExpectedTypeWithAnExample(_ test: Refusal) {
        #expect(refusal(test.document) == test.message)
    }

    @Test func groupWrittenAsASingleTableSaysUseDoubleBrackets() {
        #expect(refusal(["group": ["name": "social", "apps": ["discord"]]])
            == "blocker.toml: group: expected an array of tables, found a single table; "
            + "write [[group]] instead of [group], once before each one")
    }

    @Test func groupThatIsNotATable() {
        #expect(refusal(["group": ["social"]])
            == "blocker.toml: group[0]: expected a table (write [[group]] (double brackets) before each one), "
            + "found string \"social\"")
    }

    @Test func scheduleWrittenAsASingleTableSaysUseDoubleBrackets() {
        let document = groups(["name": "social", "apps": ["discord"], "schedule": ["all-day": true]])
        #expect(refusal(document)
            == "blocker.toml: group[0].schedule: expected an array of tables, found a single table; "
            + "write [[group.schedule]] instead of [group.schedule], once before each one")
    }
}

@Suite struct DaemonSettingsTests {
    @Test func validSettings() throws {
        let daemon = try config(["daemon": [
            "probe": "command", "poll-interval": "500ms",
            "probe-command": ["/usr/local/bin/probe", "--json", ""], "idle-after": "10m", "time-zone": "Europe/Paris",
        ]]).daemon
        #expect(daemon == DaemonSettings(probe: .command, pollInterval: 500,
                                         probeCommand: ["/usr/local/bin/probe", "--json", ""], idleAfter: 600_000,
                                         timeZone: "Europe/Paris"))
    }

    @Test(arguments: ProbeChoice.allCases.filter { $0 != .command })
    func everyProbeNameIsAccepted(probe: ProbeChoice) throws {
        #expect(try config(["daemon": ["probe": .string(probe.rawValue)]]).daemon.probe == probe)
    }

    @Test func unknownProbeListsTheChoices() {
        #expect(refusal(["daemon": ["probe": "wayland"]])
            == "blocker.toml: daemon.probe: \"wayland\" is not a probe "
            + "(choose one of: auto, gnome, kde, hyprland, sway, wlroots, x11, command)")
    }

    @Test func commandProbeNeedsProbeCommand() {
        #expect(refusal(["daemon": ["probe": "command"]])
            == "blocker.toml: daemon.probe-command: probe = \"command\" needs probe-command, the program that "
            + "prints the window in front (example: probe-command = [\"/usr/local/bin/my-probe\", \"--json\"])")
    }

    @Test func probeCommandMustNotBeEmpty() {
        #expect(refusal(["daemon": ["probe": "command", "probe-command": []]])
            == "blocker.toml: daemon.probe-command: the command is empty; give the program and its arguments "
            + "(example: probe-command = [\"/usr/local/bin/my-probe\", \"--json\"])")
        #expect(refusal(["daemon": ["probe-command": ["", "--json"]]])
            == "blocker.toml: daemon.probe-command[0]: the program path is empty "
            + "(example: probe-command = [\"/usr/local/bin/my-probe\", \"--json\"])")
    }

    /// `blockerd --probe command` may use it while the file says auto.
    @Test func probeCommandIsKeptWithAnotherProbe() throws {
        #expect(try config(["daemon": ["probe-command": ["/bin/probe"]]]).daemon.probeCommand == ["/bin/probe"])
    }

    @Test(arguments: [("200ms", 200 as Milliseconds), ("10s", 10_000), ("1s", 1000), ("2s500ms", 2500)])
    func pollIntervalWithinRange(text: String, ms: Milliseconds) throws {
        #expect(try config(["daemon": ["poll-interval": .string(text)]]).daemon.pollInterval == ms)
    }

    @Test(arguments: ["199ms", "11s", "0s", "1h"])
    func pollIntervalOutOfRangeSaysTheRange(text: String) {
        #expect(refusal(["daemon": ["poll-interval": .string(text)]])
            == "blocker.toml: daemon.poll-interval: \"\(text)\" is out of range: poll-interval must be "
            + "from 200ms to 10s (example: poll-interval = \"1s\")")
    }

    @Test func pollIntervalThatIsNotADuration() {
        #expect(refusal(["daemon": ["poll-interval": "1 second"]])
            == "blocker.toml: daemon.poll-interval: \"1 second\" is not a duration (examples: 90s, 5m, 1h30m)")
    }

    @Test func aTimeZoneIsANameInTheZoneDatabase() {
        for bad in ["", "/etc/localtime", "../../etc/passwd", "Europe/ Paris"] {
            #expect(refusal(["daemon": ["time-zone": .string(bad)]])
                == "blocker.toml: daemon.time-zone: \"\(bad)\" is not a time zone name: give one of "
                + "`timedatectl list-timezones` (example: time-zone = \"Europe/Paris\")")
        }
    }

    @Test func idleAfterMustBePositive() {
        #expect(refusal(["daemon": ["idle-after": "0m"]])
            == "blocker.toml: daemon.idle-after: \"0m\" is out of range: idle-after must be more than 0; "
            + "leave it out to keep spending while idle (example: idle-after = \"10m\")")
        #expect(refusal(["daemon": ["idle-after": "ten minutes"]])
            == "blocker.toml: daemon.idle-after: \"ten minutes\" is not a duration (examples: 90s, 5m, 1h30m)")
    }
}

@Suite struct EarnTests {
    @Test func minutesBecomeRoundedMillisecondsSortedByName() throws {
        let exercises = try config(["earn": [
            "squats": 0.5, "pushups": 1, "burpees": 0.33333, "plank": 1440,
        ]]).exercises
        #expect(exercises == [
            Exercise(name: "burpees", perRep: 20_000),  // 19 999.8 rounded
            Exercise(name: "plank", perRep: 86_400_000),
            Exercise(name: "pushups", perRep: 60_000),
            Exercise(name: "squats", perRep: 30_000),
        ])
    }

    static let outOfRange: [(ConfigValue, String)] = [
        (.integer(0), "0"), (.integer(-1), "-1"), (.integer(1441), "1441"),
        (.float(-0.5), "-0.5"), (.float(1440.5), "1440.5"), (.float(1e-9), "1e-09"),
    ]

    @Test(arguments: outOfRange)
    func outOfRangeSaysTheRange(value: ConfigValue, shown: String) {
        #expect(refusal(["earn": ["pushups": value]])
            == "blocker.toml: earn.pushups: \(shown) minutes per repetition is out of range: it must be more "
            + "than 0 and at most 1440 (one day) (example: pushups = 0.5)")
    }

    @Test func exerciseNamesMustDifferIgnoringCase() {
        #expect(refusal(["earn": ["pushups": 0.5, "Pushups": 1]])
            == "blocker.toml: earn.pushups: duplicate exercise name \"pushups\" (also earn.Pushups); "
            + "exercise names must differ, ignoring case")
    }

    @Test func exerciseNeedsAName() {
        #expect(refusal(["earn": ["": 0.5]])
            == "blocker.toml: earn.\"\": an exercise needs a name (example: pushups = 0.5)")
    }

    @Test func keyPathQuotesAKeyThatIsNotBare() {
        #expect(refusal(["earn": ["jumping jacks": "1"]])
            == "blocker.toml: earn.\"jumping jacks\": expected a number of minutes per repetition "
            + "(example: pushups = 0.5), found string \"1\"")
    }
}

@Suite struct WarnTests {
    @Test func warningsAreKeptLargestFirst() throws {
        #expect(try config(["warn": ["before": ["1m", "30s", "5m"]]]).warnBefore == [300_000, 60_000, 30_000])
        #expect(try config(["warn": ["before": []]]).warnBefore.isEmpty)
    }

    @Test func duplicateWarningsAreRefusedEvenWrittenDifferently() {
        #expect(refusal(["warn": ["before": ["5m", "1m", "60s"]]])
            == "blocker.toml: warn.before[2]: \"60s\" repeats warn.before[1] (\"1m\"); remove one")
    }

    @Test func warningMustBePositive() {
        #expect(refusal(["warn": ["before": ["5m", "0s"]]])
            == "blocker.toml: warn.before[1]: \"0s\" is out of range: a warning must come more than 0 before "
            + "the balance runs out (example: before = [\"5m\", \"1m\"])")
    }

    @Test func warningThatIsNotADuration() {
        #expect(refusal(["warn": ["before": ["5"]]])
            == "blocker.toml: warn.before[0]: \"5\" is not a duration (examples: 90s, 5m, 1h30m)")
        #expect(refusal(["warn": ["before": [5]]])
            == "blocker.toml: warn.before[0]: expected a string (example: before = [\"5m\", \"1m\"]), "
            + "found integer 5")
    }
}

@Suite struct ProbeCommandModeTests {
    @Test func streamOrOnceAndNothingElse() throws {
        let stream = try config(["daemon": ["probe": "command", "probe-command": ["/p"], "probe-command-mode": "stream"]])
        #expect(stream.daemon.probeCommandMode == .stream)
        #expect(try config(["daemon": ["probe-command": ["/p"]]]).daemon.probeCommandMode == .once)
        let message = refusal(["daemon": ["probe-command-mode": "lines"]])
        #expect(message?.hasPrefix("blocker.toml: daemon.probe-command-mode: \"lines\" is not a mode") == true, "\(message ?? "accepted")")
    }
}

@Suite struct RunEnvironmentTests {
    let paris = RunEnvironment(stateDirectory: "/home/u/.local/state/blocker", configPath: "/home/u/.config/blocker/blocker.toml",
                               zone: "Europe/Paris", probe: "x11", environment: ["DISPLAY": ":0"])

    @Test func itsTextReadsBack() {
        #expect(RunEnvironment(text: paris.text) == paris)
        #expect(paris.text.hasPrefix("state-dir=/home/u/.local/state/blocker\nconfig=/home/u/.config/blocker/blocker.toml\n"
            + "zone=Europe/Paris\nprobe=x11\nTZ=unset\nTZDIR=unset\nDISPLAY=:0\n"))
    }

    @Test func changesAreNamedInOrder() {
        let moved = RunEnvironment(stateDirectory: "/tmp/fresh", configPath: "/home/u/.config/blocker/blocker.toml",
                                   zone: "Etc/GMT-14", probe: "x11", environment: ["TZ": "Etc/GMT-14"])
        #expect(moved.changes(since: paris) == ["state-dir: /home/u/.local/state/blocker → /tmp/fresh",
                                                "zone: Europe/Paris → Etc/GMT-14", "TZ: unset → Etc/GMT-14",
                                                "DISPLAY: :0 → unset"])
        #expect(paris.changes(since: paris).isEmpty)
    }
}
