import BlockerCore

/// Picks the probe for `probe = …`, and says why each backend that was
/// passed over cannot run (logged once, shown by `blockerctl probe`/`doctor`).
public struct ProbeSelection {
    /// The probe with the session's lock merged into its samples (`blockerctl`).
    public var probe: ForegroundProbe
    /// The same probe alone, and the session lock beside it (blockerd: the
    /// lock is an input of the tick, followed by its signals).
    public var display: ForegroundProbe
    public var session: SessionLock?
    /// One line per backend that was considered and refused: "sway: SWAYSOCK is not set".
    public var passedOver: [String]

    init(display: ForegroundProbe, session: SessionLock? = nil, passedOver: [String]) {
        self.display = display
        self.session = session
        probe = session.map { LockAwareProbe(display, session: $0) } ?? display
        self.passedOver = passedOver
    }

    /// `launcher`: runs the command probe's program (blockerd passes its own helper).
    public static func select(_ choice: ProbeChoice, settings: DaemonSettings, environment: [String: String],
                              launcher: ProbeLauncher? = nil) -> ProbeSelection {
        let context = ProbeContext(environment: environment, settings: settings, launcher: launcher)
        guard let backend = ProbeRegistry.backend(choice) else { return auto(context) }
        switch backend.openApart(context) {
        case let .success(opened): return ProbeSelection(display: opened.probe, session: opened.session, passedOver: [])
        case let .failure(why):
            // Keep running: every sample fails with the reason, so status and the journal say it.
            return ProbeSelection(display: UnavailableProbe(name: backend.name, reason: why.description),
                                  passedOver: [why.description])
        }
    }

    /// The first display backend that opens, in the registry's order.
    private static func auto(_ context: ProbeContext) -> ProbeSelection {
        var reasons: [String] = []
        for backend in ProbeRegistry.automatic {
            if let why = backend.autoPassesOver(context.environment) {
                reasons.append(why.description)
                continue
            }
            switch backend.openApart(context) {
            case let .success(opened): return ProbeSelection(display: opened.probe, session: opened.session, passedOver: reasons)
            case let .failure(why): reasons.append(why.description)
            }
        }
        let why = "no probe can run here (\(reasons.joined(separator: "; "))); import the session "
            + "environment: systemctl --user import-environment \(ProbeRegistry.sessionVariables.joined(separator: " ")), "
            + "or set probe = \"command\" with probe-command in blocker.toml"
        return ProbeSelection(display: UnavailableProbe(name: "none", reason: why), passedOver: reasons)
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
