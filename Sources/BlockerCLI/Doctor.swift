import BlockerBus
import BlockerStore
import BlockerCore
import BlockerProbes

/// One line of `blockerctl doctor`.
struct DoctorCheck: Equatable {
    enum Level: String, Equatable {
        case ok = "OK", warn = "WARN", fail = "FAIL"
    }
    var level: Level
    var subject: String
    var detail: String
    var fix: String?

    init(_ level: Level, _ subject: String, _ detail: String, fix: String? = nil) {
        self.level = level
        self.subject = subject
        self.detail = detail
        self.fix = fix
    }
}

/// What doctor found out, gathered by `DoctorFacts.gather` (I/O) and judged
/// by `Doctor.verdicts` (pure), so the judging is tested on any facts.
struct DoctorFacts {
    /// How a program run ended: its status and stdout, or why it did not start.
    enum ProgramRun: Equatable {
        case exited(Int32, String)
        case couldNotRun(String)
    }

    enum LedgerState: Equatable {
        case missing
        case present(SystemCalls.FileStatus, readFailure: String?)
        case unusable(String)
    }

    struct UnitState: Equatable {
        var name: String
        /// `systemctl --user is-enabled NAME` and `is-active NAME`.
        var enabled: ProgramRun
        var active: ProgramRun
    }

    /// Our own environment (the terminal's session).
    var environment: [String: String]
    var probeChoice: ProbeChoice
    var probeName: String
    var probePassedOver: [String]
    var probeSample: ProbeObservation
    /// `systemctl --user show-environment`.
    var managerEnvironment: ProgramRun
    var units: [UnitState]
    var configPath: String
    /// (groups, exercises) or the loader's message.
    var config: Result<(groups: Int, exercises: Int), ConfigError>
    var ledgerPath: String
    var ledger: LedgerState
    var userID: UInt32
    /// `journalctl --user -n 0`.
    var journal: ProgramRun
    var daemon: Result<StatusReport, BusFailure>
    /// Hand edits of the ledger, each in words ("on 2026-12-02, after 17:40,
    /// noticed 17:46"); nil when the ledger could not be checked (said by `ledger`).
    var ledgerEdits: Result<[String], StoreError>? = nil
    /// Where this user's own blocker.toml would be, when they have none and
    /// `configPath` is the system's default (blocker then meters nothing).
    var missingUserConfig: String? = nil
    /// The last week's blind stretches from blockerd (its gaps whose reason
    /// is `Gap.blind`); nil when it could not be asked.
    var blindStretches: [Gap]? = nil
    /// `[daemon] probe-command-mode`, when the probe is the command probe.
    var probeCommandMode: ProbeCommandMode? = nil
    /// What blockerd recorded as possible ways around it in the last week,
    /// each in words with its day; nil when blockerd was not asked.
    var integrityNotes: [String]? = nil
    /// The native messaging host manifests found (browser family → path),
    /// when the config names sites; nil otherwise (nothing to check).
    var browserHostManifests: [String: String]? = nil
}

enum Doctor {
    /// The units blockerd is made of; `required` ones FAIL when not running.
    static let units: [(name: String, required: Bool)] = [
        ("blockerd.service", true), ("blockerd-watchdog.timer", false), (OverlayIdentity.name + ".service", true),
    ]
    /// The display (the overlay needs it too), then what the probes read.
    static let sessionVariables: [String] = {
        var seen = Set<String>()
        return (["WAYLAND_DISPLAY", "DISPLAY"] + ProbeRegistry.sessionVariables).filter { seen.insert($0).inserted }
    }()
    static var managerFix: String {
        tr("log in through a session that starts systemd --user (loginctl enable-linger $USER keeps it running)")
    }
    static var installFix: String {
        tr("install the units: make install (into ~/.config/systemd/user), then systemctl --user daemon-reload")
    }

    static func verdicts(_ facts: DoctorFacts) -> [DoctorCheck] {
        var checks = [session(facts), probe(facts)]
        if let sampling = sampling(facts) { checks.append(sampling) }
        checks.append(manager(facts))
        checks += unitChecks(facts)
        checks.append(importedEnvironment(facts))
        checks.append(sandbox(facts))
        checks += [config(facts), ledger(facts), journal(facts), daemon(facts)]
        if let strict = strict(facts) { checks.append(strict) }
        if let edits = ledgerEdits(facts) { checks.append(edits) }
        if let blind = blind(facts) { checks.append(blind) }
        if let notes = integrity(facts) { checks.append(notes) }
        if let browser = browserExtension(facts) { checks.append(browser) }
        if let sync = sync(facts) { checks.append(sync) }
        return checks
    }

