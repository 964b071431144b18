import BlockerConfig
import BlockerCore
import Testing

/// Inputs that crashed or stalled the loader are refused where they go
/// wrong, with the limit in the message, and nothing crashes.
@Suite struct ConfigLimitsTests {
    private func refusal(_ text: String) -> String? {
        do {
            _ = try Config.parse(text: text, file: "blocker.toml")
            return nil
        } catch {
            return error.description
        }
    }

    private func nested(_ open: String, _ middle: String, _ close: String, _ count: Int) -> String {
        String(repeating: open, count: count) + middle + String(repeating: close, count: count)
    }

    static let nestedMessage = "arrays, inline tables and dotted keys are nested more than 32 levels deep; "
        + "a blocker.toml value nests 1 (like apps = [\"discord\"]): look for a [ or { too many"

    @Test func aDottedKeyOf40000PartsIsRefusedBeforeTheParser() {
        // toml++ overflowed its stack on it (SIGSEGV).
        let key = Array(repeating: "a", count: 40_000).joined(separator: ".")
        #expect(refusal("[earn]\n" + key + " = 1\n")
            == "blocker.toml:2:1: this key has 40000 dotted parts, more than 32; "
            + "blocker.toml's keys are one word (like probe = \"auto\")")
    }

    @Test func aTableHeaderOf40000PartsIsRefusedBeforeTheParser() {
        let header = Array(repeating: "a", count: 40_000).joined(separator: ".")
        let expected = "blocker.toml:1:1: this table header has 40000 dotted parts, more than 32; "
            + "blocker.toml's headers have at most 2 (like [[group.schedule]])"
        #expect(refusal("[" + header + "]\n") == expected)
        #expect(refusal("[[" + header + "]]\n") == expected)
    }

    @Test func tenThousandNestedArraysAreRefusedAtTheFirstLevelTooMany() {
        // The 33rd "[" is at column 4 + 33.
        #expect(refusal("a = " + nested("[", "", "]", 10_000) + "\n") == "blocker.toml:1:37: " + Self.nestedMessage)
    }

    @Test func tenThousandNestedInlineTablesAreRefused() {
        // "a = " then "{b=" per level: the key inside the 32nd table would be at level 33.
        #expect(refusal("a = " + nested("{b=", "1", "}", 10_000) + "\n")
            == "blocker.toml:1:\(4 + 3 * 31 + 2): " + Self.nestedMessage)
    }

    @Test func dottedKeysInsideInlineTablesCount() {
        let eleven = Array(repeating: "k", count: 11).joined(separator: ".")
        // a's value is at level 1, each table's key 11 levels below it: 1 + 11 + 11 + 11 = 34.
        #expect(refusal("a = {\(eleven) = {\(eleven) = {\(eleven) = 1}}}\n")?.hasSuffix(Self.nestedMessage) == true)
        #expect(refusal("a = {\(eleven) = {\(eleven) = 1}}\n") == "blocker.toml: a: unknown key \"a\" "
            + "(known: daemon, earn, warn, group, cover, strict, pause, pass, sync)")
    }

    @Test func tenThousandBracketsInATitleRegexAreRefusedByLength() {
        // Swift's regex parser overflowed its stack on them.
        #expect(refusal("[[group]]\nname = \"video\"\napps = [\"firefox\"]\ntitles = ['"
                        + String(repeating: "[[", count: 10_000) + "']\n")
            == "blocker.toml: group[0].titles[0]: this regex is 20000 characters long, more than 1000; "
            + "a title regex names what to look for (example: titles = [\"YouTube\", \"Twitch\"])")
    }

    @Test func aOneMegabyteTitleRegexIsRefusedByLength() throws {
        // Compiling it took 2–5 s and about 500 MB.
        func text(_ length: Int) -> String {
            "[[group]]\nname = \"video\"\napps = [\"firefox\"]\ntitles = ['YouTube', '"
                + String(repeating: "a", count: length) + "']\n"
        }
        let clock = ContinuousClock()
        let start = clock.now
        let message = refusal(text(1_000_000))
        print("1 MB title regex refused in \(clock.now - start)")
        #expect(message == "blocker.toml: group[0].titles[1]: this regex is 1000000 characters long, more than 1000; "
            + "a title regex names what to look for (example: titles = [\"YouTube\", \"Twitch\"])")
        #expect(refusal(text(1000)) == nil)
    }

    @Test func theLimitsThemselvesAreAllowed() {
        let unknownA = "blocker.toml: a: unknown key \"a\" (known: daemon, earn, warn, group, cover, strict, pause, pass, sync)"
        // 32 parts, 32 levels: the validator, not the scan, has the last word.
        #expect(refusal(Array(repeating: "a", count: 32).joined(separator: ".") + " = 1\n") == unknownA)
        #expect(refusal("[" + Array(repeating: "a", count: 32).joined(separator: ".") + "]\n") == unknownA)
        #expect(refusal("a = " + nested("[", "1", "]", 31) + "\n") == unknownA)
        #expect(refusal("a = " + nested("[", "", "]", 32) + "\n") == unknownA)
        #expect(refusal("a = " + nested("{b=", "1", "}", 31) + "\n") == unknownA)
        #expect(refusal("a = " + nested("[", "", "]", 33) + "\n") == "blocker.toml:1:37: " + Self.nestedMessage)
        #expect(refusal(Array(repeating: "a", count: 33).joined(separator: ".") + " = 1\n")?
            .hasPrefix("blocker.toml:1:1: this key has 33 dotted parts, more than 32") == true)
    }

    @Test func theDeepestDocumentTheScanLetsThroughIsReadWhole() {
        // 32 levels of arrays of tables (two JSON levels each), then a value 32
        // levels below the last: the JSON reader must take all of it.
        var text = ""
        for depth in 1...32 { text += "[[" + Array(repeating: "a", count: depth).joined(separator: ".") + "]]\n" }
        text += Array(repeating: "b", count: 32).joined(separator: ".") + " = [1]\n"
        #expect(refusal(text) == "blocker.toml: a: unknown key \"a\" (known: daemon, earn, warn, group, cover, strict, pause, pass, sync)")
    }

    @Test func bracketsDotsAndQuotesInStringsAndCommentsAreNotNesting() {
        let many = String(repeating: "[{", count: 5000)
        let dots = String(repeating: "a.", count: 5000)
        let text = """
            # \(many) \(dots)
            [earn] # \(many)
            "\(dots)" = 1
            'b.\(dots)' = 2

            [[group]] # ]]]] }}}} \(many)
            name = "x\\"\(many)"
            apps = ["\(many)", '\(many)', \"""
            \(many)
            \\\"""\(many)\""", '''
            \(many)
            ''' , "\(dots)"] # \(many)
            titles = ['\\[\\{']

            """
        #expect(refusal(text) == nil)
    }

    @Test func theErrorIsOnTheLineItIsOn() {
        let text = """
            [earn]
            pushups = 1 # [[[[[[[[
            squats = \"""
            {{{{{{{{
            \"""
            lunges = [
              1,
              \(nested("[", "", "]", 40))
            ]

            """
        // lunges = [ is level 1; the 32nd "[" on line 8 opens level 33.
        #expect(refusal(text) == "blocker.toml:8:34: " + Self.nestedMessage)
    }

    @Test func theParsersNumbersAndSpecialFloatsAreReadWithoutFoundation() throws {
        let config = try Config.parse(text: "[earn]\npushups = 1.0\nsquats = 2\nlunges = 1.5e0\n", file: "blocker.toml")
        #expect(["pushups", "squats", "lunges"].map { config.exercise(named: $0)?.perRep } == [60_000, 120_000, 90_000])
        #expect(refusal("[earn]\npushups = inf\n") == "blocker.toml: earn.pushups: expected a number of minutes "
            + "per repetition (example: pushups = 0.5), found string \"Infinity\"")
    }
}
