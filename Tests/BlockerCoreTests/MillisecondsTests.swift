import Testing
@testable import BlockerCore

/// `Milliseconds` is a struct, no longer `Int64`: its arithmetic is the
/// `Int64` arithmetic it replaced, and what it prints is unchanged.
@Suite struct MillisecondsTests {
    @Test func literalsAndUnitsMakeTheSameDuration() {
        let literal: Milliseconds = 5_000
        #expect(literal.ms == 5_000)
        #expect(literal == Milliseconds(ms: 5_000))
        #expect(literal == .seconds(5))
        #expect(Milliseconds.seconds(90).ms == 90_000)
        #expect(Milliseconds.minutes(5).ms == 300_000)
        #expect(Milliseconds.hours(2).ms == 7_200_000)
        #expect(Milliseconds.days(7).ms == 604_800_000)
        #expect(Milliseconds.minutes(-1).ms == -60_000)
        #expect(Milliseconds.zero.ms == 0 && Milliseconds.zero == 0)
        #expect(Milliseconds.max.ms == .max && Milliseconds.min.ms == .min)
    }

    @Test func wholeSecondsTruncateTowardZero() {
        #expect(Milliseconds(ms: 1_999).seconds == 1)
        #expect(Milliseconds(ms: -1_999).seconds == -1)
        #expect(Milliseconds(ms: 999).seconds == 0)
        #expect(Milliseconds(ms: 1_500).secondsValue == 1.5)
        #expect(Milliseconds(ms: -250).secondsValue == -0.25)
    }

    @Test func countOfAUnitTruncatesTowardZero() {
        #expect(Milliseconds.hours(1).count(of: .minutes(1)) == 60)
        #expect(Milliseconds(ms: 119_999).count(of: .minutes(1)) == 1)
        #expect(Milliseconds(ms: 120_000).count(of: .minutes(1)) == 2)
        #expect(Milliseconds(ms: 59_999).count(of: .minutes(1)) == 0)
        #expect(Milliseconds(ms: -90_000).count(of: .minutes(1)) == -1)
        #expect(Milliseconds.days(1).count(of: 1) == 86_400_000)
    }

    @Test func aShareAndAMultipleAreDurations() {
        #expect(Milliseconds.minutes(1) / 4 == 15_000)
        #expect(Milliseconds(ms: 7) / 2 == Milliseconds(ms: 3))
        #expect(Milliseconds(ms: -7) / 2 == Milliseconds(ms: -3))
        #expect(Milliseconds.seconds(2) * 3 == 6_000)
        #expect(3 * Milliseconds.seconds(2) == 6_000)
        #expect(Milliseconds.seconds(1) * -2 == Milliseconds(ms: -2_000))
    }

    @Test func theRemainderIsWhatIsLeftAfterWholeUnits() {
        #expect(Milliseconds(ms: 3_661_000) % .hours(1) == .seconds(61))
        #expect(Milliseconds(ms: 3_661_000) % .minutes(1) == .seconds(1))
        #expect(Milliseconds.hours(2) % .hours(1) == .zero)
        // As Int64's `%`: the sign of the dividend.
        #expect(Milliseconds(ms: -90_000) % .minutes(1) == Milliseconds(ms: -30_000))
        // Whole units and what is left give the duration back.
        let d = Milliseconds(ms: 5_432_109)
        #expect(Milliseconds.minutes(1) * d.count(of: .minutes(1)) + d % .minutes(1) == d)
    }

    @Test func sumsDifferencesAndNegation() {
        var d: Milliseconds = 1_000
        d += 500
        #expect(d == 1_500)
        d -= 2_000
        #expect(d == Milliseconds(ms: -500))
        #expect(-d == 500)
        #expect(-(-d) == d)
        #expect(d + -d == .zero)
        #expect(Milliseconds.seconds(5) - .seconds(7) == Milliseconds(ms: -2_000))
        #expect(Milliseconds.seconds(5) - .seconds(7) == .seconds(5) + -.seconds(7))
        #expect(-Milliseconds.max == Milliseconds(ms: -Int64.max))
    }

