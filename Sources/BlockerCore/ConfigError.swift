/// Why blocker.toml was refused. `description` is the line a person sees:
/// `FILE:LINE:COLUMN: message` for a syntax error, `FILE: KEYPATH: message`
/// for a value that parsed but makes no sense, `FILE: message` otherwise.
public struct ConfigError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The path exactly as the caller gave it.
    public var file: String
    /// 1-based position of a syntax error.
    public var line: Int?
    public var column: Int?
    /// Where a semantic error is, as TOML tooling writes it: `group[1].daily-limit`.
    public var keyPath: String?
    /// What is wrong, and the fix or an example.
    public var message: String

    public init(file: String, line: Int? = nil, column: Int? = nil, keyPath: String? = nil,
                message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.keyPath = keyPath
        self.message = message
    }

    public var description: String {
        if let line, let column { return "\(file):\(line):\(column): \(message)" }
        if let keyPath { return "\(file): \(keyPath): \(message)" }
        return "\(file): \(message)"
    }
}
