import BlockerConfig
import BlockerCore
import Testing
import TestSupport

/// The message loading `path` fails with, or nil when it loads.
private func loadRefusal(_ path: String) -> String? {
    do {
        _ = try Config.load(path: path)
        return nil
    } catch {
        return error.description
    }
}

private func parseRefusal(_ text: String, file: String = "blocker.toml") -> String? {
    do {
        _ = try Config.parse(text: text, file: file)
        return nil
    } catch {
        return error.description
    }
}

@Suite struct ConfigSyntaxTests {
    @Test func syntaxErrorInARealFileNamesFileLineAndColumn() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("blocker.toml", """
            [daemon]
            probe = "auto"
            poll-interval = 1s
            """)
        var caught: ConfigError?
        do { _ = try Config.load(path: path) } catch { caught = error }
        let error = try #require(caught)
        #expect(error.file == path)
        #expect(error.line == 3)
        #expect(error.column == 18)  // the "s": an integer was expected
        #expect(error.keyPath == nil)
        #expect(error.description
            == "\(path):3:18: Error while parsing decimal integer: expected digit, saw 's'")
    }

    @Test func fileIsNamedExactlyAsGiven() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write("blocker.toml", "[earn]\npushups = \n")
        let unusual = "\(directory.path)/./blocker.toml"
        #expect(loadRefusal(unusual)
            == "\(unusual):2:11: Error while parsing key-value pair: expected value, saw '\\n'")
    }

    @Test func redefinedTableIsASyntaxError() {
        #expect(parseRefusal("[daemon]\nprobe = \"auto\"\n\n[daemon]\n")
            == "blocker.toml:4:1: Error while parsing table header: cannot redefine existing table 'daemon'")
    }

    @Test func invalidUTF8IsASyntaxErrorWithItsPosition() throws {
        let directory = try TemporaryDirectory()
        // name = "ab<0xFF>" on line 2.
        let bytes = Array("[[group]]\nname = \"ab".utf8) + [0xFF] + Array("\"\n".utf8)
        let path = try directory.write("bad.toml", bytes: bytes)
        var caught: ConfigError?
        do { _ = try Config.load(path: path) } catch { caught = error }
        let error = try #require(caught)
        // toml++ points at the last valid character before the bad byte.
        #expect(error.description == "\(path):2:10: Encountered invalid utf-8 sequence")
    }
}

@Suite struct ConfigFileReadingTests {
    @Test func missingFileIsNamedWithTheFix() throws {
        let directory = try TemporaryDirectory()
        let path = "\(directory.path)/nope.toml"
        #expect(loadRefusal(path)
            == "\(path): cannot read the config: No such file or directory; create it (start from "
            + "config/blocker.toml in the blocker sources) or pass --config FILE")
    }

    @Test func directoryInsteadOfAFile() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.makeDirectory("blocker.toml")
        #expect(loadRefusal(path)
            == "\(path): cannot read the config: Is a directory; give the path of the blocker.toml file, "
            + "not of its directory")
    }

    @Test func emptyFileIsAValidConfigThatMetersNothing() throws {
        let directory = try TemporaryDirectory()
        let config = try Config.load(path: try directory.write("blocker.toml", ""))
        #expect(config.groups.isEmpty)
        #expect(config.daemon == DaemonSettings())
    }

    @Test func fileLargerThanOneReadLoadsWhole() throws {
        let directory = try TemporaryDirectory()
        // Over 64 KiB of comments before the only key: it must still be read.
        let padding = String(repeating: "# padding padding padding padding padding padding padding\n", count: 2000)
        let path = try directory.write("blocker.toml", padding + "[earn]\nlunges = 2\n")
        #expect(try Config.load(path: path).exercises == [Exercise(name: "lunges", perRep: 120_000)])
    }
}

@Suite struct ConfigDocumentTests {
    /// Every key of the format, in one file (`ConfigKeyListsTests` checks it against `ConfigKeys`).
    static let everyKey = """
        [daemon]
        probe = "command"
        poll-interval = "500ms"
        probe-command = ["/usr/local/bin/my-probe", "--json"]
        probe-command-mode = "stream"
        idle-after = "10m"
        time-zone = "Europe/Paris"

        [earn]
        pushups = 0.5
        squats = 1
        "jumping jacks" = 0.25
        max-per-day = "2h"
        min-gap = "1m"

        [warn]
        before = ["1m", "5m", "30s"]

        [cover]
        pause-media = false
        mute = false

        [strict]
        delay = "1d"

        [pause]
        seconds = 10
        after = "15m"
        ask-reason = true

        [pass]
        per-week = 2
        length = "30m"

        [sync]
        folder = "~/Sync/blocker"

        [[group]]
        name = "social"
        apps = ["Discord", "org.telegram.desktop"]
        metered = true
        daily-limit = "1h30m"
        opens-per-day = 5

        [[group.schedule]]
        days = "Mon-Fri"
        from = "22:30"
        to = "07:00"

        [[group.schedule]]
        days = "weekends"
        all-day = true

        [[group.schedule]]
        days = "Sat"
        from = 09:00:00   # a TOML local time works too
        to = 12:15:00

        [group.pause]
        seconds = 20
        after = "0s"
        ask-reason = false

        [[group]]
        name = "video"
        apps = ["firefox", "chromium"]
        titles = ["YouTube", "Twitch"]
        sites = ["youtube.com", "*.twitch.tv"]

        [[group]]
        name = "work"
        apps = ["code"]
        metered = false
        """

