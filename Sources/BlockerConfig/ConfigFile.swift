import BlockerCore
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

    private static func readFile(_ path: String) throws(ConfigError) -> [UInt8] {
        func failure(_ code: Int32) -> ConfigError {
            let reason = String(cString: strerror(code))
            let fix = switch code {
            case ENOENT: "create it (start from config/blocker.toml in the blocker sources) or pass --config FILE"
            case EACCES: "make it readable: chmod u+r \(path)"
            case EISDIR: "give the path of the blocker.toml file, not of its directory"
            default: "check the path and the file"
            }
            return ConfigError(file: path, message: "cannot read the config: \(reason); \(fix)")
        }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw failure(errno) }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count == 0 { return bytes }
            if count < 0 {
                if errno == EINTR { continue }
                throw failure(errno)
            }
            bytes.append(contentsOf: chunk[..<count])
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
