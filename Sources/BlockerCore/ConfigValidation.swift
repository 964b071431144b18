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

extension Config {
    /// Validates a parsed blocker.toml. Every mistake is an error, never
    /// silently ignored: unknown keys, wrong types, values out of range.
    /// `file` only names the file in error messages.
    public init(document: ConfigValue, file: String) throws(ConfigError) {
        guard case .table(let rootTable) = document else {
            throw ConfigError(file: file, message: "the document is not a TOML table")
        }
        let root = Section(table: rootTable, path: "", file: file)
        try root.rejectUnknownKeys(known: ["daemon", "earn", "warn", "group", "cover", "strict"])

        var daemon = DaemonSettings()
        if let section = try root.table("daemon", header: "[daemon]") { daemon = try DaemonSettings(section) }
        var exercises: [Exercise] = []
        var earnLimits = EarnLimits()
        if let section = try root.table("earn", header: "[earn]") {
            exercises = try Self.exercises(section)
            earnLimits = try EarnLimits(section)
        }
        var warnBefore: [Milliseconds] = []
        if let section = try root.table("warn", header: "[warn]") { warnBefore = try Self.warnBefore(section) }
        let groups = try Self.groups(root)
        var cover = CoverSettings()
        if let section = try root.table("cover", header: "[cover]") { cover = try Self.cover(section) }

        var strict = StrictSettings()
        if let section = try root.table("strict", header: "[strict]") { strict = try StrictSettings(section) }

        self.init(daemon: daemon, exercises: exercises, warnBefore: warnBefore, groups: groups, cover: cover,
                  earnLimits: earnLimits, strict: strict)
    }

    private static func cover(_ section: Section) throws(ConfigError) -> CoverSettings {
        try section.rejectUnknownKeys(known: ["pause-media", "mute"])
        var cover = CoverSettings()
        if let pause = try section.bool("pause-media", example: "pause-media = true") { cover.pauseMedia = pause }
        if let mute = try section.bool("mute", example: "mute = true") { cover.mute = mute }
        return cover
    }

    private static func exercises(_ earn: Section) throws(ConfigError) -> [Exercise] {
        let example = "pushups = 0.5"
        var exercises: [Exercise] = []
        var seen: [String: String] = [:]  // lowercased name → key path of its first use
        // toml++ keeps tables sorted, so file order is already lost: sort by name.
        for name in earn.table.keys.sorted() where !EarnLimits.keys.contains(name) {
            let value = earn.table[name]!
            let key = Section.quoted(name)
            guard !name.isEmpty else {
                throw earn.error(key, "an exercise needs a name (example: \(example))")
            }
            if let first = seen[name.lowercased()] {
                throw earn.error(key, "duplicate exercise name \"\(name)\" (also \(first)); "
                    + "exercise names must differ, ignoring case")
            }
            seen[name.lowercased()] = earn.keyPath(key)
            let minutes: String
            let perRep: Milliseconds
            switch value {
            case .integer(let whole):
                minutes = "\(whole)"
                perRep = (1...1440).contains(whole) ? whole * 60_000 : 0
            case .float(let fraction):
                minutes = "\(fraction)"
                perRep = fraction > 0 && fraction <= 1440 ? Milliseconds((fraction * 60_000).rounded()) : 0
            default:
                throw earn.typeError(key, expected: "a number of minutes per repetition",
                                     example: example, found: value)
            }
            // Zero also catches a positive value too small to be worth a millisecond.
            guard perRep > 0 else {
                throw earn.error(key, "\(minutes) minutes per repetition is out of range: it must be "
                    + "more than 0 and at most 1440 (one day) (example: \(example))")
            }
            exercises.append(Exercise(name: name, perRep: perRep))
        }
        return exercises
    }

