import Testing
@testable import BlockerCore

/// The message `Config(document:file:)` refuses `document` with, or nil when it is valid.
private func refusal(_ document: ConfigValue) -> String? {
    do {
        _ = try Config(document: document, file: "blocker.toml")
        return nil
    } catch {
        return error.description
    }
}

private func config(_ document: ConfigValue) throws -> Config {
    try Config(document: document, file: "blocker.toml")
}

/// One document and the exact message it must be refused with.
struct Refusal: Sendable, CustomTestStringConvertible {
    let document: ConfigValue
    let message: String
    var testDescription: String { message }
}

private func refused(_ document: ConfigValue, _ message: String) -> Refusal {
    Refusal(document: document, message: message)
}

/// A document with these `[[group]]` tables.
private func groups(_ tables: ConfigValue...) -> ConfigValue {
    ["group": .array(tables)]
}

/// A document with one group holding these `[[group.schedule]]` tables.
private func schedules(_ tables: ConfigValue...) -> ConfigValue {
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
    }

    @Test func rootMustBeATable() {
        #expect(refusal(["a"]) == "blocker.toml: the document is not a TOML table")
    }
}

@Suite struct UnknownKeyTests {
    static let cases: [Refusal] = [
        refused(["deamon": [:]],
            "blocker.toml: deamon: unknown key \"deamon\" (known: daemon, earn, warn, group, cover, strict)"),
        refused(["daemon": ["polll-interval": "1s"]],
            "blocker.toml: daemon.polll-interval: unknown key \"polll-interval\" "
                + "(known: probe, poll-interval, probe-command, probe-command-mode, idle-after, time-zone)"),
        refused(["warn": ["after": ["1m"]]],
            "blocker.toml: warn.after: unknown key \"after\" (known: before)"),
        refused(groups(["name": "a", "apps": ["x"]], ["name": "b", "apps": ["y"], "daily_limit": "1h"]),
            "blocker.toml: group[1].daily_limit: unknown key \"daily_limit\" "
                + "(known: name, apps, titles, metered, daily-limit, schedule)"),
        refused(schedules(["day": "Mon", "all-day": true]),
            "blocker.toml: group[0].schedule[0].day: unknown key \"day\" (known: days, from, to, all-day)"),
        refused(["my key": 1],
            "blocker.toml: \"my key\": unknown key \"my key\" (known: daemon, earn, warn, group, cover, strict)"),
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

@Suite struct GroupTests {
    @Test func nameIsRequired() {
        #expect(refusal(groups(["apps": ["discord"]]))
            == "blocker.toml: group[0].name: every group needs a name (example: name = \"social\")")
        #expect(refusal(groups(["name": "", "apps": ["discord"]]))
            == "blocker.toml: group[0].name: the name is empty (example: name = \"social\")")
    }

