import Testing
@testable import BlockerCore

/// `[pause]`, `[group.pause]`, `[pass]` and `opens-per-day` (issue 23): read,
/// defaulted, merged key by key, and every bad value refused with its fix.
@Suite struct PauseConfigTests {
    func social(_ extra: [String: ConfigValue] = [:]) -> ConfigValue {
        var table: [String: ConfigValue] = ["name": "social", "apps": ["discord"]]
        table.merge(extra) { _, new in new }
        return .table(table)
    }

    func document(pause: ConfigValue? = nil, pass: ConfigValue? = nil, groups: [ConfigValue] = []) -> ConfigValue {
        var table: [String: ConfigValue] = [:]
        if let pause { table["pause"] = pause }
        if let pass { table["pass"] = pass }
        if !groups.isEmpty { table["group"] = .array(groups) }
        return .table(table)
    }

    @Test func noTablesMeanNoPauseNoCapNoPass() throws {
        let c = try config(document(groups: [social()]))
        #expect(c.pause == nil && c.pass == nil)
        #expect(c.pauseRule(for: c.groups[0]) == nil)
        #expect(c.openAfter(for: c.groups[0]) == .minutes(15))
        #expect(!c.tracksOpens(of: c.groups[0]))
    }

    @Test func anEmptyPauseTableIsTheDefaults() throws {
        let c = try config(document(pause: [:], groups: [social()]))
        #expect(c.pause == PauseSettings())
        #expect(c.pauseRule(for: c.groups[0]) == PauseRule(seconds: .seconds(10), after: .minutes(15), askReason: false))
        #expect(c.tracksOpens(of: c.groups[0]))
    }

    @Test func thePauseTableIsForMeteredGroupsAndAGroupsOwnPausesAnyGroup() throws {
        let tools: ConfigValue = ["name": "tools", "apps": ["notes"], "metered": false]
        let ownPause: ConfigValue = ["name": "editor", "apps": ["vim"], "metered": false, "pause": ["seconds": 5]]
        let c = try config(document(pause: [:], groups: [social(), tools, ownPause]))
        #expect(c.pauseRule(for: c.groups[0]) != nil)
        #expect(c.pauseRule(for: c.groups[1]) == nil)
        #expect(!c.tracksOpens(of: c.groups[1]))
        #expect(c.pauseRule(for: c.groups[2])?.seconds == .seconds(5))
    }

    @Test func everyPauseKey() throws {
        let c = try config(document(pause: ["seconds": 20, "after": "5m", "ask-reason": true], groups: [social()]))
        #expect(c.pause == PauseSettings(seconds: .seconds(20), after: .minutes(5), askReason: true))
        #expect(c.pauseRule(for: c.groups[0]) == PauseRule(seconds: .seconds(20), after: .minutes(5), askReason: true))
        #expect(c.openAfter(for: c.groups[0]) == .minutes(5))
    }

    @Test func theEdgesOfTheRanges() throws {
        let low = try config(document(pause: ["seconds": 1, "after": "0s"], groups: [social()]))
        #expect(low.pauseRule(for: low.groups[0]) == PauseRule(seconds: .seconds(1), after: 0, askReason: false))
        let high = try config(document(pause: ["seconds": 120, "after": "24h"], groups: [social()]))
        #expect(high.pauseRule(for: high.groups[0]) == PauseRule(seconds: .seconds(120), after: .hours(24), askReason: false))
        // JSON cannot tell 10.0 from 10.
        let float = try config(document(pause: ["seconds": 10.0], pass: ["per-week": 2.0]))
        #expect(float.pause?.seconds == .seconds(10) && float.pass?.perWeek == 2)
    }

    @Test func secondsZeroIsNoPauseButItsAfterStillDecidesOpens() throws {
        let c = try config(document(pause: ["seconds": 0, "after": "5m"], groups: [social(["opens-per-day": 5])]))
        #expect(c.pauseRule(for: c.groups[0]) == nil)
        #expect(c.openAfter(for: c.groups[0]) == .minutes(5))
        #expect(c.tracksOpens(of: c.groups[0]))
    }

    @Test func aGroupsOwnPauseReplacesPauseKeyByKey() throws {
        let root: ConfigValue = ["seconds": 10, "after": "5m", "ask-reason": true]
        func rule(_ own: ConfigValue) throws -> PauseRule? {
            let c = try config(document(pause: root, groups: [social(["pause": own]), .table(["name": "video", "apps": ["firefox"]])]))
            // The other group keeps [pause] whole.
            #expect(c.pauseRule(for: c.groups[1]) == PauseRule(seconds: .seconds(10), after: .minutes(5), askReason: true))
            return c.pauseRule(for: c.groups[0])
        }
        #expect(try rule([:]) == PauseRule(seconds: .seconds(10), after: .minutes(5), askReason: true))
        #expect(try rule(["seconds": 30]) == PauseRule(seconds: .seconds(30), after: .minutes(5), askReason: true))
        #expect(try rule(["after": "0s"]) == PauseRule(seconds: .seconds(10), after: 0, askReason: true))
        #expect(try rule(["ask-reason": false]) == PauseRule(seconds: .seconds(10), after: .minutes(5), askReason: false))
        #expect(try rule(["seconds": 0]) == nil)
    }

    @Test func aGroupsOwnPauseWithoutPauseTakesTheDefaults() throws {
        let c = try config(document(groups: [social(["pause": ["after": "1m"]]), .table(["name": "video", "apps": ["firefox"]])]))
        #expect(c.groups[0].pause == PauseSettings(after: .minutes(1)))
        #expect(c.pauseRule(for: c.groups[0]) == PauseRule(seconds: .seconds(10), after: .minutes(1), askReason: false))
        #expect(c.pauseRule(for: c.groups[1]) == nil)
    }