    private static func warnBefore(_ warn: Section) throws(ConfigError) -> [Milliseconds] {
        try warn.rejectUnknownKeys(known: ["before"])
        let example = "before = [\"5m\", \"1m\"]"
        guard let texts = try warn.stringArray("before", expected: "an array of durations", example: example)
        else { return [] }
        var seen: [Milliseconds: Int] = [:]  // duration → index of its first use
        var result: [Milliseconds] = []
        for (index, text) in texts.enumerated() {
            let key = "before[\(index)]"
            let ms = try warn.parseDuration(text, at: key)
            guard ms > 0 else {
                throw warn.error(key, "\"\(text)\" is out of range: a warning must come more than 0 "
                    + "before the balance runs out (example: \(example))")
            }
            if let first = seen[ms] {
                throw warn.error(key, "\"\(text)\" repeats warn.before[\(first)] (\"\(texts[first])\"); "
                    + "remove one")
            }
            seen[ms] = index
            result.append(ms)
        }
        return result
    }

    private static func groups(_ root: Section) throws(ConfigError) -> [AppGroup] {
        guard let sections = try root.tableArray("group", header: "group") else { return [] }
        var groups: [AppGroup] = []
        for section in sections {
            let group = try AppGroup(section)
            if let other = groups.firstIndex(where: { $0.name.lowercased() == group.name.lowercased() }) {
                throw section.error("name", "duplicate group name \"\(group.name)\" (group[\(other)] is "
                    + "\"\(groups[other].name)\"); group names must differ, ignoring case")
            }
            groups.append(group)
        }
        try rejectMeteredConflicts(groups, root: root)
        return groups
    }

    /// A window is either metered or not: the same app cannot be both.
    private static func rejectMeteredConflicts(_ groups: [AppGroup], root: Section) throws(ConfigError) {
        var firstGroup: [String: Int] = [:]  // app → index of the first group naming it
        for (index, group) in groups.enumerated() {
            for (appIndex, app) in group.apps.enumerated() {
                guard let otherIndex = firstGroup[app] else {
                    firstGroup[app] = index
                    continue
                }
                let other = groups[otherIndex]
                guard other.metered != group.metered else { continue }
                func describe(_ group: AppGroup, _ index: Int) -> String {
                    "group[\(index)] \"\(group.name)\" (metered = \(group.metered))"
                }
                throw root.error("group[\(index)].apps[\(appIndex)]",
                    "app \"\(app)\" is in \(describe(other, otherIndex)) and in \(describe(group, index)); "
                    + "a window is either metered or not: keep the app in one group, "
                    + "or give both groups the same metered")
            }
        }
    }
}

extension EarnLimits {
    /// The two names `[earn]` keeps for itself; every other key is an exercise.
    static let keys: Set<String> = ["max-per-day", "min-gap"]

    fileprivate init(_ earn: Section) throws(ConfigError) {
        self.init()
        let capExample = "max-per-day = \"2h\""
        if let (text, ms) = try earn.duration("max-per-day", example: capExample) {
            guard ms > 0 && ms <= 86_400_000 else {
                throw earn.error("max-per-day", "\"\(text)\" is out of range: max-per-day must be more than 0 "
                    + "and at most 24h; leave it out for no cap (example: \(capExample))")
            }
            maxPerDay = ms
        }
        let gapExample = "min-gap = \"1m\""
        if let (text, ms) = try earn.duration("min-gap", example: gapExample) {
            guard ms > 0 && ms <= 86_400_000 else {
                throw earn.error("min-gap", "\"\(text)\" is out of range: min-gap must be more than 0 "
                    + "and at most 24h; leave it out for no spacing (example: \(gapExample))")
            }
            minGap = ms
        }
    }
}

extension StrictSettings {
    fileprivate init(_ strict: Section) throws(ConfigError) {
        try strict.rejectUnknownKeys(known: ["delay"])
        self.init()
        let example = "delay = \"24h\""
        if let (text, ms) = try strict.duration("delay", example: example) {
            guard (Self.minimumDelay...Self.maximumDelay).contains(ms) else {
                throw strict.error("delay", "\"\(text)\" is out of range: delay must be from 1s to 30d; "
                    + "leave [strict] out to apply every change at once (example: \(example))")
            }
            delay = ms
        }
    }
}

