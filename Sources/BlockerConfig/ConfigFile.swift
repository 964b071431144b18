import BlockerCore
import BlockerSystem

extension Config {
    /// Reads and validates blocker.toml. Errors name `path` exactly as given:
    /// `FILE:LINE:COLUMN: message` for syntax, `FILE: KEYPATH: message` for values.
    public static func load(path: String) throws(ConfigError) -> Config {
        try parse(bytes: readFile(path), file: path)
    }

    /// Reads and validates blocker.toml, and returns its text too (strict
    /// mode keeps each version the daemon read).
    public static func loadWithText(path: String) throws(ConfigError) -> (config: Config, text: String) {
        let bytes = try readFile(path)
        return (try parse(bytes: bytes, file: path), String(decoding: bytes, as: UTF8.self))
    }

    /// Validates TOML text; `file` only names it in error messages (tests, `blockerctl config check`).
    public static func parse(text: String, file: String) throws(ConfigError) -> Config {
        try parse(bytes: Array(text.utf8), file: file)
    }

    /// The bytes, their depth bounded first (deep nesting overflows toml++'s
    /// stack), parsed by toml++ into a `ConfigValue`, then validated.
    private static func parse(bytes: [UInt8], file: String) throws(ConfigError) -> Config {
        do {
            try TOMLNesting.check(bytes)
        } catch {
            throw ConfigError(file: file, line: error.line, column: error.column, message: error.message)
        }
        return try Config(document: TOMLDocument.parse(bytes, file: file), file: file)
    }

    /// A blocker.toml is a few kilobytes; this only stops `--config /dev/zero`.
    static let maximumFileSize = 1 << 20

    private static func readFile(_ path: String) throws(ConfigError) -> [UInt8] {
        do {
            return try FileContents.read(atPath: path, limit: maximumFileSize)
        } catch {
            let fix = switch error {
            case .system(.noSuchFileOrDirectory):
                "create it (start from config/blocker.toml in the blocker sources) or pass --config FILE"
            case .system(.permissionDenied): "make it readable: chmod u+r \(path)"
            case .system(.isDirectory): "give the path of the blocker.toml file, not of its directory"
            case .system, .tooLarge: "check the path and the file"
            }
            throw ConfigError(file: path, message: "cannot read the config: \(error); \(fix)")
        }
    }
}
