@testable import BlockerJSON
import Testing

/// The strict reader; moved here from BlockerProbesTests' FlatJSONTests.
@Suite struct JSONReaderTests {
    func parse(_ text: String) -> JSONValue? { try? JSONReader.value(text) }

    @Test func readsEveryKindOfValue() {
        let m = parse(#" { "app" : "fire\"fox\\", "pid": -12, "x": 1.5e3, "ok": true, "no": false, "n": null, "a": [1, {"b": []}], "o": {"k": "v"} } "#)
        #expect(m?["app"] == .string("fire\"fox\\"))
        #expect(m?["pid"] == .integer(-12))
        #expect(m?["x"] == .number("1.5e3"))
        #expect(m?["ok"] == .bool(true) && m?["no"] == .bool(false) && m?["n"] == .null)
        #expect(m?["a"] == .array([.integer(1), .object([("b", .array([]))])]))
        #expect(m?["o"]?["k"]?.string == "v")
        #expect(m?.members?.map(\.0) == ["app", "pid", "x", "ok", "no", "n", "a", "o"])
    }

    @Test func numbersBeyondInt64StayAsWritten() {
        #expect(parse("9223372036854775807") == .integer(Int64.max))
        #expect(parse("9223372036854775808") == .number("9223372036854775808"))
        #expect(parse("-0") == .integer(0))
        #expect(parse("1E-2") == .number("1E-2"))
    }

    @Test func aRepeatedKeyReadsAsItsLastValue() {
        #expect(parse(#"{"a": 1, "a": 2}"#)?["a"] == .integer(2))
        #expect(parse(#"[1]"#)?["a"] == nil)
    }

    @Test func decodesEscapesAndSurrogatePairs() {
        #expect(parse(#"{"t": "a\u00e9\n\t\/ \ud83d\ude00 é"}"#)?["t"] == .string("aé\n\t/ 😀 é"))
        #expect(parse(#""\u00E9\u00e9""#) == .string("éé"))
    }

    @Test(arguments: [
        "", "{", "}", "\"x", "{\"a\":1,}", "{\"a\" 1}", "{\"a\":01}", "{\"a\":1.}", "{\"a\":-}",
        "{\"a\":tru}", "{\"a\":\"x}", "{\"a\":\"\u{01}\"}", "{\"a\":\"\\x\"}", "{\"a\":\"\\ud83d\"}",
        "{\"a\":\"\\udc00\"}", "{} {}", "{\"a\":[1,]}", "{a:1}", "{\"a\":\"\\u12\"}", "{\"a\":\"\\u+123\"}",
        "[1 2]", "nul", "+1", ".5", "1e", "NaN",
    ])
    func refusesWhatIsNotOneValue(text: String) {
        #expect(parse(text) == nil)
    }

    @Test func refusesInvalidUTF8() {
        #expect(throws: JSONReader.Failure.self) {
            try JSONReader.value([0x7B, 0x22, 0x61, 0x22, 0x3A, 0x22, 0xFF, 0x22, 0x7D])
        }
    }

    @Test func failuresSayWhatAndWhere() {
        #expect(throws: JSONReader.Failure(offset: 6, reason: "expected \"}\" (the input ended)")) { try JSONReader.value(#"{"a":1"#) }
        #expect(throws: JSONReader.Failure(offset: 3, reason: "more after the value")) { try JSONReader.value("{} {}") }
    }

    @Test func depthIsBounded() throws {
        let limits = JSONReader.Limits(maxDepth: 32)
        let deepest = String(repeating: "[", count: 32) + String(repeating: "]", count: 32)
        #expect(throws: Never.self) { try JSONReader.value(deepest, limits: limits) }
        let tooDeep = "[" + deepest + "]"
        #expect(throws: JSONReader.Failure(offset: 32, reason: "nested deeper than 32")) {
            try JSONReader.value(tooDeep, limits: limits)
        }
        // Far too deep for the stack if it were followed: refused at the bound.
        #expect(throws: JSONReader.Failure.self) { try JSONReader.value(String(repeating: "[", count: 1_000_000)) }
    }

    @Test func sizeIsBounded() {
        let limits = JSONReader.Limits(maxBytes: 8)
        #expect(throws: Never.self) { try JSONReader.value("[1,2,3] ", limits: limits) }
        #expect(throws: JSONReader.Failure(offset: 8, reason: "more than 8 bytes")) {
            try JSONReader.value("[1,2,3,4]", limits: limits)
        }
    }

    @Test func readsWhatTheWriterWrites() throws {
        let value = JSONValue.object([("text", .string("quote \" backslash \\ newline \n bell \u{07} del \u{7F} é 🎉 \u{2028}")),
                                      ("n", .integer(-9_007_199_254_740_993)), ("x", .number("2.5e-3")),
                                      ("list", .array([.bool(true), .null, .object([])]))])
        #expect(try JSONReader.value(value.rendered) == value)
    }
}
