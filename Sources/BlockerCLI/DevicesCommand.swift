import BlockerBus
import BlockerCore
import BlockerJSON

/// `blockerctl devices [--json]`
struct DevicesCommand: BlockerCommand {
    static let spec = CommandSpec(
        ["devices"],
        abstract: N_("Show the machines that share the balance ([sync]): each one's records and how far behind its word is"),
        options: [.flag("--json", help: N_("print one JSON object: folder, device, problem, records, devices"))],
        discussion: N_("Example: blockerctl devices\nEach other machine's line says how many of its records blockerd has read, what they earned and spent, and when its newest record was written: what that machine spent since then is not in this balance yet."))

    let json: Bool

    init(_ arguments: ParsedArguments) throws(UsageError) {
        json = arguments.flag("--json")
    }

    func run(_ context: CommandContext) throws(CommandFailure) {
        let report = try context.call { service throws(BusFailure) in try service.status() }
        let now = context.invocation.clock()
        if json { return context.out.line(Self.json(report.sync).rendered) }
        guard let sync = report.sync else {
            return context.out.line("no [sync] in blocker.toml: this machine's balance is its own "
                                    + "(see blocker.toml(5), [sync])")
        }
        if let problem = sync.problem { context.out.line(context.out.paint("sync is off: \(problem)", .red)) }
        context.out.line("folder \(sync.folder)")
        if !sync.device.isEmpty {
            context.out.line("this machine: \(context.out.paint(sync.device, .bold)), \(Self.count(sync.records)) in its log")
        }
        if sync.devices.isEmpty { context.out.line("no other machine has written to the folder yet") }
        for device in sync.devices {
            let last = device.lastAt.map { "newest \(context.localClock.describe($0, now: now)) "
                + "(\(DurationText.format(max(now - $0, 0))) ago)" } ?? "no record yet"
            context.out.line("\(device.id): \(Self.count(device.records)), earned \(DurationText.format(device.earnedMs)), "
                             + "spent \(DurationText.format(device.spentMs)), \(last)")
        }
        context.out.line("balance \(DurationText.format(report.balanceMs)) (every machine's earnings less every machine's spending)")
    }

    static func count(_ records: Int) -> String { records == 1 ? "1 record" : "\(records) records" }

    static func json(_ sync: SyncStatus?) -> JSONValue {
        guard let sync else { return .null }
        return .object([
            ("folder", .string(sync.folder)), ("device", .string(sync.device)), ("problem", .optional(sync.problem)),
            ("records", .integer(Int64(sync.records))),
            ("devices", .array(sync.devices.map { device in
                .object([("device", .string(device.id)), ("records", .integer(Int64(device.records))),
                         ("earned_ms", .integer(device.earnedMs.ms)), ("spent_ms", .integer(device.spentMs.ms)),
                         ("last_ms", device.lastAt.map { .integer($0.ms) } ?? .null)])
            })),
        ])
    }
}