    @Test func durationsAreOrderedByLength() {
        #expect(Milliseconds(ms: -1) < .zero)
        #expect(Milliseconds.zero < 1)
        #expect(Milliseconds.min < .max)
        #expect(Milliseconds.seconds(59) < .minutes(1) && Milliseconds.minutes(1) <= .seconds(60))
        #expect(!(Milliseconds.minutes(1) < .seconds(60)))
        #expect([Milliseconds.hours(1), 5, .minutes(-1), .seconds(1)].sorted() == [.minutes(-1), 5, .seconds(1), .hours(1)])
        #expect(max(Milliseconds.seconds(1), 999) == 1_000 && min(Milliseconds.seconds(1), 999) == 999)
    }

    /// Interpolated, a duration is the bare number the `Int64` was: the text around it names the unit.
    @Test func describesItselfAsTheBareNumber() {
        #expect("\(Milliseconds.seconds(2)) ms" == "2000 ms")
        #expect(Milliseconds(ms: -5).description == "-5")
        #expect(String(describing: Milliseconds.zero) == "0")
    }

    @Test func twoReadingsOfOneClockGiveADuration() {
        let earlier = WallInstant(ms: 1_796_000_000_000)
        let later = WallInstant(ms: 1_796_000_060_000)
        #expect(later - earlier == .minutes(1))
        #expect(earlier - later == Milliseconds(ms: -60_000))
        #expect(later - later == .zero)
        #expect(MonotonicInstant(ms: 7_500) - MonotonicInstant(ms: 5_000) == 2_500)
        #expect(BoottimeInstant(ms: 0) - BoottimeInstant(ms: 1) == Milliseconds(ms: -1))
    }

    @Test func aDurationMovesAnInstant() {
        let start = WallInstant(ms: 1_000)
        #expect(start + .seconds(2) == WallInstant(ms: 3_000))
        #expect(start - 500 == WallInstant(ms: 500))
        #expect(start + Milliseconds(ms: -1_500) == WallInstant(ms: -500))
        #expect(start + .zero == start)
        var moved = MonotonicInstant(ms: 10)
        moved += .seconds(1)
        #expect(moved == MonotonicInstant(ms: 1_010))
        #expect((moved + .minutes(1)) - moved == .minutes(1))
        #expect(start < start + 1 && start - 1 < start)
        #expect(WallInstant(ms: 5).description == "5")   // bare, as the Int64 it replaced
    }

    /// What `DurationText` printed and parsed when `Milliseconds` was `Int64`
    /// (the same table run against that build).
    @Test func durationTextIsUnchanged() throws {
        let formats: [(Milliseconds, String, String)] = [
            (0, "0s", "0m"), (999, "0s", "0s"), (59_999, "59s", "59s"), (60_000, "1m 00s", "1m"),
            (89_999, "1m 29s", "1m"), (90_000, "1m 30s", "2m"), (3_599_999, "59m 59s", "1h 00m"),
            (3_630_000, "1h 00m", "1h 01m"), (86_399_999, "23h 59m", "24h 00m"), (93_600_000, "1d 02h", "26h 00m"),
            (604_800_000, "7d 00h", "168h 00m"), (Milliseconds(ms: -999), "-0s", "0m"),
            (Milliseconds(ms: -3_900_000), "-1h 05m", "0m"),
        ]
        for (ms, seconds, minutes) in formats {
            #expect(DurationText.format(ms) == seconds, "\(ms)")
            #expect(DurationText.format(ms, precision: .minutes) == minutes, "\(ms)")
        }
        #expect(DurationText.format(.max) == "106751991167d 07h")
        #expect(DurationText.format(.min) == "-106751991167d 07h")
        #expect(DurationText.format(.max, precision: .minutes) == "2562047788015h 13m")   // trapped before

        let parses: [(String, Milliseconds)] = [
            ("90s", 90_000), ("1h30m", 5_400_000), ("500ms", 500), ("1d2h3m4s5ms", 93_784_005),
            ("999999999d", 86_399_999_913_600_000), ("0s", 0),
        ]
        for (text, ms) in parses {
            #expect(try DurationText.parse(text) == ms, "\(text)")
        }
    }
}
