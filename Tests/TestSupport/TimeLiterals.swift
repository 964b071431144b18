import BlockerCore

/// `"2024-05-01"` where a test wants a `CivilDate`: only tests write days as
/// literals (blocker itself parses them with `CivilDate(iso:)` and says why it refuses).
extension CivilDate: ExpressibleByStringLiteral {
    public init(stringLiteral text: String) {
        guard let date = CivilDate(iso: text) else { preconditionFailure("\"\(text)\" is not a YYYY-MM-DD date") }
        self = date
    }
}

/// `1_000` where a test drives a clock: production code says which clock it read.
extension Instant: ExpressibleByIntegerLiteral {
    public init(integerLiteral ms: Int64) { self.init(ms: ms) }
}
