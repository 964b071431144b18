/// The one door to blocker's translations. Programs install a catalog once at
/// start (gettext, text domain `blocker`: BlockerSystem's `GettextCatalog`); until then,
/// and for `LANG=C`, every text is its English msgid.
///
/// Words are marked where they are written, for `xgettext` (`make pot`):
/// `tr("…")` translates now, `trn("…", "…", count:)` picks a plural form, and
/// `N_("…")` only marks a text that is stored and translated where it is shown
/// (help texts: `blockerctl man` stays English). Values go in by name,
/// `{group}`, never by concatenation, so a translation may move them.
public enum Translations {
    /// A catalog for one task and what it calls (tests: a pseudo-locale), over the installed one.
    @TaskLocal public static var scoped: (any TranslationCatalog)?

    // Set once by a program's main before any thread starts; read-only after.
    nonisolated(unsafe) private static var installed: any TranslationCatalog = EnglishCatalog()

    public static func install(_ catalog: any TranslationCatalog) { installed = catalog }

    /// The catalog in effect: the scoped one, else the installed one.
    public static var current: any TranslationCatalog { scoped ?? installed }
}

/// Where translated words and the locale's conventions come from.
public protocol TranslationCatalog: Sendable {
    func translate(_ msgid: String) -> String
    func translate(_ singular: String, plural: String, count: Int) -> String
    var conventions: LocaleConventions { get }
}

/// No catalog: the msgids, English plural rule, the C locale's conventions.
public struct EnglishCatalog: TranslationCatalog {
    public init() {}
    public func translate(_ msgid: String) -> String { msgid }
    public func translate(_ singular: String, plural: String, count: Int) -> String { count == 1 ? singular : plural }
    public var conventions: LocaleConventions { .c }
}

/// `msgid` in the current language, its `{name}`s filled from `values`.
public func tr(_ msgid: String, _ values: [String: String] = [:]) -> String {
    PlaceholderText.fill(Translations.current.translate(msgid), values)
}

/// The plural form for `count` in the current language (`{count}` is filled
/// with it), other `{name}`s from `values`.
public func trn(_ singular: String, _ plural: String, count: Int, _ values: [String: String] = [:]) -> String {
    var all = values
    all["count"] = String(count)
    return PlaceholderText.fill(Translations.current.translate(singular, plural: plural, count: count), all)
}

/// Marks `msgid` for extraction only: it is translated where it is shown (`tr(dynamic:)`).
public func N_(_ msgid: String) -> String { msgid }

/// A text marked elsewhere with `N_`, translated now.
public func tr(dynamic msgid: String, _ values: [String: String] = [:]) -> String { tr(msgid, values) }

/// `{name}` placeholders: how a translated text takes its values.
public enum PlaceholderText {
    /// `text` with each `{name}` in `values` replaced; unknown names stay as written.
    public static func fill(_ text: String, _ values: [String: String]) -> String {
        guard !values.isEmpty, text.contains("{") else { return text }
        var result = ""
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{") {
            result += rest[..<open]
            let after = rest[rest.index(after: open)...]
            if let close = after.firstIndex(of: "}"), let value = values[String(after[..<close])] {
                result += value
                rest = after[after.index(after: close)...]
            } else {
                result += "{"
                rest = after
            }
        }
        return result + rest
    }

    /// The names of `text`'s placeholders, in order (`{group}` → `group`): what a translation must keep.
    public static func names(in text: String) -> [String] {
        var names: [String] = []
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{") {
            let after = rest[rest.index(after: open)...]
            guard let close = after.firstIndex(of: "}") else { break }
            let name = after[..<close]
            if !name.isEmpty, name.allSatisfy({ $0.isLetter || $0 == "_" }) { names.append(String(name)) }
            rest = after[after.index(after: close)...]
        }
        return names
    }
}
