import BlockerText
import CLinux

/// blocker's translations through glibc's gettext: text domain `blocker`, the
/// `.mo` files in `share/locale` beside the program's `bin` (so `make install`'s
/// `~/.local` and the package's `/usr` both work), or in `BLOCKER_LOCALEDIR`.
public struct GettextCatalog: TranslationCatalog {
    public static let domain = "blocker"
    public let conventions: LocaleConventions

    /// Binds the domain, reads the locale's conventions and installs the
    /// catalog for the whole process. Call once, first thing in main.
    public static func install(environment: [String: String]) {
        Translations.install(open(environment: environment))
    }

    /// The person's catalog, bound but not installed: blockerd speaks it only
    /// where a person reads (`Translations.$scoped`), and writes what it keeps
    /// (integrity notes, the journal) in English.
    public static func open(environment: [String: String]) -> GettextCatalog {
        let directory = environment["BLOCKER_LOCALEDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? besideProgram()
        _ = clinux_gettext_open(domain, directory)
        return GettextCatalog(conventions: personConventions())
    }

    // Untranslated, gettext hands back the very pointer it was given: the
    // msgid's temporary C string, gone after the call, so it is compared, not read.
    public func translate(_ msgid: String) -> String {
        msgid.withCString { id in
            guard let text = clinux_dgettext(Self.domain, id), text != id else { return msgid }
            return String(cString: text)
        }
    }

    public func translate(_ singular: String, plural: String, count: Int) -> String {
        singular.withCString { one in
            plural.withCString { many in
                guard let text = clinux_dngettext(Self.domain, one, many, UInt(max(count, 0))) else { return singular }
                if text == one { return singular }
                if text == many { return plural }
                return String(cString: text)
            }
        }
    }

    /// `PREFIX/share/locale` for a program in `PREFIX/bin`.
    static func besideProgram() -> String {
        guard let path = ProcessExecutable.current?.path, let slash = path.lastIndex(of: "/") else {
            return "/usr/share/locale"
        }
        return String(path[..<slash]) + "/../share/locale"
    }

    /// LC_TIME of the environment, or the C locale's when it is not installed.
    static func personConventions() -> LocaleConventions {
        func word(_ item: Int32) -> String? { clinux_locale_word(item).map { String(cString: $0) } }
        guard let timeFormat = word(0) else { return .c }
        let sundayFirst = (0..<7).compactMap { word(10 + Int32($0)) }
        guard sundayFirst.count == 7 else { return .c }
        // %r, %I and %l are the 12-hour clock (en_US's "%r"); everything else counts 24.
        let twelve = ["%r", "%I", "%l"].contains { timeFormat.contains($0) }
        let am = word(1).flatMap { $0.isEmpty ? nil : $0 } ?? "AM"
        let pm = word(2).flatMap { $0.isEmpty ? nil : $0 } ?? "PM"
        // D_FMT: "%d/%m/%Y" (fr), "%d-%m-%Y" (nl), "%m/%d/%Y" (en_US).
        let dateFormat = word(4) ?? ""
        let dayAt = dateFormat.firstRange(of: "%d")?.lowerBound, monthAt = dateFormat.firstRange(of: "%m")?.lowerBound
        let separator = dayAt.flatMap { at in dateFormat[at...].dropFirst(2).first }.map(String.init) ?? "-"
        return LocaleConventions(uses24HourClock: !twelve, amPM: (am, pm),
                                 weekdayAbbreviations: Array(sundayFirst.dropFirst()) + [sundayFirst[0]],
                                 dayBeforeMonth: dayAt != nil && monthAt != nil && dayAt! < monthAt!,
                                 dateSeparator: [".", "/", "-"].contains(separator) ? separator : "-")
    }
}
