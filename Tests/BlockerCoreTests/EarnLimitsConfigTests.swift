import Testing
@testable import BlockerCore

@Suite struct EarnLimitsConfigTests {
    private func refusal(_ document: ConfigValue) -> String? {
        do {
            _ = try Config(document: document, file: "blocker.toml")
            return nil
        } catch {
            return error.description
        }
    }

    @Test func bothAreOptionalAndOffByDefault() throws {
        let config = try Config(document: ["earn": ["pushups": 0.5]], file: "blocker.toml")
        #expect(config.earnLimits == EarnLimits())
    }

    @Test func theyAreReadAndAreNotExercises() throws {
        let config = try Config(document: ["earn": ["pushups": 0.5, "max-per-day": "2h", "min-gap": "1m"]],
                                file: "blocker.toml")
        #expect(config.earnLimits == EarnLimits(maxPerDay: 7_200_000, minGap: 60_000))
        #expect(config.exercises.map(\.name) == ["pushups"])
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let earn: ConfigValue
        let message: String
        var testDescription: String { message }
    }

    static let cases: [Case] = [
        Case(earn: ["max-per-day": "0s"], message: "blocker.toml: earn.max-per-day: \"0s\" is out of range: max-per-day must be "
            + "more than 0 and at most 24h; leave it out for no cap (example: max-per-day = \"2h\")"),
        Case(earn: ["max-per-day": "25h"], message: "blocker.toml: earn.max-per-day: \"25h\" is out of range: max-per-day must be "
            + "more than 0 and at most 24h; leave it out for no cap (example: max-per-day = \"2h\")"),
        Case(earn: ["min-gap": "2d"], message: "blocker.toml: earn.min-gap: \"2d\" is out of range: min-gap must be "
            + "more than 0 and at most 24h; leave it out for no spacing (example: min-gap = \"1m\")"),
        Case(earn: ["max-per-day": 2], message: "blocker.toml: earn.max-per-day: expected a duration string "
            + "(example: max-per-day = \"2h\"), found integer 2"),
        Case(earn: ["min-gap": "soon"], message: "blocker.toml: earn.min-gap: \"soon\" is not a duration (examples: 90s, 5m, 1h30m)"),
    ]

    @Test(arguments: cases)
    func badValuesAreRefusedWithTheKeyAndAnExample(_ test: Case) {
        #expect(refusal(["earn": test.earn]) == test.message)
    }
}
