import BlockerCore

/// The daemon's state as the rest of blockerd sees it: built once per tick
/// (and after an earning, a block, a reload), published only when it changed.
/// `Status`, the `STATUS=` line, the cover's media and the notifications read
/// this and nothing else of the daemon. A value: a reader never sees half a tick.
///
/// It lives in BlockerDaemon, not BlockerCore: it names the daemon's own
/// pieces (the probe by name, the config file, strict mode's waiting changes),
/// and only blockerd reads it.
public struct DaemonSnapshot: Equatable, Sendable {
    /// The ledger's balance at the tick (the open interval not yet charged).
    public var balanceMs: Milliseconds
    /// The interval open since the tick, when it spends the balance.
    public var openSpend: OpenSpend?
    /// The window the last answering sample saw (kept through a failure streak).
    public var front: Window?
    /// The decision of the last sample (a failed one keeps it).
    public var decision: Decision
    /// The shield as shown.
    public var shield: Shield?
    public var today: Today
    public var probe: ProbeHealth
    /// Whether the last answering sample said the screen is locked.
    public var locked: Bool
    /// The current storage failure, nil while the ledger writes.
    public var storageError: String?
    public var strict: StrictState
    /// `[earn]` as in force.
    public var exercises: [Exercise]
    /// The system's default config blockerd runs on (metering nothing), nil
    /// when the user has a config of their own.
    public var systemConfig: String?
    /// Published by an earning: a shield lifting now was lifted by it (the
    /// cover's media may resume).
    public var afterEarning = false
    /// Browsers seen in front with no word from blocker's extension while the
    /// config names sites (their tabs are judged by apps and titles): doctor says so.
    public var browsersWithoutExtension: [String] = []
    /// `[sync]`: the folder, this device and the others; nil without [sync].
    public var sync: SyncStatus?

    /// The local day of the tick and what it holds, the open interval not included.
    public struct Today: Equatable, Sendable {
        public var day: CivilDate
        public var usedMs: Milliseconds
        public var earnedMs: Milliseconds
    }

    public struct ProbeHealth: Equatable, Sendable {
        public var name: String
        /// The current failure streak's message, nil while the probe answers.
        public var error: String?
    }

    public struct StrictState: Equatable, Sendable {
        /// `[strict] delay` in force; nil outside strict mode.
        public var delayMs: Milliseconds?
        /// The changes waiting at the tick, soonest first.
        public var pending: [PendingChange]
        /// Why strict mode runs on the ledger's config (blocker.toml does not load).
        public var configProblem: String?
    }

    /// The balance as of `monotonic`: less what the open interval has spent.
    public func balance(at monotonic: MonotonicInstant) -> Milliseconds {
        balanceMs - (openSpend?.debit(at: monotonic, balance: balanceMs) ?? 0)
    }

    /// Whether the balance is being spent (Status's `spending`, BalanceChanged's cadence).
    public var isSpending: Bool { openSpend != nil && balanceMs > 0 }

    /// What is in front as far as anyone is told: nothing while the probe
    /// fails (the window may be gone, and nothing is charged to it).
    public var foreground: Window? { probe.error == nil ? front : nil }

    /// Time used today up to `monotonic`.
    public func usedToday(at monotonic: MonotonicInstant) -> Milliseconds {
        today.usedMs + balanceMs - balance(at: monotonic)
    }

    /// The waiting changes still to come at `wall`.
    public func pendingChanges(at wall: WallInstant) -> [PendingChange] {
        strict.pending.filter { $0.applyAt > wall }
    }

    /// Whether `statusLine` says only the balance and the window in front:
    /// no problem, no failing probe, no shield (what must be said at once).
    public var statusIsRoutine: Bool {
        strict.configProblem == nil && probe.error == nil && shield == nil && storageError == nil
    }

    /// One human line for `systemctl status` (sd_notify STATUS=).
    public var statusLine: String {
        if let problem = strict.configProblem { return problem }
        if let error = probe.error { return "Probe \(probe.name) failing: \(error)" }
        if let shield { return "Shield up: \(shield.app) (\(shield.reason.rawValue))" }
        var line = "Balance \(DurationText.format(balanceMs))"
        if let window = front {
            let groups = decision.groups.isEmpty ? "no group" : decision.groups.joined(separator: ", ")
            line += " · front: \(window.app) (\(groups)\(decision.metered ? ", metered" : ""))"
        } else {
            line += " · nothing in front"
        }
        if let storageError { line += " · ledger not writable: \(storageError)" }
        return line
    }
}
