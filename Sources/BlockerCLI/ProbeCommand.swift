import BlockerBus
import BlockerConfig
import BlockerCore
import BlockerJSON
import BlockerProbes
import BlockerSystem

/// `blockerctl probe [--json] [--watch] [--config FILE]`: the probe blockerd
/// would use, run here, without the daemon.
struct ProbeCommand: BlockerCommand {
    static let spec = CommandSpec(
        ["probe"],
        abstract: "Show which window the probe sees in front (runs the probe here, no daemon needed)",
        options: [
            .flag("--json", help: "print {app, title, pid, groups, probe} (app etc. null when nothing is in front; "
                  + "pid_unavailable says why pid is always null, for probes that never know it)"),
            .flag("--watch", help: "print one line per change until Ctrl-C"),
            .value("--config", "FILE", help: "read [daemon] and the groups from FILE (default: the XDG config)",
                    completion: .file),
        ],
        discussion: """
            The probe is chosen as blockerd chooses it: [daemon] probe in blocker.toml (auto: \(autoOrder)).
            When none can run, each backend's reason is printed and the status is 1.
            """)

    let json: Bool
    let watch: Bool
    let configPath: String?

    init(_ arguments: ParsedArguments) throws(UsageError) {
        json = arguments.flag("--json")
        watch = arguments.flag("--watch")
        configPath = arguments.value("--config")
    }

    func run(_ context: CommandContext) throws(CommandFailure) {
        let config = ProbeSetup.config(path: configPath, context: context)
        let selection = ProbeSelection.select(config.daemon.probe, settings: config.daemon, environment: context.environment)
        let probe = selection.probe
        let matcher = Matcher(groups: config.groups)
        let first = ProbeObservation(probe.sample(), matcher: matcher)
        if case let .failed(message) = first {
            throw ProbeSetup.unavailable(probe: probe is UnavailableProbe ? nil : probe.name, message: message,
                                         passedOver: selection.passedOver)
        }
        guard watch else {
            if json {
                context.out.line(first.json(probe: probe.name, pidUnavailable: probe.pidUnavailable).rendered)
            } else {
                for line in first.humanRows(probe: probe.name, passedOver: selection.passedOver,
                                            pidUnavailable: probe.pidUnavailable) { context.out.line(line) }
            }
            return
        }
        SystemCalls.exitQuietlyOnInterrupt()
        let clock = context.localClock
        var last = first
        emit(first, probe: probe, clock: clock, context: context)
        while true {
            if SystemCalls.waitReadable(probe.eventDescriptor, timeoutMs: config.daemon.pollInterval) {
                probe.drainEvents()
            }
            let next = ProbeObservation(probe.sample(), matcher: matcher)
            if next != last {
                emit(next, probe: probe, clock: clock, context: context)
                last = next
            }
        }
    }

    private func emit(_ observation: ProbeObservation, probe: ForegroundProbe, clock: LocalClock, context: CommandContext) {
        if json {
            context.out.line(observation.json(probe: probe.name, pidUnavailable: probe.pidUnavailable).rendered)
        } else {
            context.out.line(clock.timeOfDay(context.invocation.clock()) + "  " + observation.watchLine)
        }
    }
}

/// "hyprland, then sway, then x11"
private let autoOrder = ProbeRegistry.automatic.map(\.name).joined(separator: ", then ")

enum ProbeSetup {
    /// The config at `path` (or the XDG default); its defaults when it cannot
    /// be read, with a warning, since a probe is useful without one.
    static func config(path: String?, context: CommandContext) -> Config {
        let file = path ?? BlockerPaths.configFile(environment: context.environment)
        do {
            return try Config.load(path: file)
        } catch {
            context.warn("using the default [daemon] settings and no groups: \(error)")
            return Config()
        }
    }

    /// `probe` is nil when no backend could even start (the message then says why).
    static func unavailable(probe: String?, message: String, passedOver: [String]) -> CommandFailure {
        var text = probe.map { "the \($0) probe cannot tell what is in front: \(message)" } ?? message
        if !passedOver.isEmpty {
            text += "\nbackends passed over:\n" + passedOver.map { "  " + $0 }.joined(separator: "\n")
        }
        return CommandFailure(text)
    }
}

/// One probe answer, reduced to what is shown (idle time changes every
/// sample, so it is not part of "a change").
enum ProbeObservation: Equatable {
    case window(StatusReport.Foreground, locked: Bool)
    case nothing(locked: Bool)
    case failed(String)

    init(_ sample: Result<Reading, ProbeFailure>, matcher: Matcher) {
        switch sample {
        case let .failure(failure):
            self = .failed(failure.message)
        case let .success(reading):
            if let window = reading.window {
                let front = StatusReport.Foreground(app: window.app, title: window.title, pid: window.pid,
                                                    groups: matcher.groups(for: window).map(\.name))
                self = .window(front, locked: reading.locked)
            } else {
                self = .nothing(locked: reading.locked)
            }
        }
    }

    /// The `foreground` object plus `"probe"`; the foreground's keys are null
    /// (groups empty) when nothing is in front, so every line has the same keys.
    /// A probe that never knows a pid (wlroots) adds `"pid_unavailable"`: why.
    func json(probe: String, pidUnavailable: String? = nil) -> JSONValue {
        var pairs: [(String, JSONValue)]
        switch self {
        case let .window(front, _):
            guard case let .object(fields) = StatusText.foregroundJSON(front) else { preconditionFailure() }
            pairs = fields
        case .nothing, .failed:
            pairs = [("app", .null), ("title", .null), ("pid", .null), ("groups", .array([]))]
        }
        pairs.append(("probe", .string(probe)))
        if let pidUnavailable { pairs.append(("pid_unavailable", .string(pidUnavailable))) }
        return .object(pairs)
    }

    func humanRows(probe: String, passedOver: [String], pidUnavailable: String? = nil) -> [String] {
        var rows: [(label: String, value: String)] = [("probe", probe)]
        switch self {
        case let .window(front, locked):
            rows += [("app", front.app), ("title", front.title), ("pid", front.pid.map(String.init) ?? pidUnavailable.map { "none (\($0))" } ?? "unknown"),
                     ("groups", front.groups.isEmpty ? "(none: not in any group)" : front.groups.joined(separator: ", ")),
                     ("locked", locked ? "yes" : "no")]
        case let .nothing(locked):
            rows += [("app", "nothing in front"), ("locked", locked ? "yes" : "no")]
        case let .failed(message):
            rows.append(("error", message))
        }
        for reason in passedOver { rows.append(("skipped", reason)) }
        return AlignedRows.render(rows)
    }

    var watchLine: String {
        switch self {
        case let .window(front, locked):
            (locked ? "[locked] " : "") + StatusText.describe(front)
        case let .nothing(locked):
            locked ? "[locked] nothing in front" : "nothing in front"
        case let .failed(message):
            "probe failed: \(message)"
        }
    }
}
