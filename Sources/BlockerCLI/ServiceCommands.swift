import BlockerBus
import BlockerCore

/// `blockerctl earn REPS [EXERCISE]`
struct EarnCommand: BlockerCommand {
    static let repsRange: ClosedRange<UInt32> = 1...1000

    static let spec = CommandSpec(
        ["earn"],
        abstract: N_("Log repetitions of an exercise and earn screen time"),
        arguments: [
            .required("REPS", help: N_("how many repetitions: a whole number from 1 to 1000")),
            .optional("EXERCISE", help: N_("one of [earn] in blocker.toml; may be left out when only one is configured"),
                      completion: .configNames(.exercises)),
        ],
        options: [.value("--request-id", "ID", help: N_("credit it once whatever the retries: run again with the same ID (1 to 128 bytes) after a timeout, and blockerd answers with the first earning"))],
        discussion: N_("Example: blockerctl earn 20 pushups"))

    let reps: UInt32
    /// "" lets blockerd choose (it refuses, listing them, when several are configured).
    let exercise: String
    /// `EarnOnce`'s id: `--request-id`, else a fresh one (one run, one earning).
    let requestID: String

    init(_ arguments: ParsedArguments) throws(UsageError) {
        let text = arguments.argument("REPS")!
        guard let reps = Self.parseReps(text) else {
            throw UsageError(tr("REPS must be a whole number from 1 to 1000, not {text}", ["text": "\(quoted(text))"]))
        }
        self.reps = reps
        let exercise = arguments.argument("EXERCISE")
        if exercise == "" { throw UsageError(tr("EXERCISE is empty; name one of [earn], or leave it out")) }
        self.exercise = exercise ?? ""
        let id = arguments.value("--request-id")
        if let id, !BlockerLimits.requestIDBytes.contains(id.utf8.count) {
            throw UsageError(tr("--request-id must be 1 to {upperBound} bytes, not {count}", ["upperBound": "\(BlockerLimits.requestIDBytes.upperBound)", "count": "\(id.utf8.count)"]))
        }
        requestID = id ?? EarnRequestID.make()
    }

    /// ASCII digits only (no sign, no point), within 1…1000.
    static func parseReps(_ text: String) -> UInt32? {
        guard !text.isEmpty, text.count <= 10, text.allSatisfy({ $0.isASCII && $0.isNumber }),
              let value = UInt32(text), repsRange.contains(value) else { return nil }
        return value
    }

    func run(_ context: CommandContext) throws(CommandFailure) {
        let (reps, exercise, requestID) = (self.reps, self.exercise, self.requestID)
        let result = try context.call { service throws(BusFailure) in
            try service.earnOnce(requestID: requestID, exercise: exercise, reps: reps)
        }
        let values = ["earned": context.out.paint(DurationText.format(result.earnedMs), .green),
                      "balance": context.out.paint(DurationText.format(result.balanceMs), .bold), "exercise": exercise]
        context.out.line(exercise.isEmpty
            ? trn("earned {earned} for {count} rep; balance {balance}", "earned {earned} for {count} reps; balance {balance}",
                  count: Int(reps), values)
            : tr("earned {earned} for {reps} {exercise}; balance {balance}", values.merging(["reps": "\(reps)"]) { $1 }))
    }
}

/// `blockerctl block TARGET --for DURATION`
struct BlockCommand: BlockerCommand {
    static let shortest: Milliseconds = 60_000
    static let longest: Milliseconds = .days(7)

    static let spec = CommandSpec(
        ["block"],
        abstract: N_("Block a group (or an app of some group) for a while, whatever the balance"),
        arguments: [.required("TARGET", help: N_("a group name from blocker.toml, or an app listed in some group"),
                                      completion: .configNames(.groups))],
        options: [.value("--for", "DURATION", required: true, help: N_("how long, 1m to 7d: 30m, 1h30m, 2d"))],
        discussion: N_("Example: blockerctl block social --for 2h\nOnly blockerctl unblock ends it early; schedules and daily limits are separate."))

