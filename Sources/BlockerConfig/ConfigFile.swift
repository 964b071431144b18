import BlockerCore
import BlockerJSON
import BlockerSystem
import CTOML
import Glibc

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

    private static func parse(bytes: [UInt8], file: String) throws(ConfigError) -> Config {
        do {
            try TOMLNesting.check(bytes)
        } catch {
            throw ConfigError(file: file, line: error.line, column: error.column, message: error.message)
        }
        let json = try TOMLParser.json(from: bytes, file: file)
        return try Config(document: ConfigDocumentReader.document(fromJSON: json, file: file), file: file)
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
    static func json(from toml: [UInt8], file: String) throws(ConfigError) -> [UInt8] {
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
        return json.withMemoryRebound(to: UInt8.self, capacity: strlen(json)) { bytes in
            Array(UnsafeBufferPointer(start: bytes, count: strlen(json)))
        }
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

/// toml++'s JSON → `ConfigValue`, through the project's strict, bounded JSON reader.
private enum ConfigDocumentReader {
    /// Compact JSON is about the size of the TOML (dotted keys and escapes
    /// grow it a few times); this is far above what a 1 MiB file can give.
    static let maximumJSONSize = 16 * Config.maximumFileSize

    static func document(fromJSON bytes: [UInt8], file: String) throws(ConfigError) -> ConfigValue {
        let limits = JSONReader.Limits(maxBytes: maximumJSONSize, maxDepth: TOMLNesting.maximumJSONDepth)
        let json: JSONValue
        do {
            json = try JSONReader.value(bytes, limits: limits)
        } catch {
            if bytes.count > maximumJSONSize {
                throw ConfigError(file: file, message: "the config is too large once parsed (over "
                    + "\(maximumJSONSize >> 20) MiB of values); a blocker.toml is a few kilobytes")
            }
            // The nesting scan and toml++ bound what reaches here: this is a bug, not a user mistake.
            throw ConfigError(file: file, message: "internal error: the TOML parser's output is not what "
                + "blocker reads (\(error) of its JSON); please report it with this file")
        }
        do {
            return try configValue(json)
        } catch {
            throw ConfigError(file: file, message: "internal error: the TOML parser's output holds "
                + "\(error.what); please report it with this file")
        }
    }

    private struct Unexpected: Error { var what: String }

    private static func configValue(_ json: JSONValue) throws(Unexpected) -> ConfigValue {
        switch json {
        case .bool(let flag): return .bool(flag)
        case .integer(let number): return .integer(number)
        case .string(let text): return .string(text)
        case .number(let text):
            guard let number = Double(text) else { throw Unexpected(what: "the number \(text)") }
            return .float(number)
        case .array(let values): var array: [ConfigValue] = []
            array.reserveCapacity(values.count)
            for value in values { array.append(try configValue(value)) }
            return .array(array)
        case .object(let members):
            var table: [String: ConfigValue] = [:]
            for (key, value) in members { table[key] = try configValue(value) }
            return .table(table)
        case .null: throw Unexpected(what: "a null")
        }
    }
}
