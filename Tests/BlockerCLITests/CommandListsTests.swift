import BlockerCLI
import Testing
import TestSupport

/// The README's table of blockerctl commands, checked against the commands'
/// declarations (`BlockerCtl.commands`). `--help`, blockerctl(1) and the
/// completions are generated from them, so they need no check.
@Suite struct CommandListsTests {
    /// The command each backquoted entry of the first column names: its leading lowercase words.
    static func readmeCommands() throws -> [String] {
        try RepositoryFile.tableRows("README.md", after: "## blockerctl").flatMap { row in
            // `\|` is a bar inside a cell ("report --output FILE.png\|FILE.svg").
            let first = row.replacing("\\|", with: "/").split(separator: "|", omittingEmptySubsequences: false)[1]
            return first.matches(of: /`([^`]*)`/).map { entry in
                entry.output.1.split(separator: " ").prefix { $0.allSatisfy { $0.isLowercase } }.joined(separator: " ")
            }
        }
    }

    @Test func theReadmesTableHasEveryVisibleCommandAndNoOther() throws {
        let listed = try Self.readmeCommands()
        let missing = BlockerCtl.visibleCommands.map { $0.spec.name }.filter { !listed.contains($0) }
        #expect(missing.isEmpty, "README.md's blockerctl table lacks \(missing)")
        let known = BlockerCtl.commands.map { $0.spec.name }
        let unknown = listed.filter { !known.contains($0) }
        #expect(unknown.isEmpty, "README.md's blockerctl table names \(unknown), which blockerctl does not have")
    }
}