extension DaemonSettings {
    fileprivate init(_ daemon: Section) throws(ConfigError) {
        try daemon.rejectUnknownKeys(known: ["probe", "poll-interval", "probe-command", "probe-command-mode", "idle-after",
                                             "time-zone"])
        self.init()
        let choices = ProbeChoice.allCases.map(\.rawValue).joined(separator: ", ")
        if let name = try daemon.string("probe", expected: "a probe name", example: "probe = \"auto\"") {
            guard let probe = ProbeChoice(rawValue: name) else {
                throw daemon.error("probe", "\"\(name)\" is not a probe (choose one of: \(choices))")
            }
            self.probe = probe
        }
        let pollExample = "poll-interval = \"1s\""
        if let (text, ms) = try daemon.duration("poll-interval", example: pollExample) {
            guard (200...10_000).contains(ms) else {
                throw daemon.error("poll-interval", "\"\(text)\" is out of range: poll-interval must be "
                    + "from 200ms to 10s (example: \(pollExample))")
            }
            self.pollInterval = ms
        }
        let commandExample = "probe-command = [\"/usr/local/bin/my-probe\", \"--json\"]"
        if let argv = try daemon.stringArray("probe-command", expected: "an array of strings (the program and its arguments)",
                                             example: commandExample) {
            guard let program = argv.first else {
                throw daemon.error("probe-command", "the command is empty; give the program and its "
                    + "arguments (example: \(commandExample))")
            }
            guard !program.isEmpty else {
                throw daemon.error("probe-command[0]", "the program path is empty (example: \(commandExample))")
            }
            self.probeCommand = argv
        }
        let modeExample = "probe-command-mode = \"stream\""
        if let mode = try daemon.string("probe-command-mode", expected: "once or stream", example: modeExample) {
            guard let parsed = ProbeCommandMode(rawValue: mode) else {
                throw daemon.error("probe-command-mode", "\"\(mode)\" is not a mode: once runs probe-command at "
                    + "every sample, stream runs it once and reads a line per change (example: \(modeExample))")
            }
            self.probeCommandMode = parsed
        }
        // probe-command without probe = "command" is fine: `blockerd --probe command` may pick it.
        if probe == .command && probeCommand.isEmpty {
            throw daemon.error("probe-command", "probe = \"command\" needs probe-command, the program that "
                + "prints the window in front (example: \(commandExample))")
        }
        let idleExample = "idle-after = \"10m\""
        if let (text, ms) = try daemon.duration("idle-after", example: idleExample) {
            guard ms > 0 else {
                throw daemon.error("idle-after", "\"\(text)\" is out of range: idle-after must be more than 0; "
                    + "leave it out to keep spending while idle (example: \(idleExample))")
            }
            self.idleAfter = ms
        }
        let zoneExample = "time-zone = \"Europe/Paris\""
        if let zone = try daemon.string("time-zone", expected: "a time zone name", example: zoneExample) {
            guard !zone.isEmpty, !zone.hasPrefix("/"), !zone.contains(".."), !zone.contains(where: \.isWhitespace) else {
                throw daemon.error("time-zone", "\"\(zone)\" is not a time zone name: give one of "
                    + "`timedatectl list-timezones` (example: \(zoneExample))")
            }
            self.timeZone = zone
        }
    }
}

