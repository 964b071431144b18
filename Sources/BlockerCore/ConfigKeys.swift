/// One table of blocker.toml and the keys it takes.
public struct ConfigTable: Sendable {
    /// `""` for the root, `daemon`, `group.schedule`.
    public let path: String
    /// Written `[[path]]`, once before each table of the array.
    public let isArray: Bool
    /// Every key it takes, sub-tables included, in the order error messages list them.
    public let keys: [String]

    init(_ path: String, isArray: Bool = false, keys: [String]) {
        self.path = path
        self.isArray = isArray
        self.keys = keys
    }

    /// Its key in its parent: `daemon`, `schedule`.
    public var key: String { path.split(separator: ".").last.map(String.init) ?? "" }

    /// `[daemon]`, `[[group.schedule]]`.
    public var header: String { isArray ? "[[\(path)]]" : "[\(path)]" }
}

/// The keys of blocker.toml, declared once. Validation refuses every other
/// key; the tests check docs/man/blocker.toml.5, config/blocker.toml, the
/// README and their own fixtures against these lists. A new key goes here,
/// into `Config` and its validation (see docs/ARCHITECTURE.md).
public enum ConfigKeys {
    public static let root = ConfigTable("", keys: ["daemon", "earn", "warn", "group", "cover", "strict",
                                                        "pause", "pass", "sync"])
    public static let daemon = ConfigTable("daemon", keys: ["probe", "poll-interval", "probe-command",
                                                            "probe-command-mode", "idle-after", "time-zone"])
    /// `[earn]`'s own keys; every other key of `[earn]` names an exercise.
    public static let earn = ConfigTable("earn", keys: ["max-per-day", "min-gap"])
    public static let warn = ConfigTable("warn", keys: ["before"])
    public static let cover = ConfigTable("cover", keys: ["pause-media", "mute"])
    public static let strict = ConfigTable("strict", keys: ["delay"])
    /// `[pause]` and `[group.pause]` take the same keys.
    static let pauseKeys = ["seconds", "after", "ask-reason"]
    public static let pause = ConfigTable("pause", keys: pauseKeys)
    public static let pass = ConfigTable("pass", keys: ["per-week", "length"])
    public static let sync = ConfigTable("sync", keys: ["folder"])
    public static let group = ConfigTable("group", isArray: true,
                                          keys: ["name", "apps", "titles", "sites", "metered", "daily-limit", "opens-per-day",
                                                 "schedule", "pause"])
    public static let schedule = ConfigTable("group.schedule", isArray: true, keys: ["days", "from", "to", "all-day"])
    public static let groupPause = ConfigTable("group.pause", keys: pauseKeys)

    /// Every table below the root, in the order the documentation has them.
    public static let tables = [daemon, earn, warn, cover, strict, pause, pass, sync, group, schedule, groupPause]
}