    @Test func namesMustDifferIgnoringCase() {
        let document = groups(["name": "social", "apps": ["discord"]], ["name": "video", "apps": ["mpv"]],
                              ["name": "Social", "apps": ["slack"]])
        #expect(refusal(document)
            == "blocker.toml: group[2].name: duplicate group name \"Social\" (group[0] is \"social\"); "
            + "group names must differ, ignoring case")
    }

    @Test func appsAreRequiredAndNonEmpty() {
        #expect(refusal(groups(["name": "social"]))
            == "blocker.toml: group[0].apps: every group needs apps: the app ids, WM_CLASS or program names it "
            + "covers (example: apps = [\"discord\", \"org.telegram.desktop\"])")
        #expect(refusal(groups(["name": "social", "apps": []]))
            == "blocker.toml: group[0].apps: the list is empty; name at least one app "
            + "(example: apps = [\"discord\", \"org.telegram.desktop\"])")
        #expect(refusal(groups(["name": "social", "apps": ["discord", ""]]))
            == "blocker.toml: group[0].apps[1]: the app name is empty "
            + "(example: apps = [\"discord\", \"org.telegram.desktop\"])")
    }

    @Test func titlesAreCaseInsensitiveRegexes() throws {
        let group = try #require(try config(groups(
            ["name": "video", "apps": ["firefox"], "titles": ["YouTube", "^Twitch( |$)"]])).groups.first)
        #expect(group.titles.map(\.source) == ["YouTube", "^Twitch( |$)"])
        #expect(group.titles[0].matches("Cats - youtube — Mozilla Firefox"))
        #expect(group.titles[1].matches("twitch"))
        #expect(!group.titles[1].matches("Watch Twitch"))
    }

    @Test func invalidTitleRegexGivesTheCompilersReason() {
        #expect(refusal(groups(["name": "video", "apps": ["firefox"], "titles": ["YouTube", "(Twitch"]]))
            == "blocker.toml: group[0].titles[1]: \"(Twitch\" is not a valid regex: missing ): (Twitch "
            + "(example: titles = [\"YouTube\", \"Twitch\"])")
    }

    @Test func meteredCanBeTurnedOff() throws {
        #expect(try config(groups(["name": "work", "apps": ["code"], "metered": false])).groups[0].metered == false)
    }

    @Test func dailyLimitIsADuration() throws {
        let limits = try config(groups(["name": "a", "apps": ["x"], "daily-limit": "1h30m"],
                                       ["name": "b", "apps": ["y"], "daily-limit": "24h"])).groups.map(\.dailyLimit)
        #expect(limits == [5_400_000, 86_400_000])
    }

    @Test func dailyLimitThatIsNotADurationReusesTheDurationMessage() {
        let document = groups(["name": "social", "apps": ["discord"]],
                              ["name": "video", "apps": ["firefox"], "daily-limit": "1h3"])
        #expect(refusal(document)
            == "blocker.toml: group[1].daily-limit: \"1h3\" is not a duration (examples: 90s, 5m, 1h30m)")
    }

    @Test(arguments: ["0s", "24h1s", "2d"])
    func dailyLimitOutOfRangeSaysTheRange(text: String) {
        #expect(refusal(groups(["name": "social", "apps": ["discord"], "daily-limit": .string(text)]))
            == "blocker.toml: group[0].daily-limit: \"\(text)\" is out of range: daily-limit must be more than 0 "
            + "and at most 24h (example: daily-limit = \"1h\")")
    }

    @Test func appInGroupsThatDisagreeOnMeteredIsRefused() {
        let document = groups(["name": "social", "apps": ["discord", "telegram"]],
                              ["name": "video", "apps": ["mpv"]],
                              ["name": "work", "apps": ["slack", "Discord"], "metered": false])
        #expect(refusal(document)
            == "blocker.toml: group[2].apps[1]: app \"discord\" is in group[0] \"social\" (metered = true) and in "
            + "group[2] \"work\" (metered = false); a window is either metered or not: keep the app in one "
            + "group, or give both groups the same metered")
    }

    @Test func appInGroupsThatAgreeOnMeteredIsFine() throws {
        let document = groups(["name": "video", "apps": ["firefox"], "titles": ["YouTube"]],
                              ["name": "news", "apps": ["firefox"], "titles": ["Reddit"]])
        #expect(try config(document).groups.map(\.name) == ["video", "news"])
    }
}

@Suite struct ScheduleTests {
    private func span(_ table: ConfigValue) throws -> Schedule {
        try #require(try config(schedules(table)).groups.first?.schedules.first)
    }

