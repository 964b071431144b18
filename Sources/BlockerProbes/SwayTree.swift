// sway's GET_TREE answer and the walk that finds the view in front.

/// One node of sway's GET_TREE answer, with only the fields the probe reads.
struct SwayNode: Decodable {
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

    struct WindowProperties: Decodable {
        var wmClass: String?
        var instance: String?
        var title: String?
        enum CodingKeys: String, CodingKey { case wmClass = "class", instance, title }
    }

    enum CodingKeys: String, CodingKey {
        case id, type, name, appID = "app_id", pid, shell, focused, focus, nodes
        case floatingNodes = "floating_nodes", windowProperties = "window_properties"
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(Int.self, forKey: .id)
        type = try c.decode(String.self, forKey: .type)
        name = try c.decodeIfPresent(String.self, forKey: .name)
        appID = try c.decodeIfPresent(String.self, forKey: .appID)
        pid = try c.decodeIfPresent(Int32.self, forKey: .pid)
        shell = try c.decodeIfPresent(String.self, forKey: .shell)
        focused = try c.decodeIfPresent(Bool.self, forKey: .focused) ?? false
        focus = try c.decodeIfPresent([Int].self, forKey: .focus) ?? []
        nodes = try c.decodeIfPresent([SwayNode].self, forKey: .nodes) ?? []
        floatingNodes = try c.decodeIfPresent([SwayNode].self, forKey: .floatingNodes) ?? []
        windowProperties = try c.decodeIfPresent(WindowProperties.self, forKey: .windowProperties)
    }

    /// A window (as opposed to a split container, workspace or output):
    /// sway gives views a `shell` (xdg_shell, xwayland).
    var isView: Bool { shell != nil || appID != nil || windowProperties != nil }
}

enum SwayTree {
    /// The view in front: the focused one, or, when the overlay holds the
    /// focus, the most recently focused other view, found by following the
    /// `focus` lists (most recent first) down from the root: sway's own
    /// history gives the "last real window" that `OverlayFilter` keeps for
    /// the X11 and Hyprland probes.
    static func foreground(in root: SwayNode, isOverlay: (SwayNode) -> Bool) -> SwayNode? {
        guard let path = pathToFocused(from: root), let focused = path.last else {
            // A layer-shell surface holds the keyboard (our layer-shell overlay,
            // a launcher) and no node is focused: in front is what sway will
            // focus again, the current workspace's most recently focused view.
            return currentWorkspace(in: root).flatMap { frontView(under: $0, skipping: isOverlay) }
        }
        guard focused.isView, isOverlay(focused) else {
            // A focused workspace or split container: its most recently focused
            // view; an empty workspace: nothing in front.
            return frontView(under: focused, skipping: isOverlay)
        }
        return frontView(under: root, skipping: isOverlay)
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

    static func frontView(under node: SwayNode, skipping isOverlay: (SwayNode) -> Bool) -> SwayNode? {
        if node.isView { return isOverlay(node) ? nil : node }
        if node.type == "output" && node.name == "__i3" { return nil }   // the scratchpad is hidden
        let children = node.nodes + node.floatingNodes
        let ordered = node.focus.compactMap { id in children.first { $0.id == id } }
            + children.filter { !node.focus.contains($0.id) }
        for child in ordered {
            if let view = frontView(under: child, skipping: isOverlay) { return view }
        }
        return nil
    }
}
