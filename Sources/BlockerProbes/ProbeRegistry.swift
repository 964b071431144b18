import BlockerCore

/// The foreground backends, one entry each, in the order `probe = "auto"`
/// tries them: the desktops whose shell reports to us first (GNOME, KDE),
/// then the compositors' own IPC, X11 after them (under Wayland
/// an X11 probe sees only XWayland windows), the command probe never (it needs
/// probe-command). `ProbeSelection`, `blockerd --probe`, `blockerctl probe`
/// and `blockerctl doctor` read this table.
///
/// Adding a backend: its file (one `ForegroundProbe`), an entry here, a case
/// of `ProbeChoice` (BlockerCore checks `probe = …` without linking the
/// probes; `ProbeRegistryTests` keeps the two in step), and its tests.
public enum ProbeRegistry {
    public static let backends: [ProbeBackend] = [
        ProbeBackend(.gnome, detection: .currentDesktop("GNOME")) { context in
            ShellReportProbe.open(GnomeShell(environment: context.environment), environment: context.environment).map { $0 }
        },
        ProbeBackend(.kde, detection: .currentDesktop("KDE")) { context in
            ShellReportProbe.open(KWinShell(environment: context.environment), environment: context.environment).map { $0 }
        },
        ProbeBackend(.hyprland, detection: .sessionVariable("HYPRLAND_INSTANCE_SIGNATURE")) { context in
            HyprlandProbe.open(environment: context.environment).map { $0 }
        },
        ProbeBackend(.sway, detection: .sessionVariable("SWAYSOCK")) { context in
            SwayProbe.open(environment: context.environment).map { $0 }
        },
        // Any other wlroots compositor (labwc, wayfire, river, phoc…): after
        // sway's own IPC, which also gives the pid.
        ProbeBackend(.wlroots, detection: .sessionVariable("WAYLAND_DISPLAY")) { context in
            WlrootsProbe.open(environment: context.environment).map { $0 }
        },
        ProbeBackend(.x11, detection: .sessionVariable("DISPLAY", autoPassesOver: AutoPassOver("WAYLAND_DISPLAY") { wayland in
            "a Wayland session (WAYLAND_DISPLAY=\(wayland)): X11 would only see XWayland windows"
        })) { context in
            X11Probe.open(environment: context.environment,
                          followsIdle: context.settings.idleAfter != nil).map { $0 }
        },
        ProbeBackend(.command, detection: .configured(readsNoDisplay: "the command probe does not read the display")) { context in
            switch context.settings.probeCommandMode {
            case .stream:
                .success(StreamingCommandProbe(argv: context.settings.probeCommand))
            case .once:
                // A probe that hangs is killed after 2 × poll-interval and its tick debits nothing.
                .success(CommandProbe(argv: context.settings.probeCommand, timeoutMs: 2 * context.settings.pollInterval,
                                      launcher: context.launcher))
            }
        },
    ]

    /// The entry for `choice`; nil for `auto`, which is all of them.
    public static func backend(_ choice: ProbeChoice) -> ProbeBackend? {
        backends.first { $0.choice == choice }
    }

    /// What `auto` tries, in order.
    public static var automatic: [ProbeBackend] { backends.filter(\.readsDisplay) }

    /// Every name `probe = …` and `--probe` take, `auto` first: "auto", "hyprland", …
    public static var choiceNames: [String] { [ProbeChoice.auto.rawValue] + backends.map(\.name) }

    /// Every session variable a backend reads, in table order: what blockerd's
    /// environment (the user manager's) must have for `auto` to work.
    public static var sessionVariables: [String] {
        var seen = Set<String>()
        return backends.flatMap(\.sessionVariables).filter { seen.insert($0).inserted }
    }
}

/// What opening a backend may use.
public struct ProbeContext {
    public var environment: [String: String]
    public var settings: DaemonSettings
    /// Runs the command probe's program (blockerd passes its own helper); nil: spawn here.
    public var launcher: ProbeLauncher?

    public init(environment: [String: String], settings: DaemonSettings, launcher: ProbeLauncher? = nil) {
        self.environment = environment
        self.settings = settings
        self.launcher = launcher
    }
}

