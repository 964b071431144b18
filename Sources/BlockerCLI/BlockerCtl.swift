import BlockerCore

/// `blockerctl`: finds the command, parses its arguments, runs it, and turns
/// the outcome into an exit status (0 ok, 1 failed, 2 usage).
public enum BlockerCtl {
    public static var version: String { BlockerVersion.current }

    /// Every command, in the order `blockerctl --help` lists them.
    public static var commands: [any BlockerCommand.Type] {
        [StatusCommand.self, EarnCommand.self, BlockCommand.self, UnblockCommand.self, PassCommand.self, DevicesCommand.self, HistoryCommand.self,
         ReportCommand.self,
         ProbeCommand.self, ConfigCheckCommand.self, ConfigNamesCommand.self, ConfigPendingCommand.self, ConfigCancelCommand.self,
         ReloadCommand.self, LogsCommand.self,
         DoctorCommand.self, CompletionsCommand.self, ManCommand.self, BrowserHostCommand.self]
    }

    /// The commands `--help`, the man page and the completions show.
    public static var visibleCommands: [any BlockerCommand.Type] { commands.filter { !$0.spec.isHidden } }

    public enum ExitStatus {
        public static let ok: Int32 = 0
        public static let failure: Int32 = 1
        public static let usage: Int32 = 2
    }

    /// Runs `blockerctl ARGUMENTS…` (without the program name).
    public static func run(_ arguments: [String], _ invocation: Invocation) -> Int32 {
        let context = CommandContext(invocation)
        switch resolve(arguments) {
        case .topHelp:
            context.out.output.write(topHelp)
            return ExitStatus.ok
        case .version:
            context.out.line("blockerctl \(version)")
            return ExitStatus.ok
        case let .usageError(error, command):
            reportUsage(error, command: command, to: context.err)
            return ExitStatus.usage
        case let .command(type, tokens):
            let parsed: ParsedArguments
            do {
                switch try ParsedArguments.parse(tokens, spec: type.spec) {
                case .help:
                    context.out.output.write(type.spec.help)
                    return ExitStatus.ok
                case let .parsed(arguments):
                    parsed = arguments
                }
            } catch {
                reportUsage(error, command: type.spec, to: context.err)
                return ExitStatus.usage
            }
            do {
                let command = try type.init(parsed)
                try command.run(context)
                return ExitStatus.ok
            } catch let error as UsageError {
                reportUsage(error, command: type.spec, to: context.err)
                return ExitStatus.usage
            } catch let failure as CommandFailure {
                context.err.line(errorLine(failure.description))
                return ExitStatus.failure
            } catch {
                context.err.line(errorLine("\(error)"))
                return ExitStatus.failure
            }
        }
    }

    enum Resolution {
        case topHelp
        case version
        case usageError(UsageError, CommandSpec?)
        case command(any BlockerCommand.Type, [String])
    }

    /// Which command the words name, and the words left for it.
    static func resolve(_ arguments: [String]) -> Resolution {
        guard let first = arguments.first else {
            let names = visibleCommands.map { $0.spec.name }.joined(separator: ", ")
            return .usageError(UsageError(tr("missing command (one of: {names})", ["names": names])), nil)
        }
        switch first {
        case "--help", "-h": return .topHelp
        case "--version": return .version
        // `blockerctl help [COMMAND…]`, as people type it: the same as --help.
        case "help": return arguments.count == 1 ? .topHelp : resolve(Array(arguments.dropFirst()) + ["--help"])
        default: break
        }
        if ParsedArguments.looksLikeOption(first) {
            return .usageError(UsageError(tr("unknown option {option}", ["option": quoted(first)])
                                          + Suggestion.didYouMean(first, among: ["--help", "--version"])), nil)
        }
        let family = commands.filter { $0.spec.path[0] == first }
        guard !family.isEmpty else {
            let words = uniqueFirstWords()
            return .usageError(UsageError(tr("unknown command {command}", ["command": quoted(first)])
                                          + Suggestion.didYouMean(first, among: words)), nil)
        }
        if let single = family.first(where: { $0.spec.path.count == 1 }) {
            return .command(single, Array(arguments.dropFirst()))
        }
        // A family like `config check`: the second word picks the member.
        let members = family.map { $0.spec.path[1] }
        guard arguments.count > 1 else {
            return .usageError(UsageError(tr("{command} needs a subcommand: {subcommands}",
                                             ["command": first, "subcommands": members.joined(separator: ", ")])), nil)
        }
        let second = arguments[1]
        if second == "--help" || second == "-h" { return .topHelp }
        guard let member = family.first(where: { $0.spec.path[1] == second }) else {
            let full = members.map { "\(first) \($0)" }
            return .usageError(UsageError(tr("unknown command {command}", ["command": quoted("\(first) \(second)")])
                                          + Suggestion.didYouMean("\(first) \(second)", among: full)), nil)
        }
        return .command(member, Array(arguments.dropFirst(2)))
    }

    private static func uniqueFirstWords() -> [String] {
        var seen: [String] = []
        for command in commands where !seen.contains(command.spec.path[0]) { seen.append(command.spec.path[0]) }
        return seen
    }

    /// `blockerctl --help`, generated from the commands' declarations.
    public static var topHelp: String {
        let rows = visibleCommands.map { ($0.spec.name, tr(dynamic: $0.spec.abstract)) }
        let options = [("-h, --help", tr("show this help (also after any command)")), ("--version", tr("print the version"))]
        let width = HelpText.labelWidth(rows + options)
        let lines = [
            tr("blockerctl — earned screen time for the Linux desktop (talks to blockerd)"),
            "",
            tr("usage: {usage}", ["usage": tr("blockerctl COMMAND [ARGUMENTS] [OPTIONS]")]),
            "",
            tr("commands:"),
        ] + HelpText.table(rows, width: width) + ["", tr("options:")] + HelpText.table(options, width: width) + [
            "",
            tr("See `blockerctl COMMAND --help` (or blockerctl help COMMAND) for what a command takes."),
            tr("Exit status: 0 ok, 1 failed (blockerd unreachable or refused), 2 usage error."),
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    /// `blockerctl: error: …`, then the usage line and where to read more.
    static func reportUsage(_ error: UsageError, command: CommandSpec?, to printer: Printer) {
        printer.line(errorLine(error.message))
        if let command {
            printer.line(tr("usage: {usage}", ["usage": command.usage]))
            printer.line(tr("see {command}", ["command": "blockerctl \(command.name) --help"]))
        } else {
            printer.line(tr("see {command}", ["command": "blockerctl --help"]))
        }
    }

    /// `blockerctl: error: …`: the words around the message follow the language too.
    static func errorLine(_ message: String) -> String {
        tr("blockerctl: error: {message}", ["message": message])
    }
}
