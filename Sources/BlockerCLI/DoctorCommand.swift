import BlockerBus
import BlockerStore
import BlockerConfig
import BlockerCore
import BlockerProbes
import BlockerSystem
import Glibc

/// `blockerctl doctor [--config FILE]`
struct DoctorCommand: BlockerCommand {
    static let spec = CommandSpec(
        ["doctor"],
        abstract: N_("Check everything blocker needs, one line each (OK/WARN/FAIL) with the fix"),
        options: [.value("--config", "FILE", help: N_("the config to check and take [daemon] from (default: the XDG config)"),
                          completion: .file)],
        discussion: N_("Checks: the session type, the probe `auto` would pick and whether it answers, the systemd user\nmanager, the units (installed, enabled, active), the session environment imported into the user\nmanager, the config, the ledger, the journal, and blockerd answering. Exit status 1 if any FAIL."))

    let configPath: String?

    init(_ arguments: ParsedArguments) throws(UsageError) {
        configPath = arguments.value("--config")
    }

    func run(_ context: CommandContext) throws(CommandFailure) {
        var facts = DoctorFacts.gather(context, configPath: configPath ?? BlockerPaths.configFile(environment: context.environment))
        let userFile = BlockerPaths.userConfigFile(environment: context.environment)
        if configPath == nil, facts.configPath != userFile { facts.missingUserConfig = userFile }
        let checks = Doctor.verdicts(facts)
        for line in Doctor.render(checks, printer: context.out) { context.out.line(line) }
        let failed = checks.filter { $0.level == .fail }.count
        if failed > 0 {
            throw CommandFailure(tr("{failed} of {count} checks failed (the FAIL lines above say how to fix them)", ["failed": "\(failed)", "count": "\(checks.count)"]))
        }
    }
}

extension DoctorFacts {
    /// Looks at this machine: programs run with argv (no shell), files stat'ed,
    /// the probe sampled once, blockerd asked for its status.
    static func gather(_ context: CommandContext, configPath: String) -> DoctorFacts {
        let environment = context.environment
        let loaded: Result<Config, ConfigError>
        do { loaded = .success(try Config.load(path: configPath)) } catch { loaded = .failure(error) }
        let config = (try? loaded.get()) ?? Config()
        let daemon: Result<StatusReport, BusFailure>
        var blind: [Gap]?
        var notes: [String]?
        do {
            let service = try context.invocation.connect(environment)
            daemon = .success(try service.status())
            blind = HistoryGaps.fetch(service, days: Doctor.blindDays).filter { Gap.blindReason($0.reason) != nil }
            let zone = context.localClock.zone
            notes = (try? service.notes(days: Doctor.blindDays))?.map { "\(zone.localDate(at: $0.from)) " + $0.line(zone: zone) }
        } catch {
            daemon = .failure(error)
        }
        let (probeName, passedOver, sample) = sampleProbe(config, environment: environment, daemon: try? daemon.get())

        let ledgerPath = BlockerPaths.ledger(environment: environment)
        let ledger: LedgerState = switch SystemCalls.status(of: ledgerPath) {
        case let .success(status): .present(status, readFailure: SystemCalls.readFailure(of: ledgerPath))
        case .failure(.missing): .missing
        case let .failure(.other(reason)): .unusable(reason)
        }

        var edits: Result<[String], StoreError>?
        if case let .present(status, nil) = ledger, status.isRegularFile {
            do throws(StoreError) {
                edits = .success(Self.describe(try LedgerIntegrity.inspect(path: ledgerPath), clock: context.localClock,
                                               now: context.invocation.clock()))
            } catch {
                edits = .failure(error)
            }
        }

        // Their complaints would interleave with our lines; the verdicts say what failed.
        let (manager, units, journal) = SystemCalls.withChildStderrSilenced {
            (run(["systemctl", "--user", "show-environment"]),
             Doctor.units.map { unit in
                 UnitState(name: unit.name,
                           enabled: run(["systemctl", "--user", "is-enabled", unit.name]),
                           active: run(["systemctl", "--user", "is-active", unit.name]))
             },
             run(["journalctl", "--user", "-n", "0", "--no-pager"]))
        }

        return DoctorFacts(
            environment: environment, probeChoice: config.daemon.probe, probeName: probeName,
            probePassedOver: passedOver, probeSample: sample, managerEnvironment: manager, units: units,
            configPath: configPath, config: loaded.map { ($0.groups.count, $0.exercises.count) },
            ledgerPath: ledgerPath, ledger: ledger, userID: SystemCalls.userID, journal: journal, daemon: daemon,
            ledgerEdits: edits, blindStretches: blind,
            probeCommandMode: probeName == ProbeChoice.command.rawValue ? config.daemon.probeCommandMode : nil,
            integrityNotes: notes,
            browserHostManifests: config.groups.contains { !$0.sites.isEmpty } ? Self.browserHostManifests(environment) : nil)
    }