    static func session(_ facts: DoctorFacts) -> DoctorCheck {
        let env = facts.environment
        let type = env["XDG_SESSION_TYPE"].flatMap { $0.isEmpty ? nil : $0 }
        let wayland = env["WAYLAND_DISPLAY"].flatMap { $0.isEmpty ? nil : $0 }
        let display = env["DISPLAY"].flatMap { $0.isEmpty ? nil : $0 }
        if let wayland {
            return DoctorCheck(.ok, "session", display.map { tr("wayland (WAYLAND_DISPLAY={wayland}, XWayland DISPLAY={display})", ["wayland": wayland, "display": $0]) }
                ?? tr("wayland (WAYLAND_DISPLAY={wayland})", ["wayland": wayland]))
        }
        if let display {
            if type == "wayland" {
                return DoctorCheck(.warn, "session", tr("XDG_SESSION_TYPE=wayland but only DISPLAY={display} is set: an X11 probe sees XWayland windows only", ["display": "\(display)"]),
                                   fix: tr("run blockerctl doctor from a terminal of the Wayland session"))
            }
            return DoctorCheck(.ok, "session", tr("x11 (DISPLAY={display})", ["display": "\(display)"]))
        }
        let unset = type.map { tr("no graphical session here (XDG_SESSION_TYPE={type}, and WAYLAND_DISPLAY and DISPLAY are unset)", ["type": $0]) }
            ?? tr("no graphical session here (XDG_SESSION_TYPE, WAYLAND_DISPLAY and DISPLAY are unset)")
        return DoctorCheck(.warn, "session", unset,
                           fix: tr("run blockerctl doctor from a terminal inside your desktop session"))
    }

    static func probe(_ facts: DoctorFacts) -> DoctorCheck {
        let name = facts.probeChoice == .auto ? "auto → \(facts.probeName)" : facts.probeName
        switch facts.probeSample {
        case let .window(front, _):
            return DoctorCheck(.ok, "probe", tr("{name} answers: {app} is in front", ["name": "\(name)", "app": "\(front.app)"]))
        case .nothing:
            return DoctorCheck(.ok, "probe", tr("{name} answers: nothing is in front", ["name": "\(name)"]))
        case let .failed(message) where message.contains(FocusReport.nameTaken):
            // blockerd's own gnome/kde probe holds the name the shell reports to:
            // doctor cannot sample beside it, and the daemon line says how it does.
            return DoctorCheck(.ok, "probe", tr("{name}: blockerd holds {busName} and hears the shell (its probe is in the daemon line)", ["name": "\(name)", "busName": "\(FocusReport.busName)"]))
        case let .failed(message):
            let skipped = facts.probePassedOver.filter { !message.contains($0) }
            let values = ["name": name, "message": message, "skipped": skipped.joined(separator: "; ")]
            let detail = skipped.isEmpty ? tr("{name} cannot sample: {message}", values)
                : tr("{name} cannot sample: {message} (passed over: {skipped})", values)
            return DoctorCheck(.fail, "probe", detail,
                               fix: shellPluginFix(message) ?? tr("see blockerctl probe; set [daemon] probe in blocker.toml"))
        }
    }

    /// A command probe run once a poll only samples: each app's time is
    /// right on average (see PollSchedule), not exactly. Its stream mode is exact.
    static func sampling(_ facts: DoctorFacts) -> DoctorCheck? {
        guard facts.probeName == ProbeChoice.command.rawValue, facts.probeCommandMode == .once else { return nil }
        return DoctorCheck(.warn, "sampling", tr("probe-command-mode = \"once\" asks your program about once a poll, at a random moment: time is charged right on average, but a window in front for less than a poll may be charged more, or nothing"),
                           fix: tr("if your program can print one JSON line per focus change, set probe-command-mode = \"stream\" under [daemon]: every change is then charged exactly"))
    }

