import BlockerJSON
@testable import BlockerProbes
import Testing

/// GET_TREE read through BlockerJSON, and the walk, without a sway.
@Suite struct SwayTreeTests {
    static let tree = #"""
    {"id": 1, "type": "root", "name": "root", "focused": false, "focus": [3, 2], "nodes": [
      {"id": 2, "type": "output", "name": "__i3", "focus": [], "nodes": [], "floating_nodes": []},
      {"id": 3, "type": "output", "name": "HEADLESS-1", "focus": [4], "rect": {"x": 0, "y": 0}, "nodes": [
        {"id": 4, "type": "workspace", "name": "1", "focus": [6, 5], "floating_nodes": [], "nodes": [
          {"id": 5, "type": "con", "name": "alpha", "app_id": "foot", "pid": 41, "shell": "xdg_shell",
           "focused": false, "focus": [], "nodes": [], "marks": [], "window_properties": null},
          {"id": 6, "type": "con", "name": "Earn more time", "app_id": null, "pid": 42, "shell": "xwayland",
           "focused": true, "focus": [], "nodes": [],
           "window_properties": {"class": "Blocker-overlay", "instance": "blocker-overlay", "title": "Earn more time"}}
        ]}
      ]}
    ]}
    """#

    func node(_ text: String) -> SwayNode? { (try? JSONReader.value(text)).flatMap(SwayNode.init) }

    @Test func theFocusedViewIsInFrontWhateverItsClass() throws {
        // A view whose class is "blocker-overlay" is not passed over: blockerd
        // knows its cover by its process, not by a class any app can take.
        let root = try #require(node(Self.tree))
        let front = try #require(SwayTree.foreground(in: root))
        #expect(front.id == 6 && front.windowProperties?.wmClass == "Blocker-overlay" && front.pid == 42)
    }

    @Test func aNodeNeedsItsIdAndTypeAndFieldsOfTheirType() {
        #expect(node(#"{"id": 1, "type": "root"}"#)?.nodes.isEmpty == true)
        #expect(node(#"{"type": "root"}"#) == nil)
        #expect(node(#"{"id": "1", "type": "root"}"#) == nil)
        #expect(node(#"{"id": 1, "type": "root", "focused": "yes"}"#) == nil)
        #expect(node(#"{"id": 1, "type": "root", "pid": 99999999999}"#) == nil)
        #expect(node(#"{"id": 1, "type": "root", "nodes": [{"id": 2}]}"#) == nil)
        #expect(node(#"{"id": 1, "type": "root", "window_properties": {"class": 5}}"#) == nil)
        #expect(node(#"[1]"#) == nil)
    }
}