    @Test func windowAcrossMidnight() throws {
        #expect(try span(["days": "Mon-Fri", "from": "22:30", "to": "07:00"])
            == Schedule(days: [.monday, .tuesday, .wednesday, .thursday, .friday],
                        span: .between(from: 22 * 60 + 30, to: 7 * 60)))
    }

    @Test func daysDefaultToDaily() throws {
        #expect(try span(["all-day": true]) == Schedule(days: .all, span: .allDay))
    }

    @Test(arguments: [
        ("00:00", 0), ("7:05", 425), ("23:59", 1439), ("22:30:00", 1350), ("06:00:00.000", 360),
    ])
    func timeOfDayForms(text: String, minutes: Int) throws {
        let to = minutes == 0 ? "12:00" : "00:00"
        #expect(try span(["from": .string(text), "to": .string(to)]).span
            == .between(from: minutes, to: minutes == 0 ? 720 : 0))
    }

    @Test func severalSchedulesKeepTheirOrder() throws {
        let document = schedules(["days": "weekends", "all-day": true], ["days": "Sat,Sun", "from": "1:00", "to": "2:00"])
        #expect(try config(document).groups[0].schedules == [
            Schedule(days: [.saturday, .sunday], span: .allDay),
            Schedule(days: [.saturday, .sunday], span: .between(from: 60, to: 120)),
        ])
    }

    @Test func unknownDayIsNamedWithTheChoices() {
        #expect(refusal(schedules(["days": "Mon-Fryday", "all-day": true]))
            == "blocker.toml: group[0].schedule[0].days: unknown day \"Fryday\" (use Mon Tue Wed Thu Fri Sat Sun, "
            + "a range like Mon-Fri, a list like Sat,Sun, or daily / weekdays / weekends)")
    }

    @Test func sameFromAndToSaysUseAllDay() {
        #expect(refusal(schedules(["from": "22:00", "to": "22:00:00"]))
            == "blocker.toml: group[0].schedule[0].to: from and to are both \"22:00:00\", which is no window; "
            + "to block the whole day, use all-day = true")
    }

    @Test func allDayWithFromAndToIsRefused() {
        let message = "blocker.toml: group[0].schedule[0].all-day: all-day = true cannot be combined with "
            + "from or to; keep either all-day = true or from/to"
        #expect(refusal(schedules(["from": "22:00", "to": "07:00", "all-day": true])) == message)
        #expect(refusal(schedules(["from": "22:00", "all-day": true])) == message)
        #expect(refusal(schedules(["to": "07:00", "all-day": true])) == message)
    }

    @Test func allDayFalseWithAWindowIsFine() throws {
        #expect(try span(["from": "09:00", "to": "17:00", "all-day": false]).span == .between(from: 540, to: 1020))
    }

    @Test func fromNeedsToAndToNeedsFrom() {
        #expect(refusal(schedules(["from": "22:30"]))
            == "blocker.toml: group[0].schedule[0].to: from = \"22:30\" needs a to (example: to = \"07:00\")")
        #expect(refusal(schedules(["to": "07:00"]))
            == "blocker.toml: group[0].schedule[0].from: to = \"07:00\" needs a from (example: from = \"22:30\")")
    }

    @Test func scheduleNeedsAWindow() {
        let message = "blocker.toml: group[0].schedule[0]: a schedule needs a window: "
            + "from = \"22:30\" and to = \"07:00\", or all-day = true"
        #expect(refusal(schedules(["days": "Mon"])) == message)
        #expect(refusal(schedules(["all-day": false])) == message)
    }

    @Test func midnightIsZeroNotTwentyFour() {
        #expect(refusal(schedules(["from": "22:00", "to": "24:00"]))
            == "blocker.toml: group[0].schedule[0].to: \"24:00\" is not a time of day: hours go from 00 to 23 "
            + "(for midnight, use \"00:00\")")
    }

    @Test func minutesGoToFiftyNine() {
        #expect(refusal(schedules(["from": "22:60", "to": "07:00"]))
            == "blocker.toml: group[0].schedule[0].from: \"22:60\" is not a time of day: minutes go from 00 to 59 "
            + "(example: from = \"22:30\")")
    }

    @Test(arguments: ["7.30", "2230", "22:3", "22:30 ", "-1:00", "22:30:0", "22:30:00.", "22:30:ab", "", "١٢:٣٠"])
    func malformedTimeShowsTheForm(text: String) {
        #expect(refusal(schedules(["from": .string(text), "to": "07:00"]))
            == "blocker.toml: group[0].schedule[0].from: \"\(text)\" is not a time of day; write \"HH:MM\" "
            + "(example: from = \"22:30\")")
    }

    @Test func secondsAreRefused() {
        #expect(refusal(schedules(["from": "22:30:15", "to": "07:00"]))
            == "blocker.toml: group[0].schedule[0].from: \"22:30:15\" has seconds; schedules are in whole minutes "
            + "(example: from = \"22:30\")")
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