    /// The fix when what the probe lacks is the desktop's own plugin: the
    /// GNOME extension installed since login (only a new login helps, on
    /// Wayland), or the KWin script missing or not loaded (blockerd follows it
    /// as soon as it reports).
    static func shellPluginFix(_ probeMessage: String) -> String? {
        if probeMessage.contains("GNOME Shell has not loaded it yet") {
            return tr("log out and back in: GNOME Shell on Wayland loads a newly installed extension only at login (then blockerctl doctor again)")
        }
        if probeMessage.contains(KWinShell.scriptProblemMarker) { return kwinScriptFix }
        if probeMessage.contains(GnomeShell.notEnabledMarker) { return gnomeExtensionFix }
        return nil
    }

    static var gnomeExtensionFix: String {
        tr("{command} (or turn blocker on in the Extensions app); blockerd follows it at once",
           ["command": "gnome-extensions enable \(GnomeShell.extensionUUID)"])
    }

    static var kwinScriptFix: String {
        tr("make install (installs, enables and loads the KWin script), or enable \"blocker\" in System Settings → Window Management → KWin Scripts")
    }

    static func manager(_ facts: DoctorFacts) -> DoctorCheck {
        switch facts.managerEnvironment {
        case .exited(0, _):
            return DoctorCheck(.ok, "user manager", tr("systemctl --user answers"))
        case let .exited(status, _):
            return DoctorCheck(.fail, "user manager", tr("systemctl --user cannot reach it (exit {status})", ["status": "\(status)"]),
                               fix: managerFix)
        case let .couldNotRun(reason):
            return DoctorCheck(.fail, "user manager", tr("cannot run systemctl: {reason}", ["reason": "\(reason)"]),
                               fix: tr("blocker runs under systemd's user manager; install systemd"))
        }
    }

    static func managerReachable(_ facts: DoctorFacts) -> Bool {
        if case .exited(0, _) = facts.managerEnvironment { return true }
        return false
    }

    static func unitChecks(_ facts: DoctorFacts) -> [DoctorCheck] {
        guard managerReachable(facts) else {
            return [DoctorCheck(.fail, "units", tr("not checked: the user manager is unreachable (see above)"))]
        }
        return facts.units.map { unit in
            let required = units.first { $0.name == unit.name }?.required ?? true
            return unitCheck(unit, required: required)
        }
    }

    static func unitCheck(_ unit: DoctorFacts.UnitState, required: Bool) -> DoctorCheck {
        let name = unit.name
        let enabled = firstWord(unit.enabled) ?? "not-found"
        let active = firstWord(unit.active) ?? "unknown"
        let running = ["active", "activating", "reloading"].contains(active)
        let notRunning: DoctorCheck.Level = required ? .fail : .warn
        switch enabled {
        case "not-found", "":
            return DoctorCheck(.fail, name, tr("not installed"), fix: installFix)
        case "masked", "masked-runtime":
            return DoctorCheck(.fail, name, tr("masked: it cannot start"), fix: "systemctl --user unmask \(name)")
        case "disabled":
            if running {
                return DoctorCheck(.warn, name, tr("active, but disabled: it will not start at the next login"),
                                   fix: "systemctl --user enable \(name)")
            }
            // enabled, disabled, active…: systemd's own words, as systemctl prints them.
            return DoctorCheck(notRunning, name, tr("installed, but disabled and {active}", ["active": active]),
                               fix: "systemctl --user enable --now \(name)")
        default:
            if running { return DoctorCheck(.ok, name, "\(enabled), \(active)") }
            let why = name == "blockerd.service" ? "blockerctl logs" : "journalctl --user -u \(name)"
            return DoctorCheck(notRunning, name, tr("{enabled}, but {active}", ["enabled": enabled, "active": active]),
                               fix: tr("{command}; see why with: {logs}", ["command": "systemctl --user start \(name)", "logs": why]))
        }
    }