extension AppGroup {
    fileprivate init(_ group: Section) throws(ConfigError) {
        try group.rejectUnknownKeys(known: ["name", "apps", "titles", "metered", "daily-limit", "schedule"])

        let nameExample = "name = \"social\""
        guard let name = try group.string("name", expected: "a string", example: nameExample) else {
            throw group.error("name", "every group needs a name (example: \(nameExample))")
        }
        guard !name.isEmpty else { throw group.error("name", "the name is empty (example: \(nameExample))") }

        let appsExample = "apps = [\"discord\", \"org.telegram.desktop\"]"
        guard let apps = try group.stringArray("apps", expected: "an array of strings", example: appsExample) else {
            throw group.error("apps", "every group needs apps: the app ids, WM_CLASS or program names it "
                + "covers (example: \(appsExample))")
        }
        guard !apps.isEmpty else {
            throw group.error("apps", "the list is empty; name at least one app (example: \(appsExample))")
        }
        if let empty = apps.firstIndex(of: "") {
            throw group.error("apps[\(empty)]", "the app name is empty (example: \(appsExample))")
        }

        let titlesExample = "titles = [\"YouTube\", \"Twitch\"]"
        let titleSources = try group.stringArray("titles", expected: "an array of regexes", example: titlesExample)
        var titles: [TitlePattern] = []
        for (index, source) in (titleSources ?? []).enumerated() {
            do {
                titles.append(try TitlePattern(source))
            } catch {
                switch error {
                case .tooLong(let characters):
                    // Not echoed: it may be a megabyte.
                    throw group.error("titles[\(index)]", "this regex is \(characters) characters long, more "
                        + "than \(TitlePattern.maximumLength); a title regex names what to look for "
                        + "(example: \(titlesExample))")
                case .invalid(let reason):
                    throw group.error("titles[\(index)]", "\"\(source)\" is not a valid regex: \(reason) "
                        + "(example: \(titlesExample))")
                }
            }
        }

        let metered = try group.bool("metered", example: "metered = false") ?? true

        let limitExample = "daily-limit = \"1h\""
        var dailyLimit: Milliseconds?
        if let (text, ms) = try group.duration("daily-limit", example: limitExample) {
            guard ms > 0 && ms <= 86_400_000 else {
                throw group.error("daily-limit", "\"\(text)\" is out of range: daily-limit must be more than 0 "
                    + "and at most 24h (example: \(limitExample))")
            }
            dailyLimit = ms
        }

        var schedules: [Schedule] = []
        for section in try group.tableArray("schedule", header: "group.schedule") ?? [] {
            schedules.append(try Schedule(section))
        }

        self.init(name: name, apps: apps, titles: titles, metered: metered, dailyLimit: dailyLimit,
                  schedules: schedules)
    }
}

extension Schedule {
    fileprivate init(_ schedule: Section) throws(ConfigError) {
        try schedule.rejectUnknownKeys(known: ["days", "from", "to", "all-day"])

        var days = Weekdays.all
        if let text = try schedule.string("days", expected: "a string of days", example: "days = \"Mon-Fri\"") {
            switch Weekdays.parse(text) {
            case .success(let parsed): days = parsed
            case .failure(let unknown):
                throw schedule.error("days", "unknown day \"\(unknown.word)\" (use Mon Tue Wed Thu Fri Sat Sun, "
                    + "a range like Mon-Fri, a list like Sat,Sun, or daily / weekdays / weekends)")
            }
        }

        let from = try schedule.timeOfDay("from", example: "from = \"22:30\"")
        let to = try schedule.timeOfDay("to", example: "to = \"07:00\"")
        let allDay = try schedule.bool("all-day", example: "all-day = true") ?? false
        let windowExample = "from = \"22:30\" and to = \"07:00\", or all-day = true"

        if allDay && (from != nil || to != nil) {
            throw schedule.error("all-day", "all-day = true cannot be combined with from or to; "
                + "keep either all-day = true or from/to")
        }
        switch (from, to) {
        case (nil, nil):
            guard allDay else { throw schedule.error(nil, "a schedule needs a window: \(windowExample)") }
            self.init(days: days, span: .allDay)
        case (.some(let from), .some(let to)):
            guard from.minutes != to.minutes else {
                throw schedule.error("to", "from and to are both \"\(to.text)\", which is no window; "
                    + "to block the whole day, use all-day = true")
            }
            self.init(days: days, span: .between(from: from.minutes, to: to.minutes))
        case (.some(let from), nil):
            throw schedule.error("to", "from = \"\(from.text)\" needs a to (example: to = \"07:00\")")
        case (nil, .some(let to)):
            throw schedule.error("from", "to = \"\(to.text)\" needs a from (example: from = \"22:30\")")
        }
    }
}

