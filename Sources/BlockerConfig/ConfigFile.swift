import BlockerCore
import BlockerSystem
import CTOML
// FoundationEssentials only (JSONDecoder, Data): full Foundation would cost the daemon memory.
import FoundationEssentials
import Glibc

extension Config {
    /// Reads and validates blocker.toml. Errors name `path` exactly as given:
    /// `FILE:LINE:COLUMN: message` for syntax, `FILE: KEYPATH: message` for values.
    public static func load(path: String) throws(ConfigError) -> Config {
        try parse(bytes: readFile(path), file: path)
    }

    /// Validates TOML text; `file` only names it in error messages (tests, `blockerctl config check`).
    public static func parse(text: String, file: String) throws(ConfigError) -> Config {
        try parse(bytes: Array(text.utf8), file: file)
    }

    private static func parse(bytes: [UInt8], file: String) throws(ConfigError) -> Config {
        let json = try TOMLParser.json(from: bytes, file: file)
        let document: ConfigValue
        do {
            document = try JSONDecoder().decode(ConfigValue.self, from: json)
        } catch {
            // CTOML wrote this JSON itself, so this is a bug, not a user mistake.
            throw ConfigError(file: file, message: "internal error: cannot read the parser's JSON: \(error)")
        }
        return try Config(document: document, file: file)
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

/// The only place that touches CTOML: TOML bytes in, JSON bytes (or a positioned error) out.
private enum TOMLParser {
    static func json(from toml: [UInt8], file: String) throws(ConfigError) -> Data {
        // A trailing NUL keeps the buffer's address non-nil even for an empty file; it is not counted.
        let terminated = toml + [0]
        var error: UnsafeMutablePointer<CChar>?
        let json = terminated.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { text in
                ctoml_parse_to_json(text.baseAddress!, toml.count, &error)
            }
        }
        guard let json else {
            defer { ctoml_free(error) }
            throw syntaxError(error.map { String(cString: $0) }, file: file)
        }
        defer { ctoml_free(json) }
        return Data(bytes: json, count: strlen(json))
    }

    /// Splits CTOML's "LINE:COLUMN: message" into a `ConfigError`.
    private static func syntaxError(_ text: String?, file: String) -> ConfigError {
        guard let text else { return ConfigError(file: file, message: "out of memory while parsing") }
        let parts = text.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, let line = Int(parts[0]), let column = Int(parts[1]) else {
            return ConfigError(file: file, message: text)
        }
        var message = parts[2]
        if message.first == " " { message.removeFirst() }
        return ConfigError(file: file, line: line, column: column, message: String(message))
    }
}
