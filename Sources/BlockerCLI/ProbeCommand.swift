import BlockerBus
import BlockerConfig
import BlockerCore
import BlockerJSON
import BlockerProbes
import BlockerSystem

/// `blockerctl probe [--json] [--watch] [--config FILE]`: the probe blockerd
/// would use, run here, without the daemon; or, where blockerd's gnome or
/// kde probe holds the name the shell reports to, blockerd's answer.
struct ProbeCommand: BlockerCommand {
    static let spec = CommandSpec(
        ["probe"],
        abstract: N_("Show which window the probe sees in front (runs the probe here, or asks blockerd's gnome/kde probe)"),
        options: [
            .flag("--json", help: N_("print {app, title, pid, groups, probe, source} (app etc. null when nothing is in front; source: \"here\" or \"blockerd\"; pid_unavailable says why pid is always null, for probes that never know it)")),
            .flag("--watch", help: N_("print one line per change until Ctrl-C")),
            .value("--config", "FILE", help: N_("read [daemon] and the groups from FILE (default: the XDG config)"),
                    completion: .file),
        ],
        discussion: N_("The probe is chosen as blockerd chooses it: [daemon] probe in blocker.toml (auto: {order}).\nOn GNOME and KDE the shell reports the window in front to whoever owns {bus_name}: while\nblockerd runs, that is its own probe, so this command asks blockerd what it sees and says so\n(\"blockerd's gnome probe answers\"; --json: \"source\": \"blockerd\"; --watch asks again every poll-interval).\nWhen none can run, each backend's reason is printed and the status is 1."),
        discussionValues: ["order": autoOrder, "bus_name": FocusReport.busName])

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
        if let blockerds = ProbeSetup.blockerdsProbe(first, selection: selection, config: config, context: context) {
            return try runBlockerds(blockerds, config: config, context: context)
        }
        if case let .failed(message) = first {
            throw ProbeSetup.unavailable(probe: probe is UnavailableProbe ? nil : probe.name, message: message,
                                         passedOver: selection.passedOver)
        }
        let answer = ProbeAnswer(probe: probe.name, source: .here, pidUnavailable: probe.pidUnavailable)
        guard watch else {
            print(first, answer: answer, passedOver: selection.passedOver, context: context)
            return
        }
        SystemCalls.exitQuietlyOnInterrupt()
        var last = first
        emit(first, answer: answer, context: context)
        while true {
            if SystemCalls.waitReadable(probe.eventDescriptor, timeoutMs: config.daemon.pollInterval) {
                probe.drainEvents()
            }
            let next = ProbeObservation(probe.sample(), matcher: matcher)
            if next != last {
                emit(next, answer: answer, context: context)
                last = next
            }
        }
    }

    /// blockerd's own probe answers (from `Status`), once or every poll-interval.
    private func runBlockerds(_ first: (name: String, observation: ProbeObservation), config: Config,
                              context: CommandContext) throws(CommandFailure) {
        let answer = ProbeAnswer(probe: first.name, source: .blockerd, pidUnavailable: nil)
        if case let .failed(message) = first.observation {
            throw CommandFailure(tr("{sourceText} cannot tell what is in front: {message}", ["sourceText": "\(answer.sourceText)", "message": "\(message)"]))
        }
        guard watch else {
            print(first.observation, answer: answer, passedOver: [], context: context)
            return
        }
        SystemCalls.exitQuietlyOnInterrupt()
        var last = first.observation
        if !json { context.out.line("(\(answer.sourceText) answers; asked every \(DurationText.format(config.daemon.pollInterval)))") }
        emit(last, answer: answer, context: context)
        while true {
            _ = SystemCalls.waitReadable(nil, timeoutMs: config.daemon.pollInterval)
            let next: ProbeObservation
            do throws(CommandFailure) {
                next = ProbeObservation(daemon: try context.call { service throws(BusFailure) in try service.status() })
            } catch {
                next = .failed(tr("blockerd does not answer: {message}", ["message": "\(error.message)"]))
            }
            if next != last {
                emit(next, answer: answer, context: context)
                last = next
            }
        }
    }

    private func print(_ observation: ProbeObservation, answer: ProbeAnswer, passedOver: [String], context: CommandContext) {
        if json {
            context.out.line(observation.json(answer).rendered)
        } else {
            for line in observation.humanRows(answer, passedOver: passedOver) { context.out.line(line) }
        }
    }

    private func emit(_ observation: ProbeObservation, answer: ProbeAnswer, context: CommandContext) {
        if json {
            context.out.line(observation.json(answer).rendered)
        } else {
            context.out.line(context.localClock.timeOfDay(context.invocation.clock()) + "  " + observation.watchLine)
        }
    }
}

