/// What a run of blockerd started with that changes what it counts or sees:
/// where its ledger and config are, the zone its days are counted in, the
/// probe and the display it reads, what the dynamic linker loads into it.
/// Each start compares it with the last run's: a change is recorded, since
/// `systemctl --user set-environment` can set any of it for the next start.
public struct RunEnvironment: Equatable, Sendable {
    /// The variables kept as they are (unset is "unset").
    public static let variables = ["TZ", "TZDIR", "DISPLAY", "WAYLAND_DISPLAY", "LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT"]

    /// In a fixed order: state-dir, config, zone, probe, then `variables`.
    public private(set) var entries: [(key: String, value: String)]

    public init(stateDirectory: String, configPath: String, zone: String, probe: String, environment: [String: String]) {
        entries = [("state-dir", stateDirectory), ("config", configPath), ("zone", zone), ("probe", probe)]
        entries += Self.variables.map { ($0, environment[$0] ?? "unset") }
    }

    /// One `key=value` line each (values keep no line break).
    public var text: String {
        entries.map { "\($0.key)=\($0.value.split(whereSeparator: \.isNewline).joined(separator: " "))" }
            .joined(separator: "\n")
    }

    /// Reads `text` back; a line without `=` is skipped.
    public init(text: String) {
        entries = text.split(separator: "\n").compactMap { line in
            guard let equals = line.firstIndex(of: "=") else { return nil }
            return (String(line[..<equals]), String(line[line.index(after: equals)...]))
        }
    }

    /// "TZ: unset → Etc/GMT-14" for each entry that differs from `previous`
    /// (an entry it lacks was "unset" there).
    public func changes(since previous: RunEnvironment) -> [String] {
        entries.compactMap { entry in
            let before = previous.entries.first { $0.key == entry.key }?.value ?? "unset"
            return before == entry.value ? nil : "\(entry.key): \(before) → \(entry.value)"
        }
    }

    public static func == (a: RunEnvironment, b: RunEnvironment) -> Bool {
        a.entries.elementsEqual(b.entries) { $0 == $1 }
    }
}
