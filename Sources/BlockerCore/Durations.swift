/// Why a duration text was refused; `description` is the message a person sees.
public struct DurationError: Error, Equatable, CustomStringConvertible, Sendable {
    public let text: String
    public var description: String {
        tr("\"{text}\" is not a duration (examples: 90s, 5m, 1h30m)", ["text": text])
    }
}

/// Duration text as written in blocker.toml and on the command line:
/// `90s`, `5m`, `1h30m`, `2h`, `7d`, `500ms`. Units descend, each at most once.
public enum DurationText {
    private static let units: [(suffix: String, ms: Int64)] = [
        ("d", 86_400_000), ("h", 3_600_000), ("ms", 1), ("m", 60_000), ("s", 1_000),
    ]
    /// The order units must appear in (largest first).
    private static let rank: [String: Int] = ["d": 0, "h": 1, "m": 2, "s": 3, "ms": 4]

    public static func parse(_ text: String) throws(DurationError) -> Milliseconds {
        var rest = Substring(text)
        var total: Milliseconds = 0
        var lastRank = -1
        guard !rest.isEmpty else { throw DurationError(text: text) }
        while !rest.isEmpty {
            let digits = rest.prefix(while: { $0.isASCII && $0.isNumber })
            guard !digits.isEmpty, digits.count <= 9, let value = Int64(digits) else {
                throw DurationError(text: text)
            }
            rest = rest.dropFirst(digits.count)
            // "ms" must be tried before "m".
            guard let unit = units.first(where: { rest.hasPrefix($0.suffix) }),
                  let r = rank[unit.suffix], r > lastRank else {
                throw DurationError(text: text)
            }
            lastRank = r
            rest = rest.dropFirst(unit.suffix.count)
            let (product, overflow) = value.multipliedReportingOverflow(by: unit.ms)
            guard !overflow else { throw DurationError(text: text) }
            total += Milliseconds(ms: product)
        }
        return total
    }

    /// How finely `format` words a duration.
    public enum Precision: Sendable {
        /// `1d 02h`, `1h 05m`, `4m 30s`, `45s`: the two largest units, truncated.
        case seconds
        /// `45m`, `26h 05m` (no days), rounded to the minute; under a minute as `.seconds`, nothing `0m`: for a chart.
        case minutes
    }

    /// `format(ms, precision: .seconds)`, as a function to pass.
    public static func format(_ ms: Milliseconds) -> String { format(ms, precision: .seconds) }

    /// A duration as a person reads it (see `Precision`).
    public static func format(_ ms: Milliseconds, precision: Precision) -> String {
        func two(_ n: Int64) -> String { zeroPadded(n, width: 2) }
        switch precision {
        case .seconds:
            if ms < 0 { return "-" + format(ms == .min ? .max : -ms) }
            let seconds = ms.seconds
            let (d, h, m, s) = (seconds / 86_400, seconds / 3600 % 24, seconds / 60 % 60, seconds % 60)
            // Translators: the short duration units; keep them short ("1j 02h" in French).
            if d > 0 { return tr("{d}d {h}h", ["d": "\(d)", "h": two(h)]) }
            if h > 0 { return tr("{h}h {m}m", ["h": "\(h)", "m": two(m)]) }
            if m > 0 { return tr("{m}m {s}s", ["m": "\(m)", "s": two(s)]) }
            return tr("{s}s", ["s": "\(s)"])
        case .minutes:
            guard ms >= 60_000 else { return ms > 0 ? format(ms) : tr("{m}m", ["m": "0"]) }
            // Rounded without adding first: `.max` would overflow.
            let minutes = ms.count(of: .minutes(1)) + (ms % .minutes(1) >= .seconds(30) ? 1 : 0)
            return minutes >= 60 ? tr("{h}h {m}m", ["h": "\(minutes / 60)", "m": two(minutes % 60)])
                : tr("{m}m", ["m": "\(minutes)"])
        }
    }
}
