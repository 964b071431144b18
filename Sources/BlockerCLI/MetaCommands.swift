import BlockerConfig
import BlockerCore
import BlockerSystem

/// `blockerctl config names exercises|groups [--config FILE]`: what Tab offers.
struct ConfigNamesCommand: BlockerCommand {
    static let spec = CommandSpec(
        ["config", "names"],
        abstract: N_("Print the exercise or group names of blocker.toml, one a line (for completions and scripts)"),
        arguments: [.required("KIND", help: N_("exercises or groups"),
                              completion: .words(ConfigNameKind.allCases.map(\.rawValue)))],
        options: [.value("--config", "FILE", help: N_("read FILE (default: the XDG config)"), completion: .file)])

    let kind: ConfigNameKind
    let file: String?

    init(_ arguments: ParsedArguments) throws(UsageError) {
        let text = arguments.argument("KIND") ?? ""
        guard let kind = ConfigNameKind(rawValue: text) else {
            throw UsageError(tr("KIND must be exercises or groups, not {text}", ["text": "\(quoted(text))"]))
        }
        self.kind = kind
        file = arguments.value("--config")
    }

    func run(_ context: CommandContext) throws(CommandFailure) {
        let path = file ?? BlockerPaths.configFile(environment: context.environment)
        let config: Config
        do { config = try Config.load(path: path) } catch {
            throw CommandFailure(error.description, fix: tr("check it with: blockerctl config check"))
        }
        let names = switch kind {
        case .exercises: config.exercises.map(\.name)
        case .groups: config.groups.map(\.name)
        }
        for name in names { context.out.line(name) }
    }
}

/// `blockerctl completions bash|zsh|fish`: the script a package installs.
struct CompletionsCommand: BlockerCommand {
    static let spec = CommandSpec(
        ["completions"],
        abstract: N_("Print the shell completion script for bash, zsh or fish"),
        arguments: [.required("SHELL", help: N_("bash, zsh or fish"),
                              completion: .words(Completions.Shell.allCases.map(\.rawValue)))],
        discussion: N_("bash: blockerctl completions bash > ~/.local/share/bash-completion/completions/blockerctl"),
        hidden: true)

    let shell: Completions.Shell

    init(_ arguments: ParsedArguments) throws(UsageError) {
        let text = arguments.argument("SHELL") ?? ""
        guard let shell = Completions.Shell(rawValue: text) else {
            throw UsageError(tr("SHELL must be bash, zsh or fish, not {text}", ["text": "\(quoted(text))"]))
        }
        self.shell = shell
    }

    func run(_ context: CommandContext) throws(CommandFailure) {
        context.out.output.write(Completions.script(shell, commands: BlockerCtl.visibleCommands.map { $0.spec }))
    }
}

/// `blockerctl man`: blockerctl(1) in roff, from the same declarations as --help.
struct ManCommand: BlockerCommand {
    static let spec = CommandSpec(
        ["man"],
        abstract: N_("Print the blockerctl(1) man page (roff), generated from the command declarations"),
        hidden: true)

    init(_ arguments: ParsedArguments) throws(UsageError) {}

    func run(_ context: CommandContext) throws(CommandFailure) {
        context.out.output.write(ManPage.blockerctl(commands: BlockerCtl.visibleCommands.map { $0.spec }))
    }
}
