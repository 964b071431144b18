import Glibc

/// The process environment as the `[String: String]` every component takes
/// (so tests can pass their own).
public enum Environment {
    /// `environ` now. A name listed twice (execve(2) allows it) takes its
    /// FIRST value, the one glibc's getenv(3) returns, so blocker sees what
    /// the C libraries it loads (libxcb, sd-bus, GTK) see.
    public static func current() -> [String: String] {
        var entries: [String] = []
        var entry = environ
        while let pointer = entry.pointee {
            entries.append(String(cString: pointer))
            entry += 1
        }
        return parse(entries)
    }

    /// "NAME=value" entries (as in `environ`) by the same rule: the first
    /// value of a name wins; an entry without "=" is skipped.
    public static func parse(_ entries: [String]) -> [String: String] {
        var result: [String: String] = [:]
        for text in entries {
            guard let equals = text.firstIndex(of: "=") else { continue }
            let name = String(text[..<equals])
            if result[name] == nil { result[name] = String(text[text.index(after: equals)...]) }
        }
        return result
    }
}
