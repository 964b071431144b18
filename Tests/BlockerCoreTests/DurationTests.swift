import Testing
@testable import BlockerCore

@Suite struct DurationTests {
    @Test(arguments: [("90s", 90_000), ("5m", 300_000), ("1h30m", 5_400_000), ("2h", 7_200_000),
                      ("7d", 604_800_000), ("500ms", 500), ("1m30s", 90_000), ("1h0m5s", 3_605_000)])
    func parses(text: String, ms: Milliseconds) throws {
        #expect(try DurationText.parse(text) == ms)
    }

    @Test(arguments: ["1h3", "", "-5m", "h", "5", "1.5h", "5m1h", "5 m", "1s1s", "m5", "5x", "99999999999h"])
    func refuses(text: String) {
        #expect(throws: DurationError(text: text)) { try DurationText.parse(text) }
    }

    @Test func messageShowsExamples() {
        #expect(DurationError(text: "1h3").description == "\"1h3\" is not a duration (examples: 90s, 5m, 1h30m)")
    }

    @Test(arguments: [(3_900_000, "1h 05m"), (270_000, "4m 30s"), (45_000, "45s"), (0, "0s"),
                      (999, "0s"), (86_400_000 + 7_200_000, "1d 02h"), (-90_000, "-1m 30s")])
    func formats(ms: Milliseconds, text: String) {
        #expect(DurationText.format(ms) == text)
    }

    @Test(arguments: [(0, "0m"), (45_000, "45s"), (89_999, "1m"), (3_900_000, "1h 05m"),
                      (86_400_000 + 7_200_000, "26h 00m")])
    func formatsToTheMinute(ms: Milliseconds, text: String) {
        #expect(DurationText.format(ms, precision: .minutes) == text)
    }
}

@Suite struct ClockTextTests {
    @Test func writesTimesOfDayWithTwoDigitsEach() {
        #expect(ClockText.hoursMinutes(secondOfDay: 0) == "00:00")
        #expect(ClockText.hoursMinutes(secondOfDay: 9 * 3600 + 5 * 60 + 59) == "09:05")
        #expect(ClockText.hoursMinutes(secondOfDay: 1440 * 60) == "24:00")
        #expect(ClockText.hoursMinutesSeconds(secondOfDay: 14 * 3600 + 35 * 60 + 7) == "14:35:07")
    }

    @Test func namesWeekdaysFromMonday() {
        #expect((1...7).map(CivilDate.weekdayName) == ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"])
        #expect(CivilDate(year: 1970, month: 1, day: 1).weekdayName == "Thu")
    }
}

@Suite struct InstantTests {
    @Test func readingsOfOneClockGiveDurationsAndDurationsMoveThem() {
        let start = MonotonicInstant(ms: 5_000)
        var later = start + 1_500
        #expect(later - start == 1_500)
        later += 500
        #expect(later == MonotonicInstant(ms: 7_000) && later - 2_000 == start && start < later)
        // From the wall clock to the monotonic one only through a duration.
        let wall = WallInstant(ms: 1_796_000_000_000)
        #expect(start + (WallInstant(ms: 1_796_000_060_000) - wall) == MonotonicInstant(ms: 65_000))
    }

    /// Done at most once an interval: due when never done, once the interval
    /// has passed, and at once when the clock went back past the last time.
    @Test func somethingDoneOnceAnIntervalIsDueAgainAfterItOrAClockSetBack() {
        let last = WallInstant(ms: 1_796_000_000_000)
        #expect(last.isDue(every: .seconds(10), since: nil))
        #expect(!(last + 9_999).isDue(every: .seconds(10), since: last))
        #expect((last + 10_000).isDue(every: .seconds(10), since: last))
        #expect((last - 1).isDue(every: .seconds(10), since: last))
        #expect(!last.isDue(every: .seconds(10), since: last))
    }
}
