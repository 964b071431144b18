import Foundation
import Testing
import TestSupport
import BlockerCore

/// po/: the template and each language (issue 26). msgfmt --check (itest-i18n.sh)
/// checks the syntax and the plural header; this checks what msgfmt cannot:
/// that each language has every text of the template, whole, with its {names}.
@Suite struct TranslationFileTests {
    static let languages = ["fr", "nl", "it", "pt"]

    @Test(arguments: languages)
    func everyTextOfTheTemplateIsTranslatedWithItsPlaceholders(_ language: String) throws {
        let template = try POFile.read("po/blocker.pot")
        let translation = try POFile.read("po/\(language).po")
        #expect(template.entries.count > 200, "the template holds the marked texts")
        let byID = Dictionary(translation.entries.map { ($0.msgid, $0) }, uniquingKeysWith: { first, _ in first })
        for entry in template.entries {
            guard let translated = byID[entry.msgid] else {
                Issue.record("po/\(language).po lacks \"\(entry.msgid)\" (run make pot, then translate it)")
                continue
            }
            #expect(!translated.fuzzy, "po/\(language).po: \"\(entry.msgid)\" is fuzzy")
            #expect(translated.msgidPlural == entry.msgidPlural, "po/\(language).po: \"\(entry.msgid)\"'s plural")
            #expect(!translated.msgstr.isEmpty && translated.msgstr.allSatisfy { !$0.isEmpty },
                    "po/\(language).po: \"\(entry.msgid)\" is not translated")
            let wanted = Set(PlaceholderText.names(in: entry.msgid + (entry.msgidPlural ?? "")))
            for text in translated.msgstr {
                #expect(Set(PlaceholderText.names(in: text)) == wanted,
                        "po/\(language).po: \"\(text)\" must keep exactly \(wanted.sorted()) of \"\(entry.msgid)\"")
            }
        }
        let stale = Set(byID.keys).subtracting(template.entries.map(\.msgid))
        #expect(stale.isEmpty, "po/\(language).po has texts the template no longer has: \(stale.sorted())")
    }

    /// The GNOME Shell extension's cover says what blocker-overlay's says, in the same words.
    @Test(arguments: languages)
    func theExtensionsCatalogUsesTheSameWordsForTheSameTexts(_ language: String) throws {
        let extensionEntries = try POFile.read("po/gnome-shell/\(language).po").entries
        let ours = Dictionary(try POFile.read("po/\(language).po").entries.map { ($0.msgid, $0) }, uniquingKeysWith: { a, _ in a })
        var shared = 0
        for entry in extensionEntries {
            guard let own = ours[entry.msgid], (own.msgidPlural == nil) == (entry.msgidPlural == nil) else { continue }
            shared += 1
            #expect(entry.msgstr == own.msgstr, "\"\(entry.msgid)\": the extension says \(entry.msgstr), blocker \(own.msgstr)")
        }
        #expect(shared > 20, "the cover's texts are shared")
    }

    /// The desktop entry's name is the window's title ("Log exercise") in each language.
    @Test(arguments: languages)
    func theDesktopEntrysNameIsTheWindowsTitle(_ language: String) throws {
        let title = try POFile.read("po/\(language).po").entries.first { $0.msgid == "Log exercise" }
        let entry = try RepositoryFile.text("data/io.github.blockerd.LogExercise.desktop")
        #expect(entry.split(separator: "\n").contains("Name[\(language)]=\(title?.msgstr.first ?? "?")"))
    }

    /// A dictionary literal with one key twice traps when it is built: a `tr`
    /// call with two `{example}`s once crashed `config check` that way.
    @Test func noMarkedTextGivesAPlaceholderTwoValues() throws {
        let sources = FileManager.default.enumerator(atPath: RepositoryFile.root + "/Sources")!
            .compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
        #expect(sources.count > 100)
        let key = #/"([a-z_]+)": /#
        for path in sources {
            // Each call from `tr(` to the `])` that closes its values, over as many lines as it takes.
            let text = try RepositoryFile.text("Sources/" + path)
            for call in text.matches(of: #/tr\((.*?)\]\)/#.dotMatchesNewlines()) {
                let keys = call.1.matches(of: key).map { String($0.1) }
                #expect(Set(keys).count == keys.count, "Sources/\(path) names a placeholder twice: \(keys) in \(call.0.prefix(80))")
            }
        }
    }

    @Test func theReaderSeesAMissingTextAFuzzyOneAndABrokenPlaceholder() throws {
        let file = POFile(parsing: """
            msgid ""
            msgstr "Language: fr\\n"

            #, fuzzy
            msgid "Bedtime until {time}"
            msgstr "Couvre-feu jusqu'à {heure}"

            msgid "{count} rep"
            msgid_plural "{count} reps"
            msgstr[0] "{count} rép."
            msgstr[1] ""
            """)
        #expect(file.entries.count == 2)
        #expect(file.entries[0].fuzzy)
        #expect(PlaceholderText.names(in: file.entries[0].msgstr[0]) == ["heure"])
        #expect(file.entries[1].msgidPlural == "{count} reps")
        #expect(file.entries[1].msgstr == ["{count} rép.", ""])
    }
}

