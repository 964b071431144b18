import BlockerConfig
import BlockerCore
import BlockerSystem

/// `blockerctl config check [FILE]`
struct ConfigCheckCommand: BlockerCommand {
    static let spec = CommandSpec(
        ["config", "check"],
        abstract: N_("Check blocker.toml with the daemon's own loader (no daemon needed)"),
        arguments: [.optional("FILE", help: N_("the file to check (default: $XDG_CONFIG_HOME/blocker/blocker.toml)"),
                                completion: .file)],
        discussion: N_("Mistakes are reported as FILE:LINE:COLUMN: message, or FILE: KEY: message."))

    let file: String?

    init(_ arguments: ParsedArguments) throws(UsageError) {
        file = arguments.argument("FILE")
        if file == "" { throw UsageError(tr("FILE is empty; give a path, or leave it out for the default")) }
    }

    func run(_ context: CommandContext) throws(CommandFailure) {
        let path = file ?? BlockerPaths.configFile(environment: context.environment)
        do {
            let config = try Config.load(path: path)
            context.out.line(tr("{file}: {ok} ({summary})", ["file": path, "ok": context.out.paint(tr("ok"), .green),
                                                             "summary": Self.summary(config)]))
        } catch {
            throw CommandFailure(error.description)
        }
    }

    /// "2 groups, 1 exercise"
    static func summary(_ config: Config) -> String { summary(groups: config.groups.count, exercises: config.exercises.count) }

    static func summary(groups: Int, exercises: Int) -> String {
        trn("{count} group", "{count} groups", count: groups) + ", " + trn("{count} exercise", "{count} exercises", count: exercises)
    }
}

/// `blockerctl logs [-f]`
struct LogsCommand: BlockerCommand {
    static let spec = CommandSpec(
        ["logs"],
        abstract: N_("Show blockerd's journal (runs journalctl --user -u blockerd.service)"),
        options: [.flag("--follow", short: "-f", help: N_("keep printing new lines as they come"))])

    let follow: Bool

    init(_ arguments: ParsedArguments) throws(UsageError) {
        follow = arguments.flag("--follow")
    }

    /// journalctl's argv: ISO timestamps; no pager when the output is not a terminal.
    static func journalctlArguments(follow: Bool, stdoutIsTerminal: Bool) -> [String] {
        ["journalctl", "--user", "-u", "blockerd.service", "-o", "short-iso"]
            + (follow ? ["-f"] : []) + (stdoutIsTerminal ? [] : ["--no-pager"])
    }

    func run(_ context: CommandContext) throws(CommandFailure) {
        let argv = Self.journalctlArguments(follow: follow, stdoutIsTerminal: context.invocation.stdoutIsTerminal)
        let reason = context.invocation.replaceProcess(argv)
        throw CommandFailure(tr("cannot run journalctl: {reason}", ["reason": "\(reason)"]),
                             fix: tr("journalctl comes with systemd; make sure it is installed and on PATH"))
    }
}
