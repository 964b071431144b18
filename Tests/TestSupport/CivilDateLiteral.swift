import BlockerCore

/// `"2024-05-01"` where a test wants a `CivilDate`: only tests write days as
/// literals (blocker itself parses them with `CivilDate(iso:)` and says why it refuses).
extension CivilDate: ExpressibleByStringLiteral {
    public init(stringLiteral text: String) {
        guard let date = CivilDate(iso: text) else { preconditionFailure("\"\(text)\" is not a YYYY-MM-DD date") }
        self = date
    }
}
