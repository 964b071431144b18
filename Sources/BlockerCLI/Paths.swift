import BlockerCore

/// Where blocker keeps its files, by the same XDG rules as blockerd
/// (a relative XDG_* value is ignored, as the spec asks).
public enum BlockerPaths {
    public static func configFile(environment: [String: String]) -> String {
        base("XDG_CONFIG_HOME", fallback: "/.config", environment) + "/blocker/blocker.toml"
    }

    public static func stateDirectory(environment: [String: String]) -> String {
        base("XDG_STATE_HOME", fallback: "/.local/state", environment) + "/blocker"
    }

    public static func ledger(environment: [String: String]) -> String {
        stateDirectory(environment: environment) + "/blocker.db"
    }

    private static func base(_ variable: String, fallback: String, _ environment: [String: String]) -> String {
        if let value = environment[variable], value.hasPrefix("/") { return value }
        return (environment["HOME"] ?? "/") + fallback
    }
}

/// Instants shown as local wall time.
struct LocalClock {
    let zone: TimeZoneRules
    /// Appended to times when the zone is a stand-in (" UTC").
    var label = ""

    /// "14:35" today, "tomorrow 14:35", else "2025-06-03 14:35".
    func describe(_ ms: Int64, now: Int64) -> String {
        let (date, second) = zone.local(atMs: ms)
        let today = zone.localDate(atMs: now)
        let time = Self.hoursMinutes(second)
        if date == today { return time + label }
        if date == today.adding(days: 1) { return "tomorrow " + time + label }
        return "\(date) \(time)\(label)"
    }

    /// "14:35:07", for `probe --watch` lines.
    func timeOfDay(_ ms: Int64) -> String {
        let second = zone.local(atMs: ms).secondOfDay
        return Self.hoursMinutes(second) + ":" + Self.two(second % 60)
    }

    private static func hoursMinutes(_ secondOfDay: Int) -> String {
        two(secondOfDay / 3600) + ":" + two(secondOfDay / 60 % 60)
    }

    private static func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
}
