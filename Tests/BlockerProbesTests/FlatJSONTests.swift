import Testing
@testable import BlockerProbes

@Suite struct FlatJSONTests {
    func parse(_ text: String) -> [String: FlatJSON.Scalar]? { FlatJSON.object(ArraySlice(Array(text.utf8))) }

    @Test func readsTheTopObjectsScalars() {
        let m = parse(#" { "app" : "fire\"fox\\", "pid": -12, "x": 1.5e3, "ok": true, "no": false, "n": null, "a": [1, {"b": []}], "o": {"k": "v"} } "#)
        #expect(m?["app"] == .string("fire\"fox\\"))
        #expect(m?["pid"] == .integer(-12))
        #expect(m?["x"] == .number)
        #expect(m?["ok"] == .bool(true) && m?["no"] == .bool(false) && m?["n"] == .null)
        #expect(m?["a"] == .nested && m?["o"] == .nested)
    }

    @Test func decodesEscapesAndSurrogatePairs() {
        #expect(parse(#"{"t": "a\u00e9\n\t\/ \ud83d\ude00 é"}"#)?["t"] == .string("aé\n\t/ 😀 é"))
    }

    @Test(arguments: [
        "", "{", "}", "[]", "\"x\"", "{\"a\":1,}", "{\"a\" 1}", "{\"a\":01}", "{\"a\":1.}", "{\"a\":-}",
        "{\"a\":tru}", "{\"a\":\"x}", "{\"a\":\"\u{01}\"}", "{\"a\":\"\\x\"}", "{\"a\":\"\\ud83d\"}",
        "{} {}", "{\"a\":[1,]}", "{a:1}", "{\"a\":\"\\u12\"}",
    ])
    func refusesWhatIsNotOneObject(text: String) {
        #expect(parse(text) == nil)
    }

    @Test func refusesInvalidUTF8() {
        #expect(FlatJSON.object(ArraySlice([0x7B, 0x22, 0x61, 0x22, 0x3A, 0x22, 0xFF, 0x22, 0x7D])) == nil)
    }

    @Test func wrongTypesInTheContractAreAFailedSample() {
        #expect(throws: (any Error).self) { try CommandProbe.parse(Array(#"{"app": 5}"#.utf8)).get() }
        #expect(throws: (any Error).self) { try CommandProbe.parse(Array(#"{"app": "x", "pid": 1.5}"#.utf8)).get() }
        #expect(throws: (any Error).self) { try CommandProbe.parse(Array(#"{"app": "x", "locked": "yes"}"#.utf8)).get() }
        #expect(throws: (any Error).self) { try CommandProbe.parse(Array(#"{"app": "x", "pid": 99999999999}"#.utf8)).get() }
        let ok = try? CommandProbe.parse(Array(#"{"app": "x", "title": null, "extra": [1]}"#.utf8)).get()
        #expect(ok?.window?.app == "x")
    }
}
