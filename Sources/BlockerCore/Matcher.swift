import Synchronization

/// Window → the groups it belongs to. A browser tab the extension told of
/// belongs to the groups whose `sites` name its site; any other window (and
/// a tab on a site no group names) to those whose `apps` name its app (app
/// id, WM_CLASS instance or class, or exe name, case-insensitive) and, when
/// the group lists `titles`, whose titles one matches.
///
/// Verdicts are cached per window (its names and title): the same window in
/// front tick after tick costs a lookup, not a regex run. A new config builds
/// a new Matcher, so a reload starts with an empty cache.
public struct Matcher: Sendable {
    private let groups: [AppGroup]
    /// Lowercased app name → indexes of the groups listing it, in config order.
    private let groupsByApp: [String: [Int]]
    private let verdicts = VerdictCache()

    public init(groups: [AppGroup]) {
        self.groups = groups
        var index: [String: [Int]] = [:]
        for (i, group) in groups.enumerated() {
            for app in Set(group.apps) { index[app, default: []].append(i) }
        }
        groupsByApp = index
    }

    public func groups(for window: Window) -> [AppGroup] {
        verdicts.verdict(for: VerdictCache.Key(window)) {
            if let site = window.tab?.site {
                let bySite = groups.indices.filter { groups[$0].sites.contains { $0.matches(site: site) } }
                if !bySite.isEmpty { return bySite }
            }
            return Set(window.identifiers.flatMap { groupsByApp[$0] ?? [] }).sorted().filter { i in
                groups[i].titles.isEmpty || groups[i].titles.contains { $0.matches(window.title) }
            }
        }.map { groups[$0] }
    }

    /// How many verdicts were computed rather than found in the cache (for tests).
    var verdictsComputed: Int { verdicts.computed }
    var verdictsCached: Int { verdicts.count }
}

/// Group indexes by window, bounded: titles change (a tab, a counter), so an
/// old window's entry gives way to a new one past `capacity`.
private final class VerdictCache: Sendable {
    struct Key: Hashable, Sendable {
        var appID, wmInstance, wmClass, exe: String?
        var title: String
        var site: String?

        init(_ window: Window) {
            site = window.tab?.site
            appID = window.appID
            wmInstance = window.wmInstance
            wmClass = window.wmClass
            exe = window.exe
            title = window.title
        }
    }

    static let capacity = 64

    private struct State {
        var entries: [Key: [Int]] = [:]
        /// A tick asks for the window in front several times (the decision,
        /// the charge, the next rule change): compared, not hashed.
        var last: (key: Key, verdict: [Int])?
        var computed = 0
    }

    // Matcher is Sendable and its copies share this: a lock, never contended (one daemon thread).
    private let state = Mutex(State())

    /// The cached verdict for `key`, or `compute()`'s, remembered.
    func verdict(for key: Key, otherwise compute: () -> [Int]) -> [Int] {
        let hit = state.withLock { state -> [Int]? in
            if let last = state.last, last.key == key { return last.verdict }
            guard let found = state.entries[key] else { return nil }
            state.last = (key, found)
            return found
        }
        if let hit { return hit }
        let verdict = compute()
        state.withLock { state in
            if state.entries.count >= Self.capacity {
                state.entries.remove(at: state.entries.startIndex)
            }
            state.entries[key] = verdict
            state.last = (key, verdict)
            state.computed += 1
        }
        return verdict
    }

    var computed: Int { state.withLock { $0.computed } }
    var count: Int { state.withLock { $0.entries.count } }
}
