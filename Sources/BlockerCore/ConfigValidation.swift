/// Validation of a parsed blocker.toml: the root and its tables but the
/// groups (GroupValidation.swift); how a table is read, with key paths and
/// examples in every message, is `ConfigSection`; which keys exist, `ConfigKeys`.
extension Config {
    /// Validates a parsed blocker.toml. Every mistake is an error, never
    /// silently ignored: unknown keys, wrong types, values out of range.
    /// `file` only names the file in error messages.
    public init(document: ConfigValue, file: String) throws(ConfigError) {
        guard case .table(let rootTable) = document else {
            throw ConfigError(file: file, message: tr("the document is not a TOML table"))
        }
        let root = ConfigSection(table: rootTable, path: "", file: file)
        try root.rejectUnknownKeys(known: ConfigKeys.root.keys)

        var daemon = DaemonSettings()
        if let section = try root.table(ConfigKeys.daemon) { daemon = try DaemonSettings(section) }
        var exercises: [Exercise] = []
        var earnLimits = EarnLimits()
        if let section = try root.table(ConfigKeys.earn) {
            exercises = try Self.exercises(section)
            earnLimits = try EarnLimits(section)
        }
        var warnBefore: [Milliseconds] = []
        if let section = try root.table(ConfigKeys.warn) { warnBefore = try Self.warnBefore(section) }
        let groups = try Self.groups(root)
        var cover = CoverSettings()
        if let section = try root.table(ConfigKeys.cover) { cover = try Self.cover(section) }

        var strict = StrictSettings()
        if let section = try root.table(ConfigKeys.strict) { strict = try StrictSettings(section) }
        var pause: PauseSettings?
        if let section = try root.table(ConfigKeys.pause) { pause = try PauseSettings(section) }
        var pass: PassRule?
        if let section = try root.table(ConfigKeys.pass) { pass = try PassRule(section) }
        var sync: SyncSettings?
        if let section = try root.table(ConfigKeys.sync) { sync = try SyncSettings(section) }

        self.init(daemon: daemon, exercises: exercises, warnBefore: warnBefore, groups: groups, cover: cover,
                  earnLimits: earnLimits, strict: strict, pause: pause, pass: pass, sync: sync)
    }

    private static func cover(_ section: ConfigSection) throws(ConfigError) -> CoverSettings {
        try section.rejectUnknownKeys(known: ConfigKeys.cover.keys)
        var cover = CoverSettings()
        if let pause = try section.bool("pause-media", example: "pause-media = true") { cover.pauseMedia = pause }
        if let mute = try section.bool("mute", example: "mute = true") { cover.mute = mute }
        return cover
    }

    private static func exercises(_ earn: ConfigSection) throws(ConfigError) -> [Exercise] {
        let example = "pushups = 0.5"
        var exercises: [Exercise] = []
        var seen: [String: String] = [:]  // lowercased name → key path of its first use
        // toml++ keeps tables sorted, so file order is already lost: sort by name.
        for name in earn.table.keys.sorted() where !ConfigKeys.earn.keys.contains(name) {
            let value = earn.table[name]!
            let key = ConfigSection.quoted(name)
            guard !name.isEmpty else {
                throw earn.error(key, tr("an exercise needs a name (example: {example})", ["example": "\(example)"]))
            }
            if let first = seen[name.lowercased()] {
                throw earn.error(key, tr("duplicate exercise name \"{name}\" (also {first}); exercise names must differ, ignoring case", ["name": "\(name)", "first": "\(first)"]))
            }
            seen[name.lowercased()] = earn.keyPath(key)
            let minutes: String
            let perRep: Milliseconds
            switch value {
            case .integer(let whole):
                minutes = "\(whole)"
                perRep = (1...1440).contains(whole) ? .minutes(Int64(whole)) : 0
            case .float(let fraction):
                minutes = "\(fraction)"
                perRep = fraction > 0 && fraction <= 1440 ? Milliseconds(ms: Int64((fraction * 60_000).rounded())) : 0
            default:
                throw earn.typeError(key, expected: tr("a number of minutes per repetition"),
                                     example: example, found: value)
            }
            // Zero also catches a positive value too small to be worth a millisecond.
            guard perRep > 0 else {
                throw earn.error(key, tr("{minutes} minutes per repetition is out of range: it must be more than 0 and at most 1440 (one day) (example: {example})", ["minutes": "\(minutes)", "example": "\(example)"]))
            }
            exercises.append(Exercise(name: name, perRep: perRep))
        }
        return exercises
    }

    private static func warnBefore(_ warn: ConfigSection) throws(ConfigError) -> [Milliseconds] {
        try warn.rejectUnknownKeys(known: ConfigKeys.warn.keys)
        let example = "before = [\"5m\", \"1m\"]"
        guard let texts = try warn.stringArray("before", expected: tr("an array of durations"), example: example)
        else { return [] }
        var seen: [Milliseconds: Int] = [:]  // duration → index of its first use
        var result: [Milliseconds] = []
        for (index, text) in texts.enumerated() {
            let key = "before[\(index)]"
            let ms = try warn.parseDuration(text, at: key)
            guard ms > 0 else {
                throw warn.error(key, tr("\"{text}\" is out of range: a warning must come more than 0 before the balance runs out (example: {example})", ["text": "\(text)", "example": "\(example)"]))
            }
            if let first = seen[ms] {
                throw warn.error(key, tr("\"{text}\" repeats warn.before[{first}] (\"{value}\"); remove one", ["text": "\(text)", "first": "\(first)", "value": "\(texts[first])"]))
            }
            seen[ms] = index
            result.append(ms)
        }
        return result
    }
}

