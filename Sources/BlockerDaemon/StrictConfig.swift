import BlockerConfig
import BlockerCore
import BlockerStore
import BlockerSystem

/// A config version as the daemon holds it: the stored row and its parse.
struct LoadedConfigVersion {
    var stored: StoredConfigVersion
    var config: Config

    var version: StrictHistory.Version {
        StrictHistory.Version(config: config, applyAt: stored.applyAt,
                              cancelled: stored.cancelled)
    }
}

/// What adopting a file did.
enum ConfigAdoption: Equatable {
    /// The same text as the newest version: nothing to do.
    case unchanged
    /// In force at once (strict mode off, or the change only tightens).
    case applied
    /// Tightenings in force; these loosenings wait until `applyAt`.
    case pending(applyAt: WallInstant, changes: [String])
}

extension Daemon {
    /// The stored versions, parsed; a row that no longer parses is dropped
    /// from the computation and said once (it came from another blocker).
    static func loadVersions(_ ledger: Ledger, log: LogSink) throws(StoreError) -> [LoadedConfigVersion] {
        var loaded: [LoadedConfigVersion] = []
        for stored in try ledger.configVersions() {
            do {
                loaded.append(LoadedConfigVersion(stored: stored, config: try Config.parse(text: stored.text, file: "blocker.toml (version \(stored.id) in the ledger)")))
            } catch {
                log.write(LogEvent(priority: .warning, "Ignoring a stored config version: \(error)"))
            }
        }
        return loaded
    }

    /// The config in force from the stored versions, nil when there are none.
    static func inForce(_ versions: [LoadedConfigVersion], now: WallInstant) -> Config? {
        StrictHistory.inForce(versions.map(\.version), now: now)
    }

    /// Compares the file's `fresh` config with the one in force (`running`)
    /// and stores the version: what tightens (or everything, outside strict
    /// mode) is in force at once, what loosens waits `[strict] delay`.
    /// Returns the config now in force.
    static func adopt(text: String, fresh: Config, running: Config?, versions: inout [LoadedConfigVersion],
                      ledger: Ledger, wall: WallInstant) throws(StoreError) -> (Config, ConfigAdoption) {
        if let last = versions.last, last.stored.text == text, let running { return (running, .unchanged) }
        guard let running, let delay = running.strict.delay else {
            try store(text: text, fresh: fresh, applyAt: wall, changes: [], prune: true, versions: &versions, ledger: ledger, wall: wall)
            return (fresh, .applied)
        }
        let comparison = StrictRules.compare(running: running, wanted: fresh)
        guard !comparison.loosening.isEmpty else {
            try store(text: text, fresh: fresh, applyAt: wall, changes: [], prune: true, versions: &versions, ledger: ledger, wall: wall)
            return (fresh, .applied)
        }
        let changes = comparison.loosening.map(\.description)
        try store(text: text, fresh: fresh, applyAt: wall + delay, changes: changes, prune: false,
                  versions: &versions, ledger: ledger, wall: wall)
        return (comparison.tightened, .pending(applyAt: wall + delay, changes: changes))
    }

    private static func store(text: String, fresh: Config, applyAt: WallInstant, changes: [String], prune: Bool,
                              versions: inout [LoadedConfigVersion], ledger: Ledger, wall: WallInstant) throws(StoreError) {
        let id = try ledger.addConfigVersion(text: text, receivedAt: wall, applyAt: applyAt, changes: changes, pruneOlder: prune)
        let stored = StoredConfigVersion(id: id, text: text, receivedAt: wall, applyAt: applyAt, changes: changes, cancelled: false)
        if prune { versions = [] }
        versions.append(LoadedConfigVersion(stored: stored, config: fresh))
    }

    /// The changes still waiting at `now`, soonest first.
    func pendingChanges(now: WallInstant = WallClock.now) -> [PendingChange] {
        let base = StrictHistory.baseIndex(configVersions.map(\.version), now: now)
        return configVersions.dropFirst(base + 1)
            .filter { !$0.stored.cancelled && $0.stored.applyAt > now }
            .map { PendingChange(applyAt: $0.stored.applyAt, receivedAt: $0.stored.receivedAt, changes: $0.stored.changes) }
            .sorted { $0.applyAt < $1.applyAt }
    }

    /// When the next waiting change applies.
    public var nextConfigApply: WallInstant? {
        guard configVersions.count > 1 else { return nil }   // nothing waits
        return StrictHistory.nextApply(configVersions.map(\.version), now: WallClock.now)
    }
}

extension Daemon {
    /// In strict mode `unblock` is refused: ending a block early is the
    /// loosening strict mode exists to slow down. nil: allowed.
    public func strictRefusal(unblock target: String) -> String? {
        guard let delay = config.strict.delay else { return nil }
        return "strict mode ([strict] delay = \(DurationText.format(delay))) refuses unblock: a timed block runs to its end; "
            + "to leave strict mode, remove [strict] from blocker.toml and wait out the delay"
    }

    /// In strict mode a block shorter than the one running on `target` is
    /// refused (it could not shorten it anyway: the later end always wins).
    public func strictRefusal(block target: String, until: WallInstant, wall: WallInstant = WallClock.now) -> String? {
        guard config.strict.delay != nil,
              let running = ledger.timedBlocks(activeAt: wall).first(where: { $0.target == target.lowercased() }),
              running.until > until else { return nil }
        return "strict mode refuses a shorter block: \(target.lowercased()) is blocked until "
            + "\(ShieldText.clock(running.until, now: wall, zone: meter.zone)) (\(DurationText.format(running.until - wall)) from now), "
            + "and a block only ever runs to its end"
    }
}

/// Strict mode started with a blocker.toml that does not load: blockerd runs
/// on the version in force from the ledger until a reload reads the file again.
struct ConfigUnreadable {
    /// The loader's message (`file:line:column: …`).
    var error: String
    var since: WallInstant
    /// Its note in the ledger (nil until stored, or when the ledger refused it).
    var noteID: Int64?
}

extension Daemon {
    /// What `status` and the journal say while the file does not load.
    public var configProblem: String? {
        configUnreadable.map {
            "\(configFile.path) does not load (\($0.error)); strict mode keeps the version in force "
                + "from the ledger until it loads (fix it, then blockerctl reload)"
        }
    }

    /// At start: says that the file did not load and what runs instead.
    func noteConfigUnreadable(wall: WallInstant) {
        guard let problem = configProblem, let since = configUnreadable?.since else { return }
        configUnreadable?.noteID = record(IntegrityNote(kind: .configUnreadable, from: since, to: wall, text: problem),
                                          message: "Strict mode: \(problem)", fields: [("CONFIG", configFile.path)])
    }

    /// While the file does not load, its note lasts until now (each minute, and at stop).
    func extendConfigUnreadable(wall: WallInstant) {
        guard let unreadable = configUnreadable, let problem = configProblem else { return }
        extend(unreadable.noteID, to: wall, text: problem)
    }

    /// A reload read the file: the note ends now.
    func endConfigUnreadable(wall: WallInstant) {
        guard let unreadable = configUnreadable else { return }
        configUnreadable = nil
        let text = "\(configFile.path) did not load (\(unreadable.error)); strict mode kept the version in force from the ledger"
        extend(unreadable.noteID, to: wall, text: text)
        log.write(LogEvent(priority: .info, "\(configFile.path) loads again after \(DurationText.format(wall - unreadable.since))"))
    }
}
