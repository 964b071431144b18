import BlockerJSON
import Foundation
import Testing

/// The writer behind blockerctl's `--json`; moved here from BlockerCLITests' OutputTests.
@Suite struct JSONWriterTests {
    @Test func stringsAreEscapedAndParseBack() throws {
        let tricky = "quote \" backslash \\ newline \n tab \t bell \u{07} del \u{7F} é 🎉 \u{2028}"
        let value = JSONValue.object([("text", .string(tricky)), ("n", .integer(-9_007_199_254_740_993)),
                                      ("list", .array([.bool(true), .null]))])
        #expect(value.rendered.hasPrefix("{\"text\":\"quote \\\" backslash \\\\ newline \\n tab \\t bell \\u0007 del \\u007f"))
        // Another parser agrees.
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(value.rendered.utf8)) as? [String: Any])
        #expect(parsed["text"] as? String == tricky)
        #expect((parsed["n"] as? NSNumber)?.int64Value == -9_007_199_254_740_993)
        #expect((parsed["list"] as? [Any])?.count == 2)
    }

    @Test func keysKeepTheirOrder() {
        #expect(JSONValue.object([("b", .integer(1)), ("a", .integer(2))]).rendered == "{\"b\":1,\"a\":2}")
    }

    @Test func everyKindRendersCompactly() {
        let value = JSONValue.array([.null, .bool(false), .integer(0), .number("1.5e3"), .string(""), .array([]), .object([]),
                                     .optional(nil), .optional("x")])
        #expect(value.rendered == #"[null,false,0,1.5e3,"",[],{},null,"x"]"#)
    }

    @Test func equalityIsStructuralAndOrdered() {
        #expect(JSONValue.object([("a", .integer(1)), ("b", .null)]) == .object([("a", .integer(1)), ("b", .null)]))
        #expect(JSONValue.object([("a", .integer(1)), ("b", .null)]) != .object([("b", .null), ("a", .integer(1))]))
        #expect(JSONValue.integer(1) != .number("1"))
    }
}
