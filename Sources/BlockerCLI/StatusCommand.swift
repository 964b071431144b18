import BlockerBus
import BlockerCore
import BlockerJSON
import BlockerSystem

/// `blockerctl status [--json] [--format FORMAT [--follow] [--low DURATION]]`
struct StatusCommand: BlockerCommand {
    static let spec = CommandSpec(
        ["status"],
        abstract: N_("Show the balance, the window in front and whether it is shielded"),
        options: [
            .flag("--json", help: N_("print the status as one JSON object (the documented contract)")),
            .value("--format", "FORMAT", help: N_("one line for a status bar: waybar (JSON), i3blocks (JSON) or text"),
                   completion: .words(StatusBar.Format.allCases.map(\.rawValue))),
            .flag("--follow", help: N_("with --format: print a new line at every change blockerd signals, until killed")),
            .value("--low", "DURATION", help: N_("with --format: the balance under which the class is low (default 5m)")),
        ],
        discussion: N_("--json prints {\"balance_ms\", \"metered\", \"spending\", \"locked\", \"foreground\" {app, title, pid, groups, and for a\nbrowser with blocker's extension tab {site, private, covered}} or null,\n\"shield\" {active, reason, app, group, until_ms, site}, \"today\" {used_ms, earned_ms},\n\"exercises\" [{name, ms_per_rep}], \"probe\" {name, ok, error}}.\nreason is one of balance, timed-block, schedule, daily-limit, opens-cap, pause (until_ms: a pause's\ncountdown end). With [pass]: \"passes_left\" (this week). With opens today: \"opens_today\" [{group, opens,\npaused, not_now, left, capped, passes, reasons}], as history's.\n--format waybar prints {\"text\", \"tooltip\", \"class\", \"percentage\"}: class is ok, low, shielded,\nor down while blockerd is not running; percentage is the balance out of an hour.\n--follow waits for blockerd's signals and, while the balance is spent, counts it down itself each second\n(it never polls blockerd); waybar: \"exec\": \"blockerctl status --follow --format waybar\"."))

    let json: Bool
    let format: StatusBar.Format?
    let follow: Bool
    let lowMs: Milliseconds

    init(_ arguments: ParsedArguments) throws(UsageError) {
        json = arguments.flag("--json")
        follow = arguments.flag("--follow")
        if let text = arguments.value("--format") {
            guard let format = StatusBar.Format(rawValue: text) else {
                throw UsageError(tr("--format must be waybar, i3blocks or text, not {value}", ["value": quoted(text)]))
            }
            self.format = format
        } else {
            format = nil
        }
        if json && format != nil { throw UsageError(tr("--json and --format cannot go together; choose one")) }
        if follow && format == nil { throw UsageError(tr("--follow needs --format (waybar, i3blocks or text)")) }
        if let text = arguments.value("--low") {
            guard format != nil else { throw UsageError(tr("--low needs --format (waybar, i3blocks or text)")) }
            guard let ms = try? DurationText.parse(text), ms >= 0 else {
                throw UsageError(tr("--low must be a duration like 5m or 90s, not {value}", ["value": quoted(text)]))
            }
            lowMs = ms
        } else {
            lowMs = 300_000
        }
    }

    func run(_ context: CommandContext) throws(CommandFailure) {
        if let format {
            try runBar(context, format: format)
            return
        }
        let report = try context.call { service throws(BusFailure) in try service.status() }
        if json {
            let opens = (try? context.service()).map { HistoryOpens.fetch($0, days: 1) } ?? [:]
            context.out.line(StatusText.json(report, opensToday: opens.values.flatMap { $0 }).rendered)
        } else {
            for line in StatusText.human(report, clock: context.localClock, now: context.invocation.clock(), printer: context.out,
                                         userConfigFile: BlockerPaths.userConfigFile(environment: context.environment)) {
                context.out.line(line)
            }
        }
    }

    /// One bar line; with --follow, another at every signal that changes it.
    /// A bar shows "blocker off" rather than an error while blockerd is away.
    private func runBar(_ context: CommandContext, format: StatusBar.Format) throws(CommandFailure) {
        let service = try context.service()
        let clock = context.localClock
        var last: String?
        var report: StatusReport?
        var askedAt = MonotonicClock.now
        func ask() {
            report = try? service.status()
            askedAt = MonotonicClock.now
        }
        func emit() {
            let now = StatusBar.projected(report, elapsedMs: MonotonicClock.now - askedAt)
            let line = StatusBar.render(StatusBar.line(now, lowMs: lowMs, clock: clock, now: context.invocation.clock()),
                                        format: format)
            if line != last { context.out.line(line) }
            last = line
        }
        guard follow else {
            ask()
            emit()
            return
        }
        guard let signals = service as? any BlockerSignalSource else {
            throw CommandFailure(tr("this connection to blockerd cannot follow its signals"))
        }
        // The handlers only mark the state stale: the status is asked after the
        // dispatch, never from inside a signal's callback.
        var stale = true
        let subscriptions: [BlockerSubscription]
        do {
            subscriptions = [
                try signals.onShieldChanged { _ in stale = true },
                try signals.onBalanceChanged { _ in stale = true },
                try signals.onDaemonRunningChanged { _ in stale = true },
            ]
        } catch {
            throw BusFailureText.failure(error)
        }
        while true {
            if stale {
                stale = false
                ask()
            }
            emit()
            // blockerd signals when spending starts and stops, and every 10 s
            // between; the seconds in between are counted here.
            let wait = StatusBar.nextSecond(report, elapsedMs: MonotonicClock.now - askedAt)
            do { try signals.waitAndDispatch(microseconds: wait.map { UInt64($0.ms) * 1000 } ?? .max) } catch {
                withExtendedLifetime(subscriptions) {}
                throw BusFailureText.failure(error)
            }
        }
    }
}

