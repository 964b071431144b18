import BlockerBus
import Testing
import TestSupport

/// The README's D-Bus table, checked against the checked-in introspection
/// (which `InterfaceTests` compares with what blockerd serves): a method or
/// signal added to `BlockerInterface` fails there until the XML has it, and
/// here until the README does.
@Suite struct MemberListsTests {
    /// `method Name` and `signal Name` for each member of the interface in the XML.
    static func introspected() throws -> [String] {
        let xml = try RepositoryFile.text("docs/io.github.blockerd.Blocker1.xml")
        let interface = try #require(IntrospectionXML.interfaceElement(BusNames.interface, in: xml))
        return interface.matches(of: /<(method|signal) name="(\w+)"/).map { "\($0.output.1) \($0.output.2)" }
    }

    /// The same for each row of the README's member table: `` `Status()` ``, `` signal `Warning(…)` ``.
    static func readmeMembers() throws -> [String] {
        try RepositoryFile.tableRows("README.md", after: "## D-Bus").map { row in
            let match = try #require(row.firstMatch(of: /^\| (signal )?`(\w+)\(/), "a row that names no member: \(row)")
            return "\(match.output.1 == nil ? "method" : "signal") \(match.output.2)"
        }
    }

    @Test func theReadmesTableHasEveryMemberAndNoOther() throws {
        let introspected = try Self.introspected()
        let listed = try Self.readmeMembers()
        #expect(introspected.count >= 16, "\(introspected)")
        let missing = introspected.filter { !listed.contains($0) }
        #expect(missing.isEmpty, "README.md's D-Bus table lacks \(missing)")
        let unknown = listed.filter { !introspected.contains($0) }
        #expect(unknown.isEmpty, "README.md's D-Bus table names \(unknown), which blockerd does not serve")
        #expect(Set(listed).count == listed.count, "README.md's D-Bus table repeats a member: \(listed)")
    }
}
