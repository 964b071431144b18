import BlockerCore
import BlockerProbes
import Foundation
import Testing
import TestSupport

/// The lists of probes and of their session variables outside the registry,
/// checked against it: a backend added to `ProbeRegistry.backends` fails here
/// until the man pages, the shipped config, the README and the unit helper
/// name it, and a name they invent fails too.
@Suite struct ProbeListsTests {
    /// The files that list the names `probe = …` takes, and how many lists each has.
    static let probeLists = ["docs/man/blockerd.8": 1, "docs/man/blocker.toml.5": 1, "config/blocker.toml": 1,
                             "README.md": 1]

    /// "auto | gnome | … | command" and roff's `.BR auto ", " gnome … " or " command .`:
    /// every list of names that starts with auto.
    static func lists(in text: String) -> [[String]] {
        text.split(separator: "\n").map(RepositoryFile.roffPlain).flatMap { line in
            line.matches(of: /\bauto((?:\s*(?:\||,|\bor\b)\s*[a-z0-9]+)+)/).map { match in
                ["auto"] + match.output.1.split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map(String.init)
                    .filter { $0 != "or" }
            }
        }
    }

    @Test(arguments: probeLists.keys.sorted())
    func everyListOfProbesIsTheRegistrys(file: String) throws {
        let lists = Self.lists(in: try RepositoryFile.text(file))
        #expect(lists.count == Self.probeLists[file], "\(file): \(lists)")
        for list in lists {
            #expect(list == ProbeRegistry.choiceNames, "\(file) lists the probes as \(list)")
        }
    }

    /// What may be imported besides the probes' variables: the session lock's.
    static let otherSessionVariables = [SessionLock.sessionVariable]

    /// Every `import-environment` command the documents give, as its variables.
    static func importLines(in text: String) -> [[String]] {
        text.split(separator: "\n").map(RepositoryFile.roffPlain).compactMap { line in
            guard let range = line.firstRange(of: "import-environment ") else { return nil }
            return line[range.upperBound...].split(separator: " ")
                .prefix { $0.allSatisfy { $0.isUppercase || $0 == "_" } }.map(String.init)
        }
    }

    @Test(arguments: ["scripts/enable-units.sh", "README.md", "docs/man/blockerd.8"])
    func everyImportEnvironmentCommandImportsWhatTheProbesRead(file: String) throws {
        let lines = Self.importLines(in: try RepositoryFile.text(file))
        #expect(!lines.isEmpty, "\(file) has no import-environment command")
        for variables in lines {
            let missing = ProbeRegistry.sessionVariables.filter { !variables.contains($0) }
            #expect(missing.isEmpty, "\(file): import-environment \(variables) lacks \(missing)")
            let unknown = variables.filter { !ProbeRegistry.sessionVariables.contains($0)
                && !Self.otherSessionVariables.contains($0) }
            #expect(unknown.isEmpty, "\(file): import-environment \(variables) names \(unknown), which nothing reads")
        }
    }

    @Test func blockerdsManPageNamesTheVariablesTheProbesRead() throws {
        let page = try RepositoryFile.text("docs/man/blockerd.8").split(separator: "\n")
        let entry = try #require(page.firstIndex { $0.hasPrefix("What the probes need") })
        let named = RepositoryFile.roffPlain(page[entry - 1]).dropFirst(".BR ".count)
            .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(named.sorted() == ProbeRegistry.sessionVariables.sorted(), "blockerd(8) names \(named)")
    }
}
