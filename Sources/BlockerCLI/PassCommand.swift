import BlockerBus
import BlockerCore

/// `blockerctl pass GROUP`
struct PassCommand: BlockerCommand {
    static let spec = CommandSpec(
        ["pass"],
        abstract: N_("Use an emergency pass: lift a group's shield for [pass] length, counted"),
        arguments: [.required("GROUP", help: N_("a group name from blocker.toml"), completion: .configNames(.groups))],
        discussion: N_("Example: blockerctl pass social\nLifts whatever covers the group (a block, a schedule, a daily limit, the opens cap, a zero balance), also in strict mode. [pass] per-week passes a local week (from Monday 00:00); each one is kept in the ledger and the journal and shown by history and report."))

    let group: String

    init(_ arguments: ParsedArguments) throws(UsageError) {
        group = arguments.argument("GROUP")!
        guard !group.isEmpty else { throw UsageError(tr("GROUP is empty; name a group from blocker.toml")) }
    }

    func run(_ context: CommandContext) throws(CommandFailure) {
        let group = self.group
        let until = try context.call { service throws(BusFailure) in try service.usePass(group: group) }
        let now = context.invocation.clock()
        let when = context.localClock.describe(until, now: now)
        context.out.line("pass used: \(group.lowercased()) is not covered until \(context.out.paint(when, .bold)) "
                         + "(\(DurationText.format(until - now)))")
    }
}