/// One TOML table being validated, with the key path that leads to it.
private struct Section {
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
        error(key, "expected \(expected) (example: \(example)), found \(found.kindDescription)")
    }

    func rejectUnknownKeys(known: [String]) throws(ConfigError) {
        for key in table.keys.sorted() where !known.contains(key) {
            throw error(Self.quoted(key), "unknown key \"\(key)\" (known: \(known.joined(separator: ", ")))")
        }
    }

    /// A sub-table written as `[header]`.
    func table(_ key: String, header: String) throws(ConfigError) -> Section? {
        guard let value = table[key] else { return nil }
        guard case .table(let contents) = value else {
            throw error(key, "expected a table (write it as \(header) on a line of its own), "
                + "found \(value.kindDescription)")
        }
        return Section(table: contents, path: keyPath(key), file: file)
    }

    /// An array of tables written as `[[header]]`, one table each.
    func tableArray(_ key: String, header: String) throws(ConfigError) -> [Section]? {
        guard let value = table[key] else { return nil }
        let fix = "write [[\(header)]] (double brackets) before each one"
        switch value {
        case .table:
            throw error(key, "expected an array of tables, found a single table; "
                + "write [[\(header)]] instead of [\(header)], once before each one")
        case .array(let elements):
            var sections: [Section] = []
            for (index, element) in elements.enumerated() {
                guard case .table(let contents) = element else {
                    throw error("\(key)[\(index)]", "expected a table (\(fix)), found \(element.kindDescription)")
                }
                sections.append(Section(table: contents, path: keyPath("\(key)[\(index)]"), file: file))
            }
            return sections
        default:
            throw error(key, "expected an array of tables (\(fix)), found \(value.kindDescription)")
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
            throw typeError(key, expected: "true or false", example: example, found: value)
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
                throw typeError("\(key)[\(index)]", expected: "a string", example: example, found: element)
            }
            strings.append(text)
        }
        return strings
    }

    /// The text as written (for messages) and its value.
    func duration(_ key: String, example: String) throws(ConfigError) -> (String, Milliseconds)? {
        guard let text = try string(key, expected: "a duration string", example: example) else { return nil }
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
        guard let text = try string(key, expected: "a time of day \"HH:MM\"", example: example) else {
            return nil
        }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        func number(_ part: Substring, digits: ClosedRange<Int>) -> Int? {
            guard digits.contains(part.count), part.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            return Int(part)
        }
        guard (2...3).contains(parts.count), let hours = number(parts[0], digits: 1...2),
              let minutes = number(parts[1], digits: 2...2) else {
            throw error(key, "\"\(text)\" is not a time of day; write \"HH:MM\" (example: \(example))")
        }
        if parts.count == 3 {
            // A TOML local time: "SS" or "SS.fraction", which must be zero.
            let seconds = parts[2].split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
            let isDigits = { (part: Substring) in !part.isEmpty && part.allSatisfy { $0.isASCII && $0.isNumber } }
            guard seconds[0].count == 2, seconds.allSatisfy(isDigits) else {
                throw error(key, "\"\(text)\" is not a time of day; write \"HH:MM\" (example: \(example))")
            }
            guard seconds.allSatisfy({ $0.allSatisfy { $0 == "0" } }) else {
                throw error(key, "\"\(text)\" has seconds; schedules are in whole minutes (example: \(example))")
            }
        }
        guard hours <= 23 else {
            throw error(key, "\"\(text)\" is not a time of day: hours go from 00 to 23 "
                + "(for midnight, use \"00:00\")")
        }
        guard minutes <= 59 else {
            throw error(key, "\"\(text)\" is not a time of day: minutes go from 00 to 59 (example: \(example))")
        }
        return (text, hours * 60 + minutes)
    }
}
