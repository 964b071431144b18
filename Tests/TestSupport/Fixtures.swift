import Foundation

/// The groups most tests meter against: "social" (discord, metered) and
/// "tools" (notes, not metered).
public let socialAndToolsGroups = """
    [[group]]
    name = "social"
    apps = ["discord"]

    [[group]]
    name = "tools"
    apps = ["notes"]
    metered = false
    """

/// A blocker.toml for the command probe, by default `/bin/cat FRONTFILE`, so a
/// test says what is in front by writing that file (`writeFront`).
/// `earn` is the body of [earn]; `warnBefore` the value of [warn] before (nil:
/// no [warn]); `sections` follow (the groups).
public func commandProbeConfig(frontFile: String, pollInterval: String = "1s", probeCommand: [String]? = nil,
                               earn: String = "pushups = 0.5", warnBefore: String? = "[\"1m\"]",
                               sections: String = socialAndToolsGroups) -> String {
    let argv = (probeCommand ?? ["/bin/cat", frontFile]).map { "\"\($0)\"" }.joined(separator: ", ")
    let warn = warnBefore.map { "[warn]\nbefore = \($0)\n\n" } ?? ""
    return """
        [daemon]
        probe = "command"
        poll-interval = "\(pollInterval)"
        probe-command = [\(argv)]

        [earn]
        \(earn)

        \(warn)\(sections)
        """
}

/// What the command probe prints for `app` in front (title "t", pid 1), or for nothing in front (nil).
public func frontJSON(_ app: String?, locked: Bool = false) -> String {
    app.map { "{\"app\":\"\($0)\",\"title\":\"t\",\"pid\":1,\"locked\":\(locked)}" } ?? "null"
}

extension TemporaryDirectory {
    /// Writes `front.json` for a command probe that reads it: `app` in front, or nothing (nil).
    @discardableResult
    public func writeFront(_ app: String?, locked: Bool = false) throws -> String {
        try write("front.json", frontJSON(app, locked: locked))
    }
}

/// A program built next to the test bundle (blockerd, blockerctl).
public func builtProgram(_ name: String) -> String {
    let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    var directory = URL(fileURLWithPath: me).deletingLastPathComponent()
    // On Linux the tests run from blockerPackageTests.xctest in the products directory.
    if directory.lastPathComponent.hasSuffix(".xctest") { directory.deleteLastPathComponent() }
    return directory.appendingPathComponent(name).path
}
