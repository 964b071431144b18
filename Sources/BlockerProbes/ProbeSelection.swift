import BlockerCore

/// Picks the probe for `probe = …`, and says why each backend that was
/// passed over cannot run (logged once, shown by `blockerctl probe`/`doctor`).
public struct ProbeSelection {
    public var probe: ForegroundProbe
    /// One line per backend that was considered and refused: "sway: SWAYSOCK is not set".
    public var passedOver: [String]

    public static func select(_ choice: ProbeChoice, settings: DaemonSettings,
                              environment: [String: String]) -> ProbeSelection {
        switch choice {
        case .command:
            return ProbeSelection(probe: commandProbe(settings), passedOver: [])
        case .x11, .sway, .hyprland:
            let why = "the \(choice.rawValue) probe is not in this build yet"
            return ProbeSelection(probe: UnavailableProbe(name: choice.rawValue, reason: why), passedOver: [why])
        case .auto:
            var reasons: [String] = []
            if environment["HYPRLAND_INSTANCE_SIGNATURE"] == nil { reasons.append("hyprland: HYPRLAND_INSTANCE_SIGNATURE is not set") }
            else { reasons.append("hyprland: the hyprland probe is not in this build yet") }
            if environment["SWAYSOCK"] == nil { reasons.append("sway: SWAYSOCK is not set") }
            else { reasons.append("sway: the sway probe is not in this build yet") }
            if environment["DISPLAY"] == nil { reasons.append("x11: DISPLAY is not set") }
            else { reasons.append("x11: the x11 probe is not in this build yet") }
            let why = "no probe can run here (\(reasons.joined(separator: "; "))); "
                + "set probe = \"command\" with probe-command in blocker.toml, or import the session "
                + "environment: systemctl --user import-environment DISPLAY WAYLAND_DISPLAY SWAYSOCK"
            return ProbeSelection(probe: UnavailableProbe(name: "none", reason: why), passedOver: reasons)
        }
    }

    static func commandProbe(_ settings: DaemonSettings) -> ForegroundProbe {
        // A probe that hangs is killed after 2 × poll-interval and its tick debits nothing.
        CommandProbe(argv: settings.probeCommand, timeoutMs: 2 * settings.pollInterval)
    }
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