/// `status` output, pure.
enum StatusText {
    static func json(_ report: StatusReport, opensToday: [OpenDaySummary] = []) -> JSONValue {
        var fields: [(String, JSONValue)] = [
            ("balance_ms", .integer(report.balanceMs.ms)),
            ("metered", .bool(report.metered)),
            ("spending", .bool(report.spending)),
            ("locked", .bool(report.locked)),
            ("foreground", report.foreground.map(foregroundJSON) ?? .null),
            ("shield", .object([
                ("active", .bool(report.shield.active)),
                ("reason", .optional(report.shield.active ? report.shield.reason?.rawValue : nil)),
                ("app", .optional(report.shield.app.isEmpty ? nil : report.shield.app)),
                ("group", .optional(report.shield.group)),
                ("until_ms", .integer(report.shield.until?.ms ?? 0)),
                // The site whose tab blocker's browser extension covers; null for a window's shield.
                ("site", .optional(report.shield.active ? report.shield.site : nil)),
            ])),
            ("today", .object([
                ("used_ms", .integer(report.todayUsedMs.ms)),
                ("earned_ms", .integer(report.todayEarnedMs.ms)),
            ])),
            ("exercises", .array(report.exercises.map {
                .object([("name", .string($0.name)), ("ms_per_rep", .integer($0.perRep.ms))])
            })),
            ("probe", .object([
                ("name", .string(report.probeName)),
                ("ok", .bool(report.probeOK)),
                ("error", .optional(report.probeError)),
            ])),
        ]
        if let systemConfig = report.systemConfig { fields.append(("system_config", .string(systemConfig))) }
        // Only while strict mode runs on the ledger's config (blocker.toml does not load).
        if let problem = report.configProblem { fields.append(("config_problem", .string(problem))) }
        if let left = report.shield.passesLeft { fields.append(("passes_left", .integer(Int64(left)))) }
        if !opensToday.isEmpty { fields.append(("opens_today", HistoryOpens.json(opensToday.sorted { $0.group < $1.group }))) }
        return .object(fields)
    }

    /// `{"app", "title", "pid", "groups"}`: shared by `status --json` and `probe --json`.
    /// `tab` only for a browser whose extension reports (status): `probe --json` never has one.
    static func foregroundJSON(_ foreground: StatusReport.Foreground) -> JSONValue {
        var fields: [(String, JSONValue)] = [
            ("app", .string(foreground.app)),
            ("title", .string(foreground.title)),
            ("pid", foreground.pid.map { .integer(Int64($0)) } ?? .null),
            ("groups", .array(foreground.groups.map(JSONValue.string))),
        ]
        if let tab = foreground.tab {
            fields.append(("tab", .object([("site", .optional(tab.site)), ("private", .bool(tab.isPrivate)),
                                           ("covered", .bool(tab.covered))])))
        }
        return .object(fields)
    }

