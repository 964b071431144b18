import BlockerCore
import Foundation

/// A pseudo-locale, as translators' tools make one: every marked text comes
/// back inside ⟦…⟧, with a 12-hour clock and weekday names no locale has. A
/// word shown outside the brackets was never marked for translation (or was
/// glued to a translated one), so it would stay English in every language.
public struct PseudoCatalog: TranslationCatalog {
    public init() {}
    public func translate(_ msgid: String) -> String { "⟦" + msgid + "⟧" }
    public func translate(_ singular: String, plural: String, count: Int) -> String {
        "⟦" + (count == 1 ? singular : plural) + "⟧"
    }
    public var conventions: LocaleConventions {
        LocaleConventions(uses24HourClock: false, amPM: ("am", "pm"),
                          weekdayAbbreviations: ["LUN", "MAR", "MER", "JEU", "VEN", "SAM", "DIM"])
    }

    /// `body`'s texts in the pseudo-locale (this task only: other tests keep English).
    public static func speaking(_ body: () -> Void) {
        Translations.$scoped.withValue(PseudoCatalog()) { body() }
    }

    /// The words of `text` outside every ⟦…⟧ (nested ones included), less
    /// what `allowed` says a person types or reads as is (program and option names).
    public static func unmarkedWords(in text: String, allowed: (Substring) -> Bool = { _ in false }) -> [Substring] {
        var outside = ""
        var depth = 0
        for character in text {
            switch character {
            case "⟦": depth += 1
            case "⟧": depth -= 1
            default: if depth == 0 { outside.append(character) } else if depth < 0 { return ["unbalanced ⟧"] }
            }
        }
        let punctuation = CharacterSet(charactersIn: "()[],;:.—·\"'")
        return outside.split(whereSeparator: { $0.isWhitespace }).map { Substring($0.trimmingCharacters(in: punctuation)) }
            .filter { word in word.contains { $0.isLetter } && !allowed(word) }
    }
}
