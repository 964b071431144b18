import BlockerCore

/// A mistake in the command line: printed with the usage line, exit 2, and
/// nothing is called.
public struct UsageError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// What the parser read for one command, by the names its spec declares.
public struct ParsedArguments: Sendable {
    public let spec: CommandSpec
    private var flags: Set<String> = []
    private var values: [String: String] = [:]
    private var positionals: [String: String] = [:]

    init(spec: CommandSpec) { self.spec = spec }

    /// Whether `--json` (by its long name) was given.
    public func flag(_ long: String) -> Bool {
        precondition(spec.options.contains { $0.long == long && $0.isFlag }, "\(spec.name) declares no flag \(long)")
        return flags.contains(long)
    }

    /// The value of `--days` (by its long name), or nil when not given.
    public func value(_ long: String) -> String? {
        precondition(spec.options.contains { $0.long == long && !$0.isFlag }, "\(spec.name) declares no option \(long)")
        return values[long]
    }

    /// The positional argument declared as `name`, or nil when left out.
    public func argument(_ name: String) -> String? {
        precondition(spec.arguments.contains { $0.name == name }, "\(spec.name) declares no argument \(name)")
        return positionals[name]
    }

    enum Outcome {
        case help
        case parsed(ParsedArguments)
    }

    /// Reads `tokens` (what follows the command's name) against `spec`.
    /// `--help`/`-h` anywhere before `--` wins over every other mistake.
    static func parse(_ tokens: [String], spec: CommandSpec) throws(UsageError) -> Outcome {
        let beforeSeparator = tokens.prefix { $0 != "--" }
        if beforeSeparator.contains(where: { $0 == "--help" || $0 == "-h" }) { return .help }

        var parsed = ParsedArguments(spec: spec)
        var positionals: [String] = []
        var rest = tokens[...]
        var optionsEnded = false
        while let token = rest.popFirst() {
            if optionsEnded || !looksLikeOption(token) {
                positionals.append(token)
                continue
            }
            if token == "--" {
                optionsEnded = true
                continue
            }
            let (name, inlineValue) = splitInlineValue(token)
            guard let option = spec.option(named: name) else {
                let known = spec.options.flatMap { [$0.long] + ($0.short.map { [$0] } ?? []) } + ["--help"]
                throw UsageError(tr("unknown option {option} for {command}", ["option": quoted(name), "command": spec.name]) + Suggestion.didYouMean(name, among: known))
            }
            if option.isFlag {
                guard inlineValue == nil else { throw UsageError(tr("{option} takes no value", ["option": option.long])) }
                guard !parsed.flags.contains(option.long) else { throw UsageError(tr("{option} is given twice", ["option": option.long])) }
                parsed.flags.insert(option.long)
            } else {
                // The next word is the value whatever it looks like: `--for -5m` should
                // be refused as a duration, not as an unknown option.
                guard let value = inlineValue ?? rest.popFirst() else {
                    throw UsageError(tr("{option} needs a value ({example})",
                                          ["option": option.long, "example": "\(option.long) \(option.valueName!)"]))
                }
                guard parsed.values[option.long] == nil else { throw UsageError(tr("{option} is given twice", ["option": option.long])) }
                parsed.values[option.long] = value
            }
        }

        for (index, value) in positionals.enumerated() {
            guard index < spec.arguments.count else {
                throw UsageError(tr("unexpected argument {argument}", ["argument": quoted(value)]))
            }
            parsed.positionals[spec.arguments[index].name] = value
        }
        if let missing = spec.arguments.first(where: { !$0.isOptional && parsed.positionals[$0.name] == nil }) {
            throw UsageError(tr("missing {argument}", ["argument": missing.name]))
        }
        if let missing = spec.options.first(where: { $0.isRequired && parsed.values[$0.long] == nil }) {
            throw UsageError(tr("missing {argument}", ["argument": "\(missing.long) \(missing.valueName ?? "")"]))
        }
        return .parsed(parsed)
    }

    /// `-5` and `-1.5` are (bad) numbers, not options: they reach the
    /// argument's own check, which says what is wrong with them.
    static func looksLikeOption(_ token: String) -> Bool {
        guard token.hasPrefix("-"), token.count > 1 else { return false }
        let second = token[token.index(after: token.startIndex)]
        return !(second.isASCII && (second.isNumber || second == "."))
    }

    private static func splitInlineValue(_ token: String) -> (String, String?) {
        guard token.hasPrefix("--"), let equals = token.firstIndex(of: "=") else { return (token, nil) }
        return (String(token[..<equals]), String(token[token.index(after: equals)...]))
    }
}

func quoted(_ text: String) -> String { "\"\(text)\"" }

/// "did you mean …" for near misses: a shared prefix or a small edit distance.
enum Suggestion {
    /// `; did you mean "status"?`, or "" when nothing is close.
    static func didYouMean(_ word: String, among candidates: [String]) -> String {
        guard let best = closest(to: word, among: candidates) else { return "" }
        return tr("; did you mean {word}?", ["word": quoted(best)])
    }

    static func closest(to word: String, among candidates: [String]) -> String? {
        let lowered = word.lowercased()
        let scored = candidates.map { candidate -> (String, Int) in
            let distance = editDistance(lowered, candidate.lowercased())
            return (candidate, distance)
        }
        // Short words are too close to everything: "-x" is not a typo of "-f".
        let stripped = lowered.drop { $0 == "-" }
        guard stripped.count >= 3 else { return nil }
        let allowed = max(1, min(3, stripped.count / 3))
        if let close = scored.filter({ $0.1 <= allowed }).min(by: { $0.1 < $1.1 }) { return close.0 }
        // "stat" → "status": a prefix of at least three letters.
        let prefixed = candidates.filter { $0.lowercased().drop { $0 == "-" }.hasPrefix(stripped) }
        return prefixed.count == 1 ? prefixed[0] : nil
    }

    /// Levenshtein distance, with an adjacent swap counting as one edit.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
    }
}