    /// `userConfigFile`: where this user's own blocker.toml goes (said while blockerd runs on the system's).
    /// The labels and words follow the person's language; `--json` never does.
    static func human(_ report: StatusReport, clock: LocalClock, now: WallInstant, printer: Printer,
                      userConfigFile: String) -> [String] {
        var rows: [(label: String, value: String)] = []
        let balance = DurationText.format(report.balanceMs)
        rows.append((tr("balance"), printer.paint(balance, report.balanceMs > 0 ? .bold : .red)))

        if report.locked {
            rows.append((tr("front"), tr("screen locked (nothing is spent)")))
        } else if let front = report.foreground {
            rows.append((tr("front"), describe(front)))
        } else {
            rows.append((tr("front"), tr("nothing in front")))
        }
        // A covered app spends nothing: the shield is what it is paying.
        let spending = report.metered && !report.locked && !report.shield.active
        rows.append((tr("spending"), spending
                        ? tr("{yes} (a metered app is in front)", ["yes": printer.paint(tr("yes"), .yellow)])
                        : report.metered && report.shield.active ? tr("no (the app in front is covered)") : tr("no")))

        if report.shield.active {
            rows.append((tr("shield"), printer.paint(tr("up"), .red)
                         + shieldDetail(report.shield, clock: clock, now: now, naming: .site)))
        } else {
            rows.append((tr("shield"), tr("down")))
        }
        rows.append((tr("today"), today(report)))
        rows.append((tr("earn"), report.exercises.isEmpty ? tr("no exercises configured ([earn] in blocker.toml)")
                        : tr("{exercises} a rep", ["exercises": report.exercises.map { "\($0.name) \(DurationText.format($0.perRep))" }
                                                    .joined(separator: ", ")])))
        let probe = report.probeOK
            ? "\(report.probeName), " + printer.paint(tr("ok"), .green)
            : "\(report.probeName), " + printer.paint(tr("failing"), .red) + (report.probeError.map { ": \($0)" } ?? "")
        rows.append((tr("probe"), probe))
        if let systemConfig = report.systemConfig {
            rows.append((tr("metering"), tr("{off} — no config of your own, so blocker only observes ({file} is the system's default); {how}",
                                            ["off": printer.paint(tr("off"), .yellow), "file": systemConfig,
                                             "how": SystemDefaultConfig.howToStart(systemFile: systemConfig, userFile: userConfigFile)])))
        }
        if let delay = report.strictDelayMs {
            var text = tr("on (changes that loosen wait {delay})", ["delay": DurationText.format(delay)])
            if report.pendingChanges > 0, let next = report.pendingNext {
                text += "; " + trn("{count} pending, the next {time} (blockerctl config pending)",
                                   "{count} pending, the next {time} (blockerctl config pending)",
                                   count: Int(report.pendingChanges), ["time": clock.describe(next, now: now)])
            }
            rows.append((tr("strict"), text))
        }
        if let problem = report.configProblem { rows.append((tr("config"), printer.paint(problem, .red))) }
        return AlignedRows.render(rows)
    }

    /// What `status` and the bar's tooltip say after "up": over what, why, until when.
    enum ShieldDetail { case site, noSite }

    static func shieldDetail(_ shield: ShieldState, clock: LocalClock, now: WallInstant, naming: ShieldDetail) -> String {
        var text = ""
        if !shield.app.isEmpty { text += " " + tr("over {app}", ["app": shield.app]) }
        if naming == .site, let site = shield.site {
            text += " " + tr("(the tab on {site}, covered by the browser extension)", ["site": site])
        }
        if let reason = shield.reason { text += " — " + reasonText(reason, group: shield.group) }
        if let until = shield.until { text += " " + tr("until {time}", ["time": clock.describe(until, now: now)]) }
        return text
    }

    /// "25m 00s used, 30m 00s earned".
    static func today(_ report: StatusReport) -> String {
        tr("{used} used, {earned} earned", ["used": DurationText.format(report.todayUsedMs),
                                             "earned": DurationText.format(report.todayEarnedMs)])
    }

    static func describe(_ front: StatusReport.Foreground) -> String {
        var parts = [front.app]
        if !front.title.isEmpty { parts.append(quoted(front.title)) }
        if let pid = front.pid { parts.append(tr("pid {pid}", ["pid": "\(pid)"])) }
        if let tab = front.tab {
            let site = tab.site ?? tr("(no site)")
            parts.append(tab.covered ? (tab.isPrivate ? tr("tab {site}, private, blocker's page", ["site": site])
                                                      : tr("tab {site}, blocker's page", ["site": site]))
                                     : (tab.isPrivate ? tr("tab {site}, private", ["site": site]) : tr("tab {site}", ["site": site])))
        }
        parts.append(front.groups.isEmpty ? tr("(no group)") : "[\(front.groups.joined(separator: ", "))]")
        return parts.joined(separator: "  ")
    }

    static func reasonText(_ reason: ShieldReason, group: String?) -> String {
        switch (reason, group) {
        case (.balance, _): tr("balance spent (earn more: blockerctl earn REPS)")
        case let (.timedBlock, group?): tr("timed block on {group}", ["group": group])
        case (.timedBlock, nil): tr("timed block")
        case let (.schedule, group?): tr("scheduled block on {group}", ["group": group])
        case (.schedule, nil): tr("scheduled block")
        case let (.dailyLimit, group?): tr("daily limit for {group} reached", ["group": group])
        case (.dailyLimit, nil): tr("daily limit reached")
        case let (.opensCap, group?): tr("opens-per-day reached for {group} (until midnight; blockerctl pass lifts it)", ["group": group])
        case (.opensCap, nil): tr("opens-per-day reached (until midnight; blockerctl pass lifts it)")
        case let (.pause, group?): tr("a pause before opening {group} (answer on the cover)", ["group": group])
        case (.pause, nil): tr("a pause before opening (answer on the cover)")
        }
    }
}