/// Whose probe answered, for the words and the JSON.
struct ProbeAnswer: Equatable {
    enum Source: String { case here, blockerd }
    var probe: String
    var source: Source
    /// Why this backend never knows a pid (wlroots), nil where it gives one.
    var pidUnavailable: String?

    /// "blockerd's gnome probe"
    var sourceText: String { source == .blockerd ? "blockerd's \(probe) probe" : "the \(probe) probe" }
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
            context.warn(tr("using the default [daemon] settings and no groups: {error}", ["error": "\(error)"]))
            return Config()
        }
    }

    /// blockerd's gnome or kde probe's answer (its name and what it sees),
    /// when this command's own probe could not take the name the shell
    /// reports to because blockerd holds it (`FocusReport.nameTaken`); nil:
    /// the probe here answers for itself.
    static func blockerdsProbe(_ sample: ProbeObservation, selection: ProbeSelection, config: Config,
                               context: CommandContext) -> (name: String, observation: ProbeObservation)? {
        var messages = selection.passedOver
        if case let .failed(message) = sample { messages.append(message) }
        guard messages.contains(where: { $0.contains(FocusReport.nameTaken) }),
              let status = try? context.call({ service throws(BusFailure) in try service.status() }),
              let observation = ProbeObservation.blockerds(status, choice: config.daemon.probe) else { return nil }
        return (status.probeName, observation)
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

    /// What blockerd's own probe sees, from its `Status`, when it is the gnome
    /// or kde probe that `choice` picks (auto, or the same): that probe owns
    /// io.github.blockerd.Focus, so none can run beside it (`probe`, doctor).
    static func blockerds(_ daemon: StatusReport, choice: ProbeChoice) -> ProbeObservation? {
        let shellProbes = [ProbeChoice.kde.rawValue, ProbeChoice.gnome.rawValue]
        guard shellProbes.contains(daemon.probeName), choice == .auto || choice.rawValue == daemon.probeName else { return nil }
        return ProbeObservation(daemon: daemon)
    }

    /// blockerd's probe's answer, as its `Status` says it.
    init(daemon: StatusReport) {
        if !daemon.probeOK {
            self = .failed(daemon.probeError ?? "failing")
        } else if let front = daemon.foreground {
            self = .window(front, locked: daemon.locked)
        } else {
            self = .nothing(locked: daemon.locked)
        }
    }

    /// The `foreground` object plus `"probe"` and `"source"` ("here", or
    /// "blockerd" for its probe's answer); the foreground's keys are null
    /// (groups empty) when nothing is in front, so every line has the same keys.
    /// A probe that never knows a pid (wlroots) adds `"pid_unavailable"`: why.
    func json(_ answer: ProbeAnswer) -> JSONValue {
        var pairs: [(String, JSONValue)]
        switch self {
        case let .window(front, _):
            guard case let .object(fields) = StatusText.foregroundJSON(front) else { preconditionFailure() }
            pairs = fields
        case .nothing, .failed:
            pairs = [("app", .null), ("title", .null), ("pid", .null), ("groups", .array([]))]
        }
        pairs.append(("probe", .string(answer.probe)))
        pairs.append(("source", .string(answer.source.rawValue)))
        if let pidUnavailable = answer.pidUnavailable { pairs.append(("pid_unavailable", .string(pidUnavailable))) }
        return .object(pairs)
    }

    func humanRows(_ answer: ProbeAnswer, passedOver: [String]) -> [String] {
        let probe = answer.source == .blockerd
            ? "\(answer.probe) (\(answer.sourceText) answers: blockerd holds \(FocusReport.busName))" : answer.probe
        var rows: [(label: String, value: String)] = [("probe", probe)]
        switch self {
        case let .window(front, locked):
            rows += [("app", front.app), ("title", front.title),
                     ("pid", front.pid.map(String.init) ?? answer.pidUnavailable.map { "none (\($0))" } ?? "unknown"),
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