extension EarnLimits {
    init(_ earn: ConfigSection) throws(ConfigError) {
        self.init()
        let capExample = "max-per-day = \"2h\""
        if let (text, ms) = try earn.duration("max-per-day", example: capExample) {
            guard ms > 0 && ms <= 86_400_000 else {
                throw earn.error("max-per-day", tr("\"{text}\" is out of range: max-per-day must be more than 0 and at most 24h; leave it out for no cap (example: {example})", ["text": "\(text)", "example": "\(capExample)"]))
            }
            maxPerDay = ms
        }
        let gapExample = "min-gap = \"1m\""
        if let (text, ms) = try earn.duration("min-gap", example: gapExample) {
            guard ms > 0 && ms <= 86_400_000 else {
                throw earn.error("min-gap", tr("\"{text}\" is out of range: min-gap must be more than 0 and at most 24h; leave it out for no spacing (example: {example})", ["text": "\(text)", "example": "\(gapExample)"]))
            }
            minGap = ms
        }
    }
}

extension StrictSettings {
    init(_ strict: ConfigSection) throws(ConfigError) {
        try strict.rejectUnknownKeys(known: ConfigKeys.strict.keys)
        self.init()
        let example = "delay = \"24h\""
        if let (text, ms) = try strict.duration("delay", example: example) {
            guard (Self.minimumDelay...Self.maximumDelay).contains(ms) else {
                throw strict.error("delay", tr("\"{text}\" is out of range: delay must be from 1s to 30d; leave [strict] out to apply every change at once (example: {example})", ["text": "\(text)", "example": "\(example)"]))
            }
            delay = ms
        }
    }
}

extension DaemonSettings {
    init(_ daemon: ConfigSection) throws(ConfigError) {
        try daemon.rejectUnknownKeys(known: ConfigKeys.daemon.keys)
        self.init()
        let choices = ProbeChoice.allCases.map(\.rawValue).joined(separator: ", ")
        if let name = try daemon.string("probe", expected: tr("a probe name"), example: "probe = \"auto\"") {
            guard let probe = ProbeChoice(rawValue: name) else {
                throw daemon.error("probe", tr("\"{name}\" is not a probe (choose one of: {choices})", ["name": "\(name)", "choices": "\(choices)"]))
            }
            self.probe = probe
        }
        let pollExample = "poll-interval = \"1s\""
        if let (text, ms) = try daemon.duration("poll-interval", example: pollExample) {
            guard (200...10_000).contains(ms) else {
                throw daemon.error("poll-interval", tr("\"{text}\" is out of range: poll-interval must be from 200ms to 10s (example: {example})", ["text": "\(text)", "example": "\(pollExample)"]))
            }
            self.pollInterval = ms
        }
        let commandExample = "probe-command = [\"/usr/local/bin/my-probe\", \"--json\"]"
        if let argv = try daemon.stringArray("probe-command", expected: tr("an array of strings (the program and its arguments)"),
                                             example: commandExample) {
            guard let program = argv.first else {
                throw daemon.error("probe-command", tr("the command is empty; give the program and its arguments (example: {example})", ["example": "\(commandExample)"]))
            }
            guard !program.isEmpty else {
                throw daemon.error("probe-command[0]", tr("the program path is empty (example: {example})", ["example": "\(commandExample)"]))
            }
            self.probeCommand = argv
        }
        let modeExample = "probe-command-mode = \"stream\""
        if let mode = try daemon.string("probe-command-mode", expected: tr("once or stream"), example: modeExample) {
            guard let parsed = ProbeCommandMode(rawValue: mode) else {
                throw daemon.error("probe-command-mode", tr("\"{mode}\" is not a mode: once runs probe-command at every sample, stream runs it once and reads a line per change (example: {example})", ["mode": "\(mode)", "example": "\(modeExample)"]))
            }
            self.probeCommandMode = parsed
        }
        // probe-command without probe = "command" is fine: `blockerd --probe command` may pick it.
        if probe == .command && probeCommand.isEmpty {
            throw daemon.error("probe-command", tr("probe = \"command\" needs probe-command, the program that prints the window in front (example: {example})", ["example": "\(commandExample)"]))
        }
        let idleExample = "idle-after = \"10m\""
        if let (text, ms) = try daemon.duration("idle-after", example: idleExample) {
            guard ms > 0 else {
                throw daemon.error("idle-after", tr("\"{text}\" is out of range: idle-after must be more than 0; leave it out to keep spending while idle (example: {example})", ["text": "\(text)", "example": "\(idleExample)"]))
            }
            self.idleAfter = ms
        }
        let zoneExample = "time-zone = \"Europe/Paris\""
        if let zone = try daemon.string("time-zone", expected: tr("a time zone name"), example: zoneExample) {
            guard !zone.isEmpty, !zone.hasPrefix("/"), !zone.contains(".."), !zone.contains(where: \.isWhitespace) else {
                throw daemon.error("time-zone", tr("\"{zone}\" is not a time zone name: give one of `timedatectl list-timezones` (example: {example})", ["zone": "\(zone)", "example": "\(zoneExample)"]))
            }
            self.timeZone = zone
        }
    }
}