/// Just enough of the PO format for the checks above: entries, their flags, plural forms.
struct POFile {
    struct Entry {
        var msgid = ""
        var msgidPlural: String?
        var msgstr: [String] = []
        var fuzzy = false
    }
    var entries: [Entry] = []

    static func read(_ path: String) throws -> POFile { POFile(parsing: try RepositoryFile.text(path)) }

    init(parsing text: String) {
        var current = Entry()
        var field: WritableKeyPath<Entry, String>?
        var pluralIndex: Int?
        var started = false
        func finish() {
            if started, !current.msgid.isEmpty { entries.append(current) }   // the header's msgid is ""
            current = Entry(); field = nil; pluralIndex = nil; started = false
        }
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = raw.trimmingPrefix(while: { $0 == " " })
            if line.isEmpty { finish(); continue }
            if line.hasPrefix("#~") { continue }
            if line.hasPrefix("#,") { if line.contains("fuzzy") { current.fuzzy = true }; continue }
            if line.hasPrefix("#") { continue }
            if line.hasPrefix("msgid_plural ") {
                current.msgidPlural = Self.unquoted(line.dropFirst(13)); field = nil; pluralIndex = -1
            } else if line.hasPrefix("msgid ") {
                if started && !current.msgstr.isEmpty { finish() }
                started = true
                current.msgid = Self.unquoted(line.dropFirst(6)); field = \.msgid; pluralIndex = nil
            } else if line.hasPrefix("msgstr[") {
                current.msgstr.append(Self.unquoted(line.drop { $0 != " " }.dropFirst())); field = nil
                pluralIndex = current.msgstr.count - 1
            } else if line.hasPrefix("msgstr ") {
                current.msgstr = [Self.unquoted(line.dropFirst(7))]; field = nil; pluralIndex = 0
            } else if line.hasPrefix("\"") {
                let more = Self.unquoted(line)
                if let field { current[keyPath: field] += more }
                else if let pluralIndex, pluralIndex == -1 { current.msgidPlural! += more }
                else if let pluralIndex { current.msgstr[pluralIndex] += more }
            }
        }
        finish()
    }

    /// `"a \"b\"\n"` → `a "b"` and a line end.
    static func unquoted(_ text: Substring) -> String {
        var body = text.drop { $0 != "\"" }.dropFirst()
        if body.last == "\"" { body = body.dropLast() }
        var out = ""
        var escaped = false
        for character in body {
            if escaped {
                out.append(character == "n" ? "\n" : character == "t" ? "\t" : character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else {
                out.append(character)
            }
        }
        return out
    }
}