    @Test func opensPerDayAloneTracksOpensWithTheDefaultAfter() throws {
        let c = try config(document(groups: [social(["opens-per-day": 5])]))
        #expect(c.groups[0].opensPerDay == 5)
        #expect(c.pauseRule(for: c.groups[0]) == nil)
        #expect(c.openAfter(for: c.groups[0]) == .minutes(15))
        #expect(c.tracksOpens(of: c.groups[0]))
        #expect(try config(document(groups: [social(["opens-per-day": 1000])])).groups[0].opensPerDay == 1000)
    }

    @Test func passDefaultsAndKeys() throws {
        #expect(try config(document(pass: [:])).pass == PassRule(perWeek: 1, length: .minutes(15)))
        #expect(try config(document(pass: ["per-week": 0])).pass == PassRule(perWeek: 0, length: .minutes(15)))
        #expect(try config(document(pass: ["per-week": 7, "length": "2h"])).pass == PassRule(perWeek: 7, length: .hours(2)))
        #expect(try config(document(pass: ["length": "1m"])).pass == PassRule(perWeek: 1, length: .minutes(1)))
    }
}

@Suite struct PauseConfigRefusalTests {
    static let cases: [Refusal] = [
        refused(["pause": ["seconds": 121]],
            "blocker.toml: pause.seconds: 121 is out of range: seconds must be from 0 to 120; 0 means no pause "
                + "(example: seconds = 10)"),
        refused(["pause": ["seconds": -1]],
            "blocker.toml: pause.seconds: -1 is out of range: seconds must be from 0 to 120; 0 means no pause "
                + "(example: seconds = 10)"),
        refused(["pause": ["seconds": "10s"]],
            "blocker.toml: pause.seconds: expected a whole number of seconds (example: seconds = 10), found string \"10s\""),
        refused(["pause": ["seconds": 10.5]],
            "blocker.toml: pause.seconds: expected a whole number of seconds (example: seconds = 10), found number 10.5"),
        refused(["pause": ["after": "24h1s"]],
            "blocker.toml: pause.after: \"24h1s\" is out of range: after must be from 0s (a pause every time) to 24h "
                + "(example: after = \"15m\")"),
        refused(["pause": ["after": "15"]],
            "blocker.toml: pause.after: \"15\" is not a duration (examples: 90s, 5m, 1h30m)"),
        refused(["pause": ["ask-reason": "yes"]],
            "blocker.toml: pause.ask-reason: expected true or false (example: ask-reason = true), found string \"yes\""),
        refused(["pause": ["second": 10]],
            "blocker.toml: pause.second: unknown key \"second\" (known: seconds, after, ask-reason)"),
        refused(["pause": 10],
            "blocker.toml: pause: expected a table (write it as [pause] on a line of its own), found integer 10"),
        refused(groups(["name": "social", "apps": ["discord"], "pause": ["seconds": 200]]),
            "blocker.toml: group[0].pause.seconds: 200 is out of range: seconds must be from 0 to 120; 0 means no pause "
                + "(example: seconds = 10)"),
        refused(groups(["name": "social", "apps": ["discord"], "pause": ["per-week": 1]]),
            "blocker.toml: group[0].pause.per-week: unknown key \"per-week\" (known: seconds, after, ask-reason)"),
        refused(groups(["name": "social", "apps": ["discord"], "pause": true]),
            "blocker.toml: group[0].pause: expected a table (write it as [group.pause] on a line of its own), "
                + "found boolean true"),
        refused(["pass": ["per-week": 8]],
            "blocker.toml: pass.per-week: 8 is out of range: per-week must be from 0 to 7 passes a week "
                + "(from Monday 00:00) (example: per-week = 1)"),
        refused(["pass": ["per-week": -1]],
            "blocker.toml: pass.per-week: -1 is out of range: per-week must be from 0 to 7 passes a week "
                + "(from Monday 00:00) (example: per-week = 1)"),
        refused(["pass": ["per-week": "1"]],
            "blocker.toml: pass.per-week: expected a whole number of passes (example: per-week = 1), found string \"1\""),
        refused(["pass": ["length": "59s"]],
            "blocker.toml: pass.length: \"59s\" is out of range: length must be from 1m to 2h (example: length = \"15m\")"),
        refused(["pass": ["length": "2h1s"]],
            "blocker.toml: pass.length: \"2h1s\" is out of range: length must be from 1m to 2h (example: length = \"15m\")"),
        refused(["pass": ["length": 15]],
            "blocker.toml: pass.length: expected a duration string (example: length = \"15m\"), found integer 15"),
        refused(["pass": ["until": "1h"]],
            "blocker.toml: pass.until: unknown key \"until\" (known: per-week, length)"),
        refused(groups(["name": "social", "apps": ["discord"], "opens-per-day": 0]),
            "blocker.toml: group[0].opens-per-day: 0 is out of range: opens-per-day must be from 1 to 1000; "
                + "leave it out for no cap (example: opens-per-day = 5)"),
        refused(groups(["name": "social", "apps": ["discord"], "opens-per-day": 1001]),
            "blocker.toml: group[0].opens-per-day: 1001 is out of range: opens-per-day must be from 1 to 1000; "
                + "leave it out for no cap (example: opens-per-day = 5)"),
        refused(groups(["name": "social", "apps": ["discord"], "opens-per-day": "5"]),
            "blocker.toml: group[0].opens-per-day: expected a whole number of opens (example: opens-per-day = 5), "
                + "found string \"5\""),
    ]

    @Test(arguments: cases)
    func eachBadValueIsRefusedWithItsFix(_ test: Refusal) {
        #expect(refusal(test.document) == test.message)
    }
}
