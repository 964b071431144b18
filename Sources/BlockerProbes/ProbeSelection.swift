import BlockerCore

/// Picks the probe for `probe = …`, and says why each backend that was
/// passed over cannot run (logged once, shown by `blockerctl probe`/`doctor`).
public struct ProbeSelection {
    public var probe: ForegroundProbe
    /// One line per backend that was considered and refused: "sway: SWAYSOCK is not set".
    public var passedOver: [String]

    /// The order `auto` tries: the compositor's own IPC first, X11 last
    /// (under Wayland an X11 probe only sees XWayland windows).
    static let autoOrder: [ProbeChoice] = [.hyprland, .sway, .x11]

    /// `launcher`: runs the command probe's program (blockerd passes its own helper).
    public static func select(_ choice: ProbeChoice, settings: DaemonSettings, environment: [String: String],
                              launcher: ProbeLauncher? = nil) -> ProbeSelection {
        switch choice {
        case .command:
            // A probe that hangs is killed after 2 × poll-interval and its tick debits nothing.
            return ProbeSelection(probe: CommandProbe(argv: settings.probeCommand, timeoutMs: 2 * settings.pollInterval,
                                                      launcher: launcher),
                                  passedOver: [])
        case .x11, .sway, .hyprland:
            switch open(choice, environment: environment) {
            case let .success(probe): return ProbeSelection(probe: lockAware(probe, environment), passedOver: [])
            case let .failure(why):
                // Keep running: every sample fails with the reason, so status and the journal say it.
                return ProbeSelection(probe: UnavailableProbe(name: choice.rawValue, reason: why.description),
                                      passedOver: [why.description])
            }
        case .auto:
            var reasons: [String] = []
            for backend in autoOrder {
                if backend == .x11, let wayland = environment["WAYLAND_DISPLAY"], !wayland.isEmpty {
                    reasons.append("x11: a Wayland session (WAYLAND_DISPLAY=\(wayland)): X11 would only see XWayland windows")
                    continue
                }
                switch open(backend, environment: environment) {
                case let .success(probe): return ProbeSelection(probe: lockAware(probe, environment), passedOver: reasons)
                case let .failure(why): reasons.append(why.description)
                }
            }
            let why = "no probe can run here (\(reasons.joined(separator: "; "))); import the session "
                + "environment: systemctl --user import-environment DISPLAY WAYLAND_DISPLAY SWAYSOCK, "
                + "or set probe = \"command\" with probe-command in blocker.toml"
            return ProbeSelection(probe: UnavailableProbe(name: "none", reason: why), passedOver: reasons)
        }
    }

    static func open(_ backend: ProbeChoice, environment: [String: String]) -> Result<ForegroundProbe, ProbeUnavailable> {
        switch backend {
        case .hyprland: HyprlandProbe.open(environment: environment).map { $0 as ForegroundProbe }
        case .sway: SwayProbe.open(environment: environment).map { $0 as ForegroundProbe }
        case .x11: X11Probe.open(environment: environment).map { $0 as ForegroundProbe }
        case .auto, .command:
            .failure(ProbeUnavailable(probe: backend.rawValue, reason: "not a display backend"))
        }
    }
}

/// Display probes also ask logind (LockedHint, IdleHint) and the desktop's
/// screensaver: a locked screen is not usage, whatever the compositor says.
private func lockAware(_ probe: ForegroundProbe, _ environment: [String: String]) -> ForegroundProbe {
    LockAwareProbe(probe, session: SessionLock(environment: environment))
}

/// Stands in when no backend can run: every sample fails with the reason, so
/// the daemon keeps running, debits nothing, and says why in status and the journal.
public final class UnavailableProbe: ForegroundProbe {
    public let name: String
    public let reason: String
    public init(name: String, reason: String) {
        self.name = name
        self.reason = reason
    }
    public func sample() -> Result<Reading, ProbeFailure> { .failure(ProbeFailure(reason)) }
}
