@testable import BlockerConfig
import BlockerCore
import Testing
import TestSupport

extension ConfigKeys {
    /// The root and every table under it.
    static var allTables: [ConfigTable] { [root] + tables }

    /// The keys of `table` that hold values, not tables.
    static func values(of table: ConfigTable) -> Set<String> {
        Set(table.keys.filter { key in !tables.contains { $0.path == (table.path.isEmpty ? key : "\(table.path).\(key)") } })
    }

    /// Every key that holds a value, in any table.
    static var leafKeys: Set<String> { allTables.reduce(into: []) { $0.formUnion(values(of: $1)) } }
}

/// The lists of blocker.toml's keys outside `ConfigKeys`, checked against it:
/// a key added to the declaration fails here until blocker.toml(5) and the
/// every-key fixture have it (`ShippedConfigTests` does the same for
/// config/blocker.toml), and a key they invent fails too.
@Suite struct ConfigKeyListsTests {
    @Test func everyTableIsAKeyOfItsParent() throws {
        for table in ConfigKeys.tables {
            let parentPath = table.path.split(separator: ".").dropLast().joined(separator: ".")
            let parent = try #require(ConfigKeys.allTables.first { $0.path == parentPath }, "\(table.path)")
            #expect(parent.keys.contains(table.key), "\(parent.header) does not list \(table.key)")
        }
    }

    /// The keys found under each table path of a document: "" (the root), "daemon", "group.schedule".
    static func keysByTable(_ value: ConfigValue, path: String = "", into found: inout [String: Set<String>]) {
        switch value {
        case .table(let members):
            found[path, default: []].formUnion(members.keys)
            for (key, member) in members { keysByTable(member, path: path.isEmpty ? key : "\(path).\(key)", into: &found) }
        case .array(let elements):
            for element in elements { keysByTable(element, path: path, into: &found) }
        default:
            break
        }
    }

    @Test func theEveryKeyFixtureHasEveryKeyAndNoOther() throws {
        var found: [String: Set<String>] = [:]
        Self.keysByTable(try TOMLDocument.parse(Array(ConfigDocumentTests.everyKey.utf8), file: "f"), into: &found)
        for table in ConfigKeys.allTables {
            let keys = found[table.path] ?? []
            if table.path == ConfigKeys.earn.path {
                // Every other key of [earn] is an exercise.
                #expect(keys.isSuperset(of: table.keys), "the fixture's [earn] lacks \(Set(table.keys).subtracting(keys))")
            } else {
                #expect(keys == Set(table.keys), "the fixture's \(table.header): \(keys.sorted()), declared \(table.keys)")
            }
        }
        #expect(Set(found.keys) == Set(ConfigKeys.allTables.map(\.path)), "the fixture's tables: \(found.keys.sorted())")
    }

    /// blocker.toml(5)'s KEYS section: each `.SS [table]` with the keys of its `.TP` entries.
    static func manPageKeys() throws -> [String: Set<String>] {
        let page = try RepositoryFile.text("docs/man/blocker.toml.5").split(separator: "\n", omittingEmptySubsequences: false)
        let start = try #require(page.firstIndex(of: ".SH KEYS"))
        var keys: [String: Set<String>] = [:]
        var table: String?
        for (previous, line) in zip(page[start...], page[(start + 1)...]) {
            if line.hasPrefix(".SH ") { break }
            if line.hasPrefix(".SS ") {
                table = String(line.dropFirst(4))
                keys[table!] = []
            } else if previous == ".TP", let table {
                for match in RepositoryFile.roffPlain(line).matches(of: /([a-z][a-z-]*)\s+=\s/) {
                    keys[table]!.insert(String(match.output.1))
                }
            }
        }
        return keys
    }

    @Test func theManPageDocumentsEveryKeyAndNoOther() throws {
        let documented = try Self.manPageKeys()
        #expect(Set(documented.keys) == Set(ConfigKeys.tables.map(\.header)), "blocker.toml(5)'s tables: \(documented.keys.sorted())")
        for table in ConfigKeys.tables {
            let keys = documented[table.header]?.sorted() ?? []
            #expect(keys == ConfigKeys.values(of: table).sorted(),
                    "blocker.toml(5) documents \(table.header) as \(keys), declared \(ConfigKeys.values(of: table).sorted())")
        }
    }

    @Test func theReadmesExampleNamesOnlyDeclaredKeys() throws {
        let readme = try RepositoryFile.text("README.md")
        let section = try #require(readme.firstRange(of: "\n## Configuration\n"))
        let block = try #require(readme[section.upperBound...].firstMatch(of: /```toml\n((?:.*\n)*?)```/)).output.1
        var table = ConfigKeys.root
        var checked = 0
        for line in block.split(separator: "\n") {
            if let header = line.firstMatch(of: /^(\[\[?[a-z.]+\]\]?)/) {
                table = try #require(ConfigKeys.tables.first { $0.header == header.output.1 }, "README: \(line)")
            } else if let key = line.firstMatch(of: #/^(?:# )?([a-z][a-z-]*) = /#), table.path != ConfigKeys.earn.path {
                #expect(ConfigKeys.values(of: table).contains(String(key.output.1)), "README's example: \(line)")
                checked += 1
            }
        }
        #expect(checked >= 10)
    }
}
