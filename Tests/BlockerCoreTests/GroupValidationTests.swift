import Testing
@testable import BlockerCore

// `[[group]]` and `[[group.schedule]]` (GroupValidation.swift); the
// document helpers are ConfigValidationTests.swift's.

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
            == "blocker.toml: group[0].apps: every group needs apps (the app ids, WM_CLASS or program names it "
            + "covers, example: apps = [\"discord\", \"org.telegram.desktop\"]) or sites (websites, with "
            + "blocker's browser extension, example: sites = [\"youtube.com\", \"*.twitch.tv\"])")
        #expect(refusal(groups(["name": "social", "apps": []]))
            == "blocker.toml: group[0].apps: the list is empty; name at least one app "
            + "(example: apps = [\"discord\", \"org.telegram.desktop\"])")
        #expect(refusal(groups(["name": "social", "apps": ["discord", ""]]))
            == "blocker.toml: group[0].apps[1]: the app name is empty "
            + "(example: apps = [\"discord\", \"org.telegram.desktop\"])")
    }

    @Test func sitesAreDomainsAGroupMayHaveOnlySites() throws {
        let group = try #require(try config(groups(
            ["name": "video", "sites": ["YouTube.com", "*.twitch.tv", "bücher.de"]])).groups.first)
        #expect(group.apps.isEmpty)
        #expect(group.sites.map(\.description) == ["youtube.com", "*.twitch.tv", "xn--bcher-kva.de"])
        let both = try #require(try config(groups(
            ["name": "video", "apps": ["mpv"], "sites": ["youtube.com"]])).groups.first)
        #expect(both.apps == ["mpv"] && both.sites.count == 1)
    }

    @Test(arguments: ["https://youtube.com", "youtube.com/watch", "youtube.com:443", "you*tube.com", "", "a..b"])
    func aSiteThatIsNoSiteSaysWhatOneIs(text: String) {
        #expect(refusal(groups(["name": "video", "sites": ["reddit.com", .string(text)]]))
            == "blocker.toml: group[0].sites[1]: \"\(text)\" is not a site: give a domain such as youtube.com, "
            + "or *.twitch.tv for it and every site under it; no scheme, path or port "
            + "(example: sites = [\"youtube.com\", \"*.twitch.tv\"])")
    }

    @Test func sitesAreNotEmptyNorTwiceNorMeteredAndNot() {
        #expect(refusal(groups(["name": "video", "sites": []]))
            == "blocker.toml: group[0].sites: the list is empty; name at least one site "
            + "(example: sites = [\"youtube.com\", \"*.twitch.tv\"])")
        #expect(refusal(groups(["name": "video", "sites": ["youtube.com", "YOUTUBE.com"]]))
            == "blocker.toml: group[0].sites[1]: \"youtube.com\" is listed twice (sites[0]); keep one "
            + "(example: sites = [\"youtube.com\", \"*.twitch.tv\"])")
        #expect(refusal(groups(["name": "video", "sites": ["youtube.com"]],
                               ["name": "free", "sites": ["youtube.com"], "metered": false]))
            == "blocker.toml: group[1].sites[0]: site \"youtube.com\" is in group[0] \"video\" (metered = true) "
            + "and in group[1] \"free\" (metered = false); a window is either metered or not: keep the site "
            + "in one group, or give both groups the same metered")
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
