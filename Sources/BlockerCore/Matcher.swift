/// Window → the groups it belongs to: its app matches one of a group's `apps`
/// (app id, WM_CLASS instance or class, or exe name, case-insensitive) and,
/// when the group lists `titles`, its title matches one of them.
public struct Matcher: Sendable {
    private let groups: [AppGroup]
    /// Lowercased app name → indexes of the groups listing it, in config order.
    private let groupsByApp: [String: [Int]]

    public init(groups: [AppGroup]) {
        self.groups = groups
        var index: [String: [Int]] = [:]
        for (i, group) in groups.enumerated() {
            for app in Set(group.apps) { index[app, default: []].append(i) }
        }
        groupsByApp = index
    }

    public func groups(for window: Window) -> [AppGroup] {
        let hits = Set(window.identifiers.flatMap { groupsByApp[$0] ?? [] })
        return hits.sorted().map { groups[$0] }.filter { group in
            group.titles.isEmpty || group.titles.contains { $0.matches(window.title) }
        }
    }
}
