import BlockerCore

/// What a command accepts, declared once: the parser reads it to parse, and
/// the help text and usage line are generated from it.
public struct CommandSpec: Sendable {
    /// The words that name the command: `["status"]`, `["config", "check"]`.
    public let path: [String]
    /// One line, shown in `blockerctl --help`. Help texts are English msgids
    /// (marked `N_`), translated where they are shown: the man page and the
    /// completions stay English.
    public let abstract: String
    public let arguments: [ArgumentSpec]
    public let options: [OptionSpec]
    /// Extra paragraphs for the command's own `--help` (examples, caveats);
    /// its `{name}`s are filled from `discussionValues` (`discussionText`).
    public let discussion: String?
    public let discussionValues: [String: String]
    /// Left out of `blockerctl --help`, the man page and the completions
    /// (`completions`, `man`: what packagers run, not people).
    public let isHidden: Bool

    public init(_ path: [String], abstract: String, arguments: [ArgumentSpec] = [],
                options: [OptionSpec] = [], discussion: String? = nil, discussionValues: [String: String] = [:],
                hidden: Bool = false) {
        self.path = path
        self.abstract = abstract
        self.arguments = arguments
        self.options = options
        self.discussion = discussion
        self.discussionValues = discussionValues
        self.isHidden = hidden
    }

    public var name: String { path.joined(separator: " ") }

    /// `blockerctl block TARGET --for DURATION`, `blockerctl history [--days N] [--json]`.
    public var usage: String {
        (["blockerctl", name] + arguments.map(\.usageText) + options.map(\.usageText)).joined(separator: " ")
    }

    /// The discussion in English, its values filled (the man page).
    public var discussionText: String? { discussion.map { PlaceholderText.fill($0, discussionValues) } }

    /// The text `blockerctl NAME --help` prints, in the person's language.
    public var help: String {
        var lines = [tr("usage: {usage}", ["usage": usage]), "", tr(dynamic: abstract)]
        let rows: [(String, String)] =
            arguments.map { ($0.name, tr(dynamic: $0.help)) }
            + options.map { ($0.helpLabel, tr(dynamic: $0.help)) }
            + [(OptionSpec.help.helpLabel, tr(dynamic: OptionSpec.help.help))]
        if !arguments.isEmpty {
            lines += ["", tr("arguments:")] + HelpText.table(Array(rows.prefix(arguments.count)), width: HelpText.labelWidth(rows))
        }
        lines += ["", tr("options:")] + HelpText.table(Array(rows.dropFirst(arguments.count)), width: HelpText.labelWidth(rows))
        if let discussion { lines += ["", tr(dynamic: discussion, discussionValues)] }
        return lines.joined(separator: "\n") + "\n"
    }

    func option(named name: String) -> OptionSpec? {
        options.first { $0.long == name || $0.short == name }
    }
}

/// What Tab offers for an argument or an option's value.
public enum CompletionKind: Sendable, Equatable {
    case nothing
    case file
    /// Fixed words: `bash zsh fish`.
    case words([String])
    /// Read from the user's config when Tab is pressed (`blockerctl config names KIND`).
    case configNames(ConfigNameKind)
}

/// The names `blockerctl config names` prints, one a line.
public enum ConfigNameKind: String, Sendable, CaseIterable {
    case exercises, groups
}

/// A positional argument: `REPS`, `[EXERCISE]`.
public struct ArgumentSpec: Sendable {
    public let name: String
    public let help: String
    public let isOptional: Bool
    public let completion: CompletionKind

    public static func required(_ name: String, help: String, completion: CompletionKind = .nothing) -> ArgumentSpec {
        ArgumentSpec(name: name, help: help, isOptional: false, completion: completion)
    }

    public static func optional(_ name: String, help: String, completion: CompletionKind = .nothing) -> ArgumentSpec {
        ArgumentSpec(name: name, help: help, isOptional: true, completion: completion)
    }

    public var usageText: String { isOptional ? "[\(name)]" : name }
}

/// `--json` (a flag) or `--days N` (takes a value); `short` is `-f`.
public struct OptionSpec: Sendable {
    public let long: String
    public let short: String?
    /// The value's placeholder (`N`, `DURATION`); nil for a flag.
    public let valueName: String?
    public let isRequired: Bool
    public let help: String
    /// What Tab offers for the value (flags: nothing).
    public let completion: CompletionKind

    public static func flag(_ long: String, short: String? = nil, help: String) -> OptionSpec {
        OptionSpec(long: long, short: short, valueName: nil, isRequired: false, help: help, completion: .nothing)
    }

    public static func value(_ long: String, _ valueName: String, required: Bool = false, help: String,
                             completion: CompletionKind = .nothing) -> OptionSpec {
        OptionSpec(long: long, short: nil, valueName: valueName, isRequired: required, help: help, completion: completion)
    }

    /// Every command understands it; the parser answers it before anything else.
    static let help = OptionSpec.flag("--help", short: "-h", help: N_("show this help"))

    public var isFlag: Bool { valueName == nil }

    public var usageText: String {
        let text = [short ?? long, valueName].compactMap { $0 }.joined(separator: " ")
        return isRequired ? text : "[\(text)]"
    }

    public var helpLabel: String {
        let names = [short, long].compactMap { $0 }.joined(separator: ", ")
        return [names, valueName].compactMap { $0 }.joined(separator: " ")
    }
}

enum HelpText {
    static func labelWidth(_ rows: [(String, String)]) -> Int {
        (rows.map(\.0.count).max() ?? 0) + 3
    }

    static func table(_ rows: [(String, String)], width: Int) -> [String] {
        rows.map { "  " + $0.0.padding(to: width) + $0.1 }
    }
}