    /// Where each browser family looks for blocker's native messaging host
    /// manifest (the user's, then the system's): the ones that exist.
    static func browserHostManifests(_ environment: [String: String]) -> [String: String] {
        let home = environment["HOME"] ?? ""
        let config = environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + "/.config"
        let name = "io.github.blockerd.browser.json"
        let places: [(family: String, directories: [String])] = [
            ("chromium", [config + "/chromium/NativeMessagingHosts", "/etc/chromium/native-messaging-hosts"]),
            ("google-chrome", [config + "/google-chrome/NativeMessagingHosts", "/etc/opt/chrome/native-messaging-hosts"]),
            ("firefox", [home + "/.mozilla/native-messaging-hosts", "/usr/lib/mozilla/native-messaging-hosts"]),
        ]
        var found: [String: String] = [:]
        for (family, directories) in places {
            for directory in directories {
                let path = directory + "/" + name
                if case let .success(status) = SystemCalls.status(of: path), status.isRegularFile {
                    found[family] = path
                    break
                }
            }
        }
        return found
    }

    /// "on 2026-12-02 17:46, after blocker's write at 17:40" per edit found.
    static func describe(_ integrity: LedgerIntegrity, clock: LocalClock, now: WallInstant) -> [String] {
        func when(_ instant: WallInstant) -> String {
            let (date, second) = clock.zone.local(at: instant)
            return "\(date) \(ClockText.hoursMinutes(secondOfDay: second))\(clock.label)"
        }
        var lines = integrity.edits.map {
            "on \(when($0.sealed)) or later (blocker's write before it; blockerd noticed it \(when($0.detected)))"
        }
        if let since = integrity.unsealedSince {
            lines.append("on \(when(since)) or later (after blocker's last write; blockerd notes it at its next one)")
        }
        if let earning = integrity.brokenEarning {
            lines.append("at earning #\(earning.id) of \(earning.day) (\(earning.exercise)): changed, added, or one before it removed")
        }
        if !integrity.chainIntact { lines.append("and its record of edits (ledger_edits) was altered") }
        return lines
    }

    /// The probe `probe = …` picks, sampled here. The kde and gnome probes own
    /// io.github.blockerd.Focus, which a running blockerd holds: then its
    /// probe's answer is the one. The shell's plugin answers asynchronously
    /// (KWin runs a script it loads from its own loop): wait up to a second for it.
    static func sampleProbe(_ config: Config, environment: [String: String], daemon: StatusReport?)
        -> (name: String, passedOver: [String], sample: ProbeObservation) {
        if let daemon, let sample = ProbeObservation.blockerds(daemon, choice: config.daemon.probe) {
            return (daemon.probeName, [], sample)
        }
        let selection = ProbeSelection.select(config.daemon.probe, settings: config.daemon, environment: environment)
        let matcher = Matcher(groups: config.groups)
        var sample = ProbeObservation(selection.probe.sample(), matcher: matcher)
        if [ProbeChoice.kde.rawValue, ProbeChoice.gnome.rawValue].contains(selection.probe.name) {
            for _ in 0..<20 {
                guard case let .failed(message) = sample, message.hasSuffix("has not reported the window in front yet")
                else { break }
                usleep(50_000)
                sample = ProbeObservation(selection.probe.sample(), matcher: matcher)
            }
        }
        return (selection.probe.name, selection.passedOver, sample)
    }

    static func run(_ argv: [String]) -> ProgramRun {
        switch Subprocess.run(argv, timeoutMs: 5000) {
        case let .success(output): .exited(output.status, String(decoding: output.stdout, as: UTF8.self))
        case let .failure(failure): .couldNotRun(failure.description)
        }
    }
}