    static func importedEnvironment(_ facts: DoctorFacts) -> DoctorCheck {
        let subject = "session environment"
        guard managerReachable(facts), case let .exited(_, text) = facts.managerEnvironment else {
            return DoctorCheck(.warn, subject, tr("not checked: the user manager is unreachable"))
        }
        let manager = parseEnvironment(text)
        let mine = sessionVariables.compactMap { key in facts.environment[key].flatMap { $0.isEmpty ? nil : (key, $0) } }
        let importFix = tr("{command} (in your session startup), then systemctl --user restart blockerd",
                           ["command": "systemctl --user import-environment " + sessionVariables.joined(separator: " ")])
        if let why = ProbeRegistry.backend(facts.probeChoice)?.needsNoSessionEnvironment {
            return DoctorCheck(.ok, subject, tr("not needed: {why}", ["why": "\(why)"]))
        }
        if mine.isEmpty {
            let has = ["WAYLAND_DISPLAY", "DISPLAY"].compactMap { key in manager[key].map { "\(key)=\($0)" } }
            if has.isEmpty {
                return DoctorCheck(.warn, subject, tr("the user manager has neither WAYLAND_DISPLAY nor DISPLAY: blockerd cannot see windows"),
                                   fix: importFix)
            }
            return DoctorCheck(.ok, subject, tr("the user manager has {variables}", ["variables": has.joined(separator: ", ")]))
        }
        let missing = mine.filter { manager[$0.0] == nil }.map(\.0)
        if !missing.isEmpty {
            return DoctorCheck(.fail, subject, tr("the user manager lacks {variables}: blockerd cannot see this session's windows", ["variables": missing.joined(separator: ", ")]),
                               fix: importFix)
        }
        let different = mine.filter { manager[$0.0] != $0.1 }
        if !different.isEmpty {
            let text = different.map { tr("{variable}={value} (this terminal: {here})", ["variable": $0.0, "value": manager[$0.0]!, "here": $0.1]) }.joined(separator: ", ")
            return DoctorCheck(.warn, subject, tr("the user manager has {text}", ["text": "\(text)"]), fix: importFix)
        }
        return DoctorCheck(.ok, subject, tr("imported: {variables}", ["variables": mine.map { "\($0.0)=\($0.1)" }.joined(separator: ", ")]))
    }

    /// blockerd.service runs with PrivateTmp= (its own /tmp, the X11 socket
    /// directory bound in) and PrivateNetwork= (no abstract sockets): an X
    /// authority file under /tmp or a bus on an abstract socket is out of its reach.
    static func sandbox(_ facts: DoctorFacts) -> DoctorCheck {
        let subject = "sandbox"
        guard managerReachable(facts), case let .exited(_, text) = facts.managerEnvironment else {
            return DoctorCheck(.warn, subject, tr("not checked: the user manager is unreachable"))
        }
        let manager = parseEnvironment(text)
        var problems: [(what: String, setting: String)] = []
        if let authority = manager["XAUTHORITY"], authority.hasPrefix("/tmp/") {
            problems.append((tr("XAUTHORITY={path} is under /tmp, which blockerd's PrivateTmp= hides", ["path": authority]), "PrivateTmp=no"))
        }
        if let bus = manager["DBUS_SESSION_BUS_ADDRESS"], bus.contains("unix:abstract=") {
            problems.append((tr("the session bus is an abstract socket ({address}), which PrivateNetwork= cuts off", ["address": bus]),
                             "PrivateNetwork=no"))
        }
        guard !problems.isEmpty else {
            return DoctorCheck(.ok, subject, tr("blockerd.service's sandbox reaches the X authority and the session bus"))
        }
        let settings = problems.map(\.setting).joined(separator: " ")
        return DoctorCheck(.warn, subject, problems.map(\.what).joined(separator: "; "),
                           fix: "mkdir -p ~/.config/systemd/user/blockerd.service.d && printf '[Service]\\n%s\\n' \(problems.map(\.setting).joined(separator: "\\n")) >~/.config/systemd/user/blockerd.service.d/sandbox.conf && systemctl --user daemon-reload && systemctl --user restart blockerd (\(settings))")
    }

    static func config(_ facts: DoctorFacts) -> DoctorCheck {
        switch facts.config {
        case let .success(counts):
            let summary = "\(facts.configPath): " + ConfigCheckCommand.summary(groups: counts.groups, exercises: counts.exercises)
            if let userFile = facts.missingUserConfig {
                return DoctorCheck(.warn, "config", tr("{summary}, the system's default: you have no {file}, so blocker observes and records but meters nothing",
                                                       ["summary": summary, "file": userFile]),
                                   fix: SystemDefaultConfig.howToStart(systemFile: facts.configPath, userFile: userFile))
            }
            return DoctorCheck(.ok, "config", summary)
        case let .failure(error):
            return DoctorCheck(.fail, "config", error.description, fix: tr("fix it, then: blockerctl config check && blockerctl reload"))
        }
    }