/// `auto` passes a backend over where `variable` is set, with the reason made from its value.
public struct AutoPassOver: Sendable {
    public let variable: String
    let reason: @Sendable (_ value: String) -> String

    public init(_ variable: String, reason: @escaping @Sendable (_ value: String) -> String) {
        self.variable = variable
        self.reason = reason
    }
}

/// One foreground backend: its name, how to tell from the environment that it
/// can run here, how to open it, and what `doctor` checks for it.
public struct ProbeBackend: Sendable {
    public enum Detection: Sendable {
        /// Its display server runs where `variable` is set (non-empty).
        case sessionVariable(String, autoPassesOver: AutoPassOver? = nil)
        /// Its desktop runs where `XDG_CURRENT_DESKTOP` (a colon-separated
        /// list: "ubuntu:GNOME") names it, in any case.
        case currentDesktop(String)
        /// Reads no display and needs settings of its own: chosen by name only.
        case configured(readsNoDisplay: String)
    }

    public let choice: ProbeChoice
    public let detection: Detection
    private let opener: @Sendable (ProbeContext) -> Result<ForegroundProbe, ProbeUnavailable>

    public init(_ choice: ProbeChoice, detection: Detection,
                open: @escaping @Sendable (ProbeContext) -> Result<ForegroundProbe, ProbeUnavailable>) {
        self.choice = choice
        self.detection = detection
        self.opener = open
    }

    static let currentDesktopVariable = "XDG_CURRENT_DESKTOP"

    /// `x11`, `sway`…: in blocker.toml, status, logs.
    public var name: String { choice.rawValue }

    /// Display backends are what `auto` tries; the others are chosen by name.
    public var readsDisplay: Bool {
        if case .configured = detection { return false }
        return true
    }

    /// The session variables it reads.
    public var sessionVariables: [String] {
        switch detection {
        case let .sessionVariable(variable, passOver): [variable] + (passOver.map { [$0.variable] } ?? [])
        case .currentDesktop: [Self.currentDesktopVariable]
        case .configured: []
        }
    }

    /// doctor's session-environment check: nil when the backend needs the
    /// session variables imported, else why it needs none.
    public var needsNoSessionEnvironment: String? {
        if case let .configured(why) = detection { return why }
        return nil
    }

    /// Why `auto` passes it over in `environment` ("sway: SWAYSOCK is not set"), or nil to try it.
    public func autoPassesOver(_ environment: [String: String]) -> ProbeUnavailable? {
        switch detection {
        case .configured:
            return ProbeUnavailable(probe: name, reason: "chosen by name only")
        case let .currentDesktop(desktop):
            let listed = (environment[Self.currentDesktopVariable] ?? "").split(separator: ":")
            if listed.contains(where: { $0.lowercased() == desktop.lowercased() }) { return nil }
            return ProbeUnavailable(probe: name, reason: listed.isEmpty
                ? "\(Self.currentDesktopVariable) is not set"
                : "\(Self.currentDesktopVariable)=\(listed.joined(separator: ":")) does not name \(desktop)")
        case let .sessionVariable(variable, passOver):
            guard let value = environment[variable], !value.isEmpty else {
                return ProbeUnavailable(probe: name, reason: "\(variable) is not set")
            }
            if let passOver, let value = environment[passOver.variable], !value.isEmpty {
                return ProbeUnavailable(probe: name, reason: passOver.reason(value))
            }
            return nil
        }
    }

    /// The probe, connected, or why it cannot run. Display probes also ask
    /// logind (LockedHint, IdleHint) and the desktop's screensaver: a locked
    /// screen is not usage, whatever the compositor says.
    public func open(_ context: ProbeContext) -> Result<ForegroundProbe, ProbeUnavailable> {
        openApart(context).map { opened in opened.session.map { LockAwareProbe(opened.probe, session: $0) } ?? opened.probe }
    }

    /// `open`, with the session lock beside the probe rather than merged
    /// into its samples: blockerd follows the lock's signals and gives its
    /// state to the tick as an input of its own.
    public func openApart(_ context: ProbeContext) -> Result<(probe: ForegroundProbe, session: SessionLock?), ProbeUnavailable> {
        opener(context).map { ($0, readsDisplay ? SessionLock(environment: context.environment) : nil) }
    }
}
