// sway's GET_TREE answer and the walk that finds the view in front.
import BlockerJSON

/// One node of sway's GET_TREE answer, with only the fields the probe reads.
struct SwayNode {
    var id: Int
    var type: String
    var name: String?
    var appID: String?
    var pid: Int32?
    var shell: String?
    var focused: Bool
    /// Children ids, most recently focused first.
    var focus: [Int]
    var nodes: [SwayNode]
    var floatingNodes: [SwayNode]
    var windowProperties: WindowProperties?

    struct WindowProperties {
        var wmClass: String?
        var instance: String?
        var title: String?
    }

    /// nil when `json` is not a node: `id` and `type` are required, and a
    /// field the probe reads must have its type when present (null is absent).
    init?(_ json: JSONValue) {
        guard let id = json["id"]?.integer.flatMap({ Int(exactly: $0) }), let type = json["type"]?.string,
              let name = json.optional("name", \.string), let appID = json.optional("app_id", \.string),
              let pid = json.optional("pid", { $0.integer.flatMap { Int32(exactly: $0) } }),
              let shell = json.optional("shell", \.string), let focused = json.optional("focused", \.bool),
              let focus = json.optional("focus", { $0.array?.compactMapAll { $0.integer.flatMap { Int(exactly: $0) } } }),
              let nodes = json.optional("nodes", { $0.array?.compactMapAll(SwayNode.init) }),
              let floatingNodes = json.optional("floating_nodes", { $0.array?.compactMapAll(SwayNode.init) }),
              let properties = json.optional("window_properties", WindowProperties.init) else { return nil }
        (self.id, self.type, self.name, self.appID, self.pid, self.shell) = (id, type, name, appID, pid, shell)
        (self.focused, self.focus, self.nodes, self.floatingNodes) = (focused ?? false, focus ?? [], nodes ?? [], floatingNodes ?? [])
        windowProperties = properties
    }

    /// A window (as opposed to a split container, workspace or output):
    /// sway gives views a `shell` (xdg_shell, xwayland).
    var isView: Bool { shell != nil || appID != nil || windowProperties != nil }
}

extension SwayNode.WindowProperties {
    init?(_ json: JSONValue) {
        guard json.members != nil, let wmClass = json.optional("class", \.string),
              let instance = json.optional("instance", \.string), let title = json.optional("title", \.string) else { return nil }
        (self.wmClass, self.instance, self.title) = (wmClass, instance, title)
    }
}

extension JSONValue {
    /// `.some(nil)` when the member is absent or null, nil when it has the wrong type.
    fileprivate func optional<T>(_ key: String, _ read: (JSONValue) -> T?) -> T?? {
        guard let value = self[key], !value.isNull else { return .some(nil) }
        return read(value).map { .some($0) }
    }
}

extension Array {
    /// Every element transformed, or nil when one cannot be.
    fileprivate func compactMapAll<T>(_ transform: (Element) -> T?) -> [T]? {
        var result: [T] = []
        result.reserveCapacity(count)
        for element in self {
            guard let value = transform(element) else { return nil }
            result.append(value)
        }
        return result
    }
}

enum SwayTree {
    /// The view in front: the focused one, found by following the `focus`
    /// lists (most recent first). A focused view that is blocker's cover is
    /// reported as it is: blockerd's `OverlayFilter` knows the cover by its
    /// process, not by its app id.
    static func foreground(in root: SwayNode) -> SwayNode? {
        guard let path = pathToFocused(from: root), let focused = path.last else {
            // A layer-shell surface holds the keyboard (our layer-shell overlay,
            // a launcher) and no node is focused: in front is what sway will
            // focus again, the current workspace's most recently focused view.
            return currentWorkspace(in: root).flatMap { frontView(under: $0) }
        }
        // A focused workspace or split container: its most recently focused
        // view; an empty workspace: nothing in front.
        return frontView(under: focused)
    }

    /// The workspace reached by following the first `focus` entry down from the root.
    static func currentWorkspace(in root: SwayNode) -> SwayNode? {
        var node = root
        while node.type != "workspace" {
            let children = node.nodes + node.floatingNodes
            let next = node.focus.lazy
                .compactMap { id in children.first { $0.id == id } }
                .first { !($0.type == "output" && $0.name == "__i3") }
            guard let next else { return nil }
            node = next
        }
        return node
    }

    static func pathToFocused(from node: SwayNode) -> [SwayNode]? {
        if node.focused { return [node] }
        for child in node.nodes + node.floatingNodes {
            if let path = pathToFocused(from: child) { return [node] + path }
        }
        return nil
    }

    static func frontView(under node: SwayNode) -> SwayNode? {
        if node.isView { return node }
        if node.type == "output" && node.name == "__i3" { return nil }   // the scratchpad is hidden
        let children = node.nodes + node.floatingNodes
        let ordered = node.focus.compactMap { id in children.first { $0.id == id } }
            + children.filter { !node.focus.contains($0.id) }
        for child in ordered {
            if let view = frontView(under: child) { return view }
        }
        return nil
    }
}
