/// One TOML table being validated, with the key path that leads to it.
struct ConfigSection {
    let table: [String: ConfigValue]
    /// `""` for the root, `daemon`, `group[0]`, `group[0].schedule[1]`.
    let path: String
    let file: String

    /// `key` is a known key, maybe with an index (`apps[1]`), or a user's key passed through `quoted`.
    func keyPath(_ key: String) -> String {
        path.isEmpty ? key : "\(path).\(key)"
    }

    /// A key the user chose, as TOML tooling writes it in a path: bare when it
    /// can be (`pushups`), quoted otherwise (`"jumping jacks"`).
    static func quoted(_ key: String) -> String {
        let bare = !key.isEmpty && key.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
                || scalar == "-" || scalar == "_")
        }
        return bare ? key : "\"\(key)\""
    }

    /// An error at `key` in this table (or at the table itself when nil).
    func error(_ key: String?, _ message: String) -> ConfigError {
        ConfigError(file: file, keyPath: key.map(keyPath) ?? path, message: message)
    }

    func typeError(_ key: String, expected: String, example: String, found: ConfigValue) -> ConfigError {
        error(key, tr("expected {expected} (example: {example}), found {found}", ["expected": "\(expected)", "example": "\(example)", "found": "\(found.kindDescription)"]))
    }

    func rejectUnknownKeys(known: [String]) throws(ConfigError) {
        for key in table.keys.sorted() where !known.contains(key) {
            throw error(Self.quoted(key), tr("unknown key \"{key}\" (known: {value})", ["key": "\(key)", "value": "\(known.joined(separator: ", "))"]))
        }
    }

    /// The sub-table `declared` (`[daemon]`) when this is its parent.
    func table(_ declared: ConfigTable) throws(ConfigError) -> ConfigSection? {
        let key = declared.key
        guard let value = table[key] else { return nil }
        guard case .table(let contents) = value else {
            throw error(key, tr("expected a table (write it as {header} on a line of its own), found {found}", ["header": "\(declared.header)", "found": "\(value.kindDescription)"]))
        }
        return ConfigSection(table: contents, path: keyPath(key), file: file)
    }

    /// The array of tables `declared` (`[[group]]`, one table each) when this is its parent.
    func tableArray(_ declared: ConfigTable) throws(ConfigError) -> [ConfigSection]? {
        let key = declared.key
        guard let value = table[key] else { return nil }
        let fix = tr("write {header} (double brackets) before each one", ["header": declared.header])
        switch value {
        case .table:
            throw error(key, tr("expected an array of tables, found a single table; write {header} instead of [{path}], once before each one", ["header": "\(declared.header)", "path": "\(declared.path)"]))
        case .array(let elements):
            var sections: [ConfigSection] = []
            for (index, element) in elements.enumerated() {
                guard case .table(let contents) = element else {
                    throw error("\(key)[\(index)]", tr("expected a table ({fix}), found {found}", ["fix": "\(fix)", "found": "\(element.kindDescription)"]))
                }
                sections.append(ConfigSection(table: contents, path: keyPath("\(key)[\(index)]"), file: file))
            }
            return sections
        default:
            throw error(key, tr("expected an array of tables ({fix}), found {found}", ["fix": "\(fix)", "found": "\(value.kindDescription)"]))
        }
    }

    func string(_ key: String, expected: String, example: String) throws(ConfigError) -> String? {
        guard let value = table[key] else { return nil }
        guard case .string(let text) = value else {
            throw typeError(key, expected: expected, example: example, found: value)
        }
        return text
    }

    func bool(_ key: String, example: String) throws(ConfigError) -> Bool? {
        guard let value = table[key] else { return nil }
        guard case .bool(let flag) = value else {
            throw typeError(key, expected: tr("true or false"), example: example, found: value)
        }
        return flag
    }

    func stringArray(_ key: String, expected: String, example: String) throws(ConfigError) -> [String]? {
        guard let value = table[key] else { return nil }
        guard case .array(let elements) = value else {
            throw typeError(key, expected: expected, example: example, found: value)
        }
        var strings: [String] = []
        for (index, element) in elements.enumerated() {
            guard case .string(let text) = element else {
                throw typeError("\(key)[\(index)]", expected: tr("a string"), example: example, found: element)
            }
            strings.append(text)
        }
        return strings
    }

    /// The text as written (for messages) and its value.
    func duration(_ key: String, example: String) throws(ConfigError) -> (String, Milliseconds)? {
        guard let text = try string(key, expected: tr("a duration string"), example: example) else { return nil }
        return (text, try parseDuration(text, at: key))
    }

    func parseDuration(_ text: String, at key: String) throws(ConfigError) -> Milliseconds {
        do throws(DurationError) {
            return try DurationText.parse(text)
        } catch {
            throw self.error(key, error.description)
        }
    }

    /// `"HH:MM"`, or a TOML local time (`22:30:00`), which arrives as a string.
    func timeOfDay(_ key: String, example: String) throws(ConfigError) -> (text: String, minutes: Int)? {
        guard let text = try string(key, expected: tr("a time of day \"HH:MM\""), example: example) else {
            return nil
        }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        func number(_ part: Substring, digits: ClosedRange<Int>) -> Int? {
            guard digits.contains(part.count), part.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            return Int(part)
        }
        guard (2...3).contains(parts.count), let hours = number(parts[0], digits: 1...2),
              let minutes = number(parts[1], digits: 2...2) else {
            throw error(key, tr("\"{text}\" is not a time of day; write \"HH:MM\" (example: {example})", ["text": "\(text)", "example": "\(example)"]))
        }
        if parts.count == 3 {
            // A TOML local time: "SS" or "SS.fraction", which must be zero.
            let seconds = parts[2].split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
            let isDigits = { (part: Substring) in !part.isEmpty && part.allSatisfy { $0.isASCII && $0.isNumber } }
            guard seconds[0].count == 2, seconds.allSatisfy(isDigits) else {
                throw error(key, tr("\"{text}\" is not a time of day; write \"HH:MM\" (example: {example})", ["text": "\(text)", "example": "\(example)"]))
            }
            guard seconds.allSatisfy({ $0.allSatisfy { $0 == "0" } }) else {
                throw error(key, tr("\"{text}\" has seconds; schedules are in whole minutes (example: {example})", ["text": "\(text)", "example": "\(example)"]))
            }
        }
        guard hours <= 23 else {
            throw error(key, tr("\"{text}\" is not a time of day: hours go from 00 to 23 (for midnight, use \"00:00\")", ["text": "\(text)"]))
        }
        guard minutes <= 59 else {
            throw error(key, tr("\"{text}\" is not a time of day: minutes go from 00 to 59 (example: {example})", ["text": "\(text)", "example": "\(example)"]))
        }
        return (text, hours * 60 + minutes)
    }
}
