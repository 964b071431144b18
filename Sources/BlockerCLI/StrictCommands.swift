import BlockerBus
import BlockerCore

/// `blockerctl config pending`: strict mode's waiting changes.
struct ConfigPendingCommand: BlockerCommand {
    static let spec = CommandSpec(
        ["config", "pending"],
        abstract: N_("List the config changes strict mode holds back, and when each applies"),
        discussion: N_("In strict mode ([strict] delay in blocker.toml) a change that loosens waits for the delay; one that tightens applies at once."))

    init(_ arguments: ParsedArguments) throws(UsageError) {}

    func run(_ context: CommandContext) throws(CommandFailure) {
        let pending = try context.call { service throws(BusFailure) in try service.pendingChanges() }
        for line in Self.lines(pending, clock: context.localClock, now: context.invocation.clock()) { context.out.line(line) }
    }

    static func lines(_ pending: [PendingChange], clock: LocalClock, now: WallInstant) -> [String] {
        guard !pending.isEmpty else { return ["no config changes are pending"] }
        var lines: [String] = []
        for change in pending {
            lines.append("applies \(clock.describe(change.applyAt, now: now)) (in \(DurationText.format(max(change.applyAt - now, 0)))), "
                         + "read \(clock.describe(change.receivedAt, now: now)):")
            lines += change.changes.map { "  " + $0 }
        }
        lines.append("drop them with: blockerctl config cancel (the file still asks for them: edit it back too)")
        return lines
    }
}

/// `blockerctl config cancel`: drops strict mode's waiting changes.
struct ConfigCancelCommand: BlockerCommand {
    static let spec = CommandSpec(
        ["config", "cancel"],
        abstract: N_("Drop the config changes strict mode holds back (the config in force stays)"),
        discussion: N_("What tightened stays in force. blocker.toml is not edited: change it back, or its next edit queues what it loosens again."))

    init(_ arguments: ParsedArguments) throws(UsageError) {}

    func run(_ context: CommandContext) throws(CommandFailure) {
        let count = try context.call { service throws(BusFailure) in try service.cancelPending() }
        context.out.line(count == 0 ? "no config changes were pending"
                         : "cancelled \(count) pending config \(count == 1 ? "change" : "changes"); the config in force stays")
    }
}