    let target: String
    let durationMs: Milliseconds

    init(_ arguments: ParsedArguments) throws(UsageError) {
        target = arguments.argument("TARGET")!
        guard !target.isEmpty else { throw UsageError(tr("TARGET is empty; name a group or an app")) }
        durationMs = try Self.parseDuration(arguments.value("--for")!)
    }

    /// 1 minute to 7 days; every refusal says what to write instead.
    static func parseDuration(_ text: String) throws(UsageError) -> Milliseconds {
        if text.hasPrefix("-") {
            throw UsageError(tr("--for {text}: a block cannot last a negative time; give 1m to 7d, like --for 30m", ["text": "\(text)"]))
        }
        let ms: Milliseconds
        do { ms = try DurationText.parse(text) } catch {
            throw UsageError(tr("--for {text} is not a duration: every number needs a unit (d, h, m, s), like 90s, 30m, 1h30m, 2d", ["text": "\(quoted(text))"]))
        }
        if ms < shortest { throw UsageError(tr("--for {text} is too short: a block lasts at least 1m, like --for 30m", ["text": "\(text)"])) }
        if ms > longest { throw UsageError(tr("--for {text} is too long: a block lasts at most 7d, like --for 7d", ["text": "\(text)"])) }
        return ms
    }

    func run(_ context: CommandContext) throws(CommandFailure) {
        let (target, seconds) = (self.target, UInt64(durationMs.seconds))
        let until = try context.call { service throws(BusFailure) in try service.blockFor(target: target, seconds: seconds) }
        let when = context.localClock.describe(until, now: context.invocation.clock())
        context.out.line(tr("blocked {target} until {time} ({duration})", ["target": target, "time": context.out.paint(when, .bold),
                                                                           "duration": DurationText.format(durationMs)]))
    }
}

/// `blockerctl unblock TARGET`
struct UnblockCommand: BlockerCommand {
    static let spec = CommandSpec(
        ["unblock"],
        abstract: N_("End a timed block early (schedules and daily limits stay)"),
        arguments: [.required("TARGET", help: N_("the group or app given to blockerctl block"),
                                      completion: .configNames(.groups))])

    let target: String

    init(_ arguments: ParsedArguments) throws(UsageError) {
        target = arguments.argument("TARGET")!
        guard !target.isEmpty else { throw UsageError(tr("TARGET is empty; name a group or an app")) }
    }

    func run(_ context: CommandContext) throws(CommandFailure) {
        let target = self.target
        try context.call { service throws(BusFailure) in try service.unblock(target: target) }
        context.out.line(tr("unblocked {target} (timed blocks only; schedules and daily limits still apply)", ["target": target]))
    }
}

/// `blockerctl reload`
struct ReloadCommand: BlockerCommand {
    static let spec = CommandSpec(
        ["reload"],
        abstract: N_("Make blockerd read blocker.toml again"),
        discussion: N_("A config with a mistake is refused and blockerd keeps the one it had; check first with blockerctl config check."))

    init(_ arguments: ParsedArguments) throws(UsageError) {}

    func run(_ context: CommandContext) throws(CommandFailure) {
        try context.call { service throws(BusFailure) in try service.reload() }
        context.out.line(tr("blockerd reloaded blocker.toml"))
        // Strict mode: say that what loosens waits (an older blockerd has no PendingChanges).
        let pending = (try? context.call { service throws(BusFailure) in try service.pendingChanges() }) ?? []
        if let next = pending.first {
            let count = pending.reduce(0) { $0 + $1.changes.count }
            context.out.line(trn("strict mode: {count} loosening change waits; the next applies {time} (see: blockerctl config pending)",
                                 "strict mode: {count} loosening changes wait; the next applies {time} (see: blockerctl config pending)",
                                 count: count, ["time": context.localClock.describe(next.applyAt, now: context.invocation.clock())]))
        }
    }
}