    static func ledger(_ facts: DoctorFacts) -> DoctorCheck {
        let path = facts.ledgerPath
        switch facts.ledger {
        case .missing:
            return DoctorCheck(.warn, "ledger", tr("{path} does not exist yet (blockerd creates it when it first starts)", ["path": "\(path)"]),
                               fix: BusFailureText.startFix)
        case let .unusable(reason):
            return DoctorCheck(.fail, "ledger", tr("cannot look at {path}: {reason}", ["path": "\(path)", "reason": "\(reason)"]), fix: tr("check the state directory's permissions"))
        case let .present(status, readFailure):
            guard status.isRegularFile else {
                return DoctorCheck(.fail, "ledger", tr("{path} is not a regular file", ["path": "\(path)"]), fix: tr("move it away; blockerd creates a new ledger"))
            }
            if let readFailure {
                return DoctorCheck(.fail, "ledger", tr("cannot read {path}: {readFailure}", ["path": "\(path)", "readFailure": "\(readFailure)"]),
                                   fix: "chown $USER \(path) && chmod 600 \(path)")
            }
            if status.ownerUID != facts.userID {
                return DoctorCheck(.fail, "ledger", tr("{path} belongs to uid {ownerUID}, not to you (uid {userID})", ["path": "\(path)", "ownerUID": "\(status.ownerUID)", "userID": "\(facts.userID)"]),
                                   fix: "chown $USER \(path)")
            }
            if status.permissions != 0o600 {
                return DoctorCheck(.warn, "ledger", tr("{path} has mode {mode}; the ledger should be private (0600)", ["path": "\(path)", "mode": octal(status.permissions)]),
                                   fix: "chmod 600 \(path)")
            }
            return DoctorCheck(.ok, "ledger", "\(path) (0600)")
        }
    }

    static func journal(_ facts: DoctorFacts) -> DoctorCheck {
        let fix = "add yourself to the systemd-journal group, or make the journal persistent (Storage=persistent in journald.conf)"
        switch facts.journal {
        case .exited(0, _):
            return DoctorCheck(.ok, "journal", tr("journalctl --user answers"))
        case let .exited(status, _):
            return DoctorCheck(.warn, "journal", tr("journalctl --user -n 0 failed (exit {status}): blockerctl logs will show nothing", ["status": "\(status)"]), fix: fix)
        case let .couldNotRun(reason):
            return DoctorCheck(.warn, "journal", tr("cannot run journalctl: {reason}", ["reason": "\(reason)"]), fix: tr("journalctl comes with systemd"))
        }
    }

    static func daemon(_ facts: DoctorFacts) -> DoctorCheck {
        switch facts.daemon {
        case let .success(report) where report.probeOK:
            return DoctorCheck(.ok, "daemon", tr("answering: balance {balance}, probe {probe} ok", ["balance": DurationText.format(report.balanceMs), "probe": report.probeName]))
        case let .success(report):
            return DoctorCheck(.warn, "daemon", tr("answering, but its {probe} probe fails: {why}", ["probe": report.probeName, "why": report.probeError ?? tr("no reason given")]),
                               fix: shellPluginFix(report.probeError ?? "")
                                   ?? "see blockerctl logs; blockerd needs the session environment (see above)")
        case let .failure(failure):
            let text = BusFailureText.failure(failure)
            return DoctorCheck(.fail, "daemon", text.message, fix: text.fix)
        }
    }

    /// `OK    subject   detail`, with the fix on the next line, aligned under the detail.
    static func render(_ checks: [DoctorCheck], printer: Printer) -> [String] {
        let width = (checks.map(\.subject.count).max() ?? 0) + 2
        var lines: [String] = []
        for check in checks {
            let style: Style = switch check.level { case .ok: .green; case .warn: .yellow; case .fail: .red }
            lines.append(printer.paint(check.level.rawValue.padding(to: 4), style) + "  " + check.subject.padding(to: width) + check.detail)
            if let fix = check.fix {
                lines.append(String(repeating: " ", count: 6 + width) + "fix: " + fix)
            }
        }
        return lines
    }

    static func parseEnvironment(_ text: String) -> [String: String] {
        var result: [String: String] = [:]
        for line in text.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            result[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        return result
    }

    private static func firstWord(_ run: DoctorFacts.ProgramRun) -> String? {
        guard case let .exited(_, text) = run else { return nil }
        return text.split(whereSeparator: { $0.isWhitespace }).first.map(String.init)
    }

    private static func octal(_ mode: UInt32) -> String {
        let digits = String(mode, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