    @Test func everyKeyRoundTrips() throws {
        let config = try Config.parse(text: Self.everyKey, file: "blocker.toml")
        #expect(config.daemon == DaemonSettings(probe: .command, pollInterval: 500,
                                                probeCommand: ["/usr/local/bin/my-probe", "--json"],
                                                probeCommandMode: .stream, idleAfter: 600_000,
                                                timeZone: "Europe/Paris"))
        #expect(config.exercises == [
            Exercise(name: "jumping jacks", perRep: 15_000),
            Exercise(name: "pushups", perRep: 30_000),
            Exercise(name: "squats", perRep: 60_000),
        ])
        #expect(config.earnLimits == EarnLimits(maxPerDay: 7_200_000, minGap: 60_000))
        #expect(config.warnBefore == [300_000, 60_000, 30_000])
        #expect(config.cover == CoverSettings(pauseMedia: false, mute: false))
        #expect(config.strict == StrictSettings(delay: 86_400_000))
        #expect(config.pause == PauseSettings(seconds: .seconds(10), after: .minutes(15), askReason: true))
        #expect(config.pass == PassRule(perWeek: 2, length: .minutes(30)))
        #expect(config.sync == SyncSettings(folder: "~/Sync/blocker"))
        #expect(config.groups.map(\.name) == ["social", "video", "work"])

        let social = config.groups[0]
        #expect(social.apps == ["discord", "org.telegram.desktop"])
        #expect(social.metered)
        #expect(social.titles.isEmpty)
        #expect(social.dailyLimit == 5_400_000)
        #expect(social.opensPerDay == 5)
        #expect(social.pause == PauseSettings(seconds: .seconds(20), after: 0, askReason: false))
        #expect(config.pauseRule(for: social) == PauseRule(seconds: .seconds(20), after: 0, askReason: false))
        #expect(social.schedules == [
            Schedule(days: [.monday, .tuesday, .wednesday, .thursday, .friday],
                     span: .between(from: 22 * 60 + 30, to: 7 * 60)),
            Schedule(days: [.saturday, .sunday], span: .allDay),
            Schedule(days: .saturday, span: .between(from: 9 * 60, to: 12 * 60 + 15)),
        ])

        let video = config.groups[1]
        #expect(video.apps == ["firefox", "chromium"])
        #expect(video.titles.map(\.source) == ["YouTube", "Twitch"])
        #expect(video.metered)
        #expect(video.dailyLimit == nil)
        #expect(video.schedules.isEmpty)
        #expect(video.pause == nil && video.opensPerDay == nil)
        #expect(config.pauseRule(for: video) == PauseRule(seconds: .seconds(10), after: .minutes(15), askReason: true))

        #expect(config.groups[2].metered == false)
        #expect(config.group(named: "WORK")?.apps == ["code"])
        #expect(config.exercise(named: "Pushups")?.perRep == 30_000)
    }

    /// JSON cannot tell 1.0 from 1: both must mean one minute.
    @Test func wholeFloatAndIntegerMinutesAgree() throws {
        let config = try Config.parse(text: "[earn]\npushups = 1.0\nsquats = 1\nlunges = 1e0\n", file: "f")
        #expect(config.exercises.map(\.perRep) == [60_000, 60_000, 60_000])
    }

    @Test func semanticErrorsThroughTOMLKeepTheirKeyPath() {
        #expect(parseRefusal("[daemon]\npoll-interval = 5\n")
            == "blocker.toml: daemon.poll-interval: expected a duration string (example: poll-interval = \"1s\"), "
            + "found integer 5")
        #expect(parseRefusal("""
            [[group]]
            name = "social"
            apps = ["discord"]

            [[group]]
            name = "video"
            apps = ["firefox"]
            daily-limit = "1h3"
            """) == "blocker.toml: group[1].daily-limit: \"1h3\" is not a duration (examples: 90s, 5m, 1h30m)")
        #expect(parseRefusal("[daemon]\npolll-interval = \"1s\"\n")
            == "blocker.toml: daemon.polll-interval: unknown key \"polll-interval\" "
            + "(known: probe, poll-interval, probe-command, probe-command-mode, idle-after, time-zone)")
    }

    @Test func singleBracketGroupSaysUseDoubleBrackets() {
        #expect(parseRefusal("[group]\nname = \"social\"\napps = [\"discord\"]\n")
            == "blocker.toml: group: expected an array of tables, found a single table; "
            + "write [[group]] instead of [group], once before each one")
    }

    @Test func localTimeWithSecondsIsRefused() {
        let text = "[[group]]\nname = \"a\"\napps = [\"x\"]\n[[group.schedule]]\nfrom = 22:30:15\nto = 07:00:00\n"
        #expect(parseRefusal(text)
            == "blocker.toml: group[0].schedule[0].from: \"22:30:15\" has seconds; schedules are in whole minutes "
            + "(example: from = \"22:30\")")
    }

    @Test func infinityIsNotANumberOfMinutes() {
        #expect(parseRefusal("[earn]\npushups = inf\n")?
            .hasPrefix("blocker.toml: earn.pushups: expected a number of minutes per repetition") == true)
    }
}

@Suite struct ShippedConfigTests {
    /// config/blocker.toml, found from this file: Tests/BlockerConfigTests/ → the package root.
    static let path: String = {
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        return parts.joined(separator: "/") + "/config/blocker.toml"
    }()

    @Test func shippedDefaultLoadsWithTheDocumentedDefaults() throws {
        let config = try Config.load(path: Self.path)
        #expect(config.daemon == DaemonSettings(probe: .auto, pollInterval: 1000))
        #expect(config.exercises
            == [Exercise(name: "pushups", perRep: 30_000), Exercise(name: "squats", perRep: 30_000)])
        #expect(config.warnBefore == [300_000, 60_000])
        #expect(config.cover == CoverSettings(pauseMedia: true, mute: true))
        let social = try #require(config.group(named: "social"))
        #expect(social.metered)
        #expect(["discord", "org.telegram.desktop", "telegram-desktop"].allSatisfy(social.apps.contains))
        let video = try #require(config.group(named: "video"))
        #expect(["firefox", "chromium"].allSatisfy(video.apps.contains))
        #expect(video.titles.map(\.source) == ["YouTube", "Twitch"])
        #expect(config.groups.allSatisfy { $0.schedules.isEmpty && $0.dailyLimit == nil })
        // No pause, no opens cap, no pass until the user writes them.
        #expect(config.pause == nil && config.pass == nil && config.sync == nil)
        #expect(config.groups.allSatisfy { !config.tracksOpens(of: $0) })
    }

    /// Lines like `# idle-after = "10m"` are examples: with one `# ` removed they must
    /// still load, and with the live lines they cover every key of the format.
    @Test func commentedExamplesAreValidOnceUncommented() throws {
        let text = try readText(Self.path)
        var uncommented: [Substring] = []
        var keys: Set<String> = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var example = line
            if line.wholeMatch(of: /# (\[|[a-z][a-z-]* = ).*/) != nil { example = line.dropFirst(2) }
            if !example.hasPrefix("#"), let equals = example.firstRange(of: " = ") {
                keys.insert(String(example[..<equals.lowerBound]))
            }
            uncommented.append(example)
        }
        // Every key but all-day, which stays commented twice: it cannot go with from/to.
        #expect(keys == ConfigKeys.leafKeys.subtracting(["all-day"]).union(["pushups", "squats"]))
        #expect(text.contains("# # all-day = true"))
        for table in ConfigKeys.tables {
            #expect(text.contains("\n\(table.header)\n") || text.contains("\n# \(table.header)\n"),
                    "config/blocker.toml lacks \(table.header)")
        }

        let config = try Config.parse(text: uncommented.joined(separator: "\n"), file: "uncommented")
        #expect(config.daemon.idleAfter == 600_000)
        #expect(config.daemon.timeZone == "Europe/Paris")
        #expect(config.daemon.probeCommand == ["/usr/local/bin/my-probe", "--json"])
        #expect(config.earnLimits == EarnLimits(maxPerDay: 7_200_000, minGap: 60_000))
        #expect(config.strict.delay == 86_400_000)
        #expect(config.pause == PauseSettings(seconds: .seconds(10), after: .minutes(15), askReason: false))
        #expect(config.pass == PassRule(perWeek: 1, length: .minutes(15)))
        #expect(config.sync == SyncSettings(folder: "~/Sync/blocker"))
        let social = try #require(config.group(named: "social"))
        #expect(social.dailyLimit == 3_600_000)
        #expect(social.opensPerDay == 10)
        #expect(social.pause == PauseSettings(seconds: .seconds(20)))
        #expect(social.schedules == [Schedule(days: [.monday, .tuesday, .wednesday, .thursday, .friday],
                                              span: .between(from: 22 * 60 + 30, to: 7 * 60))])
    }
}
