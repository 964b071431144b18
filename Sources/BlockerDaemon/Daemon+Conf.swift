import Glibc
import BlockerSystem
import BlockerConfig
import BlockerCore
import BlockerProbes
import BlockerStore

/// The config side of the daemon: what is in force, reloads, the time zone,
/// strict mode's waiting changes and the probe the settings choose.
extension Daemon {
    /// What the meter runs: the config, or on the system's default file only
    /// what observes (`SystemDefaultConfig`).
    static func metering(_ config: Config, systemDefault: Bool) -> Config {
        systemDefault ? SystemDefaultConfig.observing(config) : config
    }

    /// Says that blocker meters nothing on the system's default config, and how to start.
    func logObservingOnly() {
        guard configFile.systemDefault else { return }
        let userFile = BlockerPaths.userConfigFile(environment: environment)
        log.write(LogEvent(priority: .notice, "No config of your own (\(userFile)): running on the system's default "
                           + "\(configFile.path), which meters nothing (blocker observes and records only); "
                           + SystemDefaultConfig.howToStart(systemFile: configFile.path, userFile: userFile)))
    }

    /// Puts `fresh` in force: the meter, the warnings and (when [daemon] changed) the probe.
    func install(_ fresh: Config) {
        let previous = config
        let zoneChanged = fresh.daemon.timeZone != previous.daemon.timeZone
        var probeSettings = fresh.daemon
        probeSettings.timeZone = previous.daemon.timeZone   // the zone is no reason to open the probe again
        config = fresh
        cachedOpenBook = nil   // a new zone moves the day and the week
        if zoneChanged { rereadTimeZone() }
        meter.reconfigure(Self.metering(fresh, systemDefault: configFile.systemDefault))
        notificationPlan = NotificationPlan(thresholds: fresh.warnBefore)
        if probeSettings != previous.daemon { reopenProbe(fresh, previous: previous) }
        // A folder that could not be used is tried again at each reload (made since, or shared since).
        if fresh.sync != previous.sync || (fresh.sync != nil && sync == nil) { openSync(wall: WallClock.now) }
    }

    /// A new probe for changed [daemon] settings. The old one is closed first:
    /// the gnome and kde probes own io.github.blockerd.Focus, which a second
    /// probe cannot take while the first holds it (it would stay blind, or
    /// `auto` would fall back to X11, until a restart). If none can run with
    /// the new settings, one as before is opened again: blockerd keeps seeing.
    func reopenProbe(_ fresh: Config, previous: Config) {
        probe.shutdown()
        overlayFilter = OverlayFilter()
        let selected = Self.selectProbe(config: fresh, override: options.probe, environment: environment,
                                        launcher: launcher, log: log)
        guard let unavailable = selected.probe as? UnavailableProbe else { return (probe, session) = selected }
        let restored = Self.selectProbe(config: previous, override: options.probe, environment: environment,
                                        launcher: launcher, log: log)
        guard !(restored.probe is UnavailableProbe) else { return (probe, session) = selected }
        log.write(LogEvent(priority: .warning, "Keeping the \(restored.probe.name) probe as before the reload: the new "
                           + "[daemon] settings' probe cannot run: \(unavailable.reason)"))
        (probe, session) = restored
    }

    func logAdoption(_ adoption: ConfigAdoption) {
        guard case let .pending(applyAt, changes) = adoption else { return }
        let when = ShieldText.clock(applyAt, now: WallClock.now, zone: meter.zone)
        log.write(LogEvent(.configPending, "Strict mode: \(changes.count) loosening \(changes.count == 1 ? "change waits" : "changes wait") "
                           + "until \(when) (\(applyAt) Unix ms): \(changes.joined(separator: "; ")); what tightens applies now",
                           fields: [("APPLY_MS", "\(applyAt)"), ("CHANGES", changes.joined(separator: "\n"))]))
    }

    /// Puts in force every waiting change whose instant has come (each tick).
    func applyDueConfigVersions(wall: WallInstant) {
        // One version (no strict change waiting), as almost always: nothing
        // to copy every tick.
        guard configVersions.count > 1 else { return }
        let base = StrictHistory.baseIndex(configVersions.map(\.version), now: wall)
        guard base > 0 else { return }
        let applied = configVersions[1...base].filter { !$0.stored.cancelled }
        do { try ledger.pruneConfigVersions(before: configVersions[base].stored.id) } catch {
            noteStorage(error)   // in memory it applies anyway; the prune is retried at the next one
        }
        configVersions.removeFirst(base)
        if let fresh = Self.inForce(configVersions, now: wall) { install(fresh) }
        let changes = applied.flatMap(\.stored.changes)
        log.write(LogEvent(.configApplied, "Strict mode: the delay passed; now in force: \(changes.joined(separator: "; "))",
                           fields: [("CHANGES", changes.joined(separator: "\n"))]))
    }

    /// `blockerctl config cancel`: the waiting loosenings never apply (the
    /// tightenings stay). Returns how many versions were cancelled.
    public func cancelPendingConfig(wall: WallInstant = WallClock.now) throws(StoreError) -> Int {
        let count = try ledger.cancelPendingConfigVersions(now: wall)
        for index in configVersions.indices where configVersions[index].stored.applyAt > wall {
            configVersions[index].stored.cancelled = true
        }
        if count > 0 {
            log.write(LogEvent(.configCancelled, "Strict mode: \(count) pending config \(count == 1 ? "change" : "changes") cancelled; "
                               + "the config in force stays"))
        }
        publish(wall: wall)
        return count
    }

    /// The probe the settings choose, and the session lock beside it (display probes).
    static func selectProbe(config: Config, override: ProbeChoice?, environment: [String: String],
                                    launcher: ProbeLauncher?,
                                    log: LogSink) -> (probe: ForegroundProbe, session: SessionLock?) {
        let selection = ProbeSelection.select(override ?? config.daemon.probe, settings: config.daemon,
                                              environment: environment, launcher: launcher)
        for reason in selection.passedOver { log.write(LogEvent(priority: .info, "probe \(reason)")) }
        return (selection.display, selection.session)
    }

    // MARK: commands

    /// Re-reads the config and the time zone. A bad config is logged and the
    /// old one stays in force; so does the old zone when the new one cannot be read.
    @discardableResult
    public func reload(monotonic: MonotonicInstant = MonotonicClock.now, wall: WallInstant = WallClock.now) -> Result<Void, ConfigError> {
        rereadTimeZone()
        let source = options.configSource(environment: environment)
        do throws(ConfigError) {
            let file = try Config.loadWithText(path: source.path)
            var versions = configVersions
            let (fresh, adoption): (Config, ConfigAdoption)
            do throws(StoreError) {
                (fresh, adoption) = try Self.adopt(text: file.text, fresh: file.config, running: config,
                                                   versions: &versions, ledger: ledger, wall: wall)
            } catch {
                throw ConfigError(file: source.path, message: "cannot record the new config in the ledger: \(error)")
            }
            configVersions = versions
            let wasSystemDefault = configFile.systemDefault
            configFile = source
            install(fresh)
            if source.systemDefault != wasSystemDefault {
                if source.systemDefault { logObservingOnly() } else {
                    log.write(LogEvent(priority: .notice, "Metering from your own config \(source.path)"))
                }
            }
            logAdoption(adoption)
            endConfigUnreadable(wall: wall)
            publish(wall: wall)
            if let folded = reloadLines.admit(at: monotonic) {
                let more = folded > 0 ? " (and \(folded) more reloads in the \(reloadLines.interval.seconds) s before)" : ""
                log.write(LogEvent(.reload, "Configuration reloaded from \(source.path)\(more)"))
            }
            return .success(())
        } catch {
            log.write(LogEvent(.configError, "Keeping the previous configuration: \(error)"))
            return .failure(error)
        }
    }

    /// The zone schedules and days are counted in, read again (the user may
    /// have moved: `timedatectl set-timezone`, then `blockerctl reload`).
    func rereadTimeZone() {
        do {
            let fresh = try TimeZoneRules.chosen(config.daemon.timeZone, environment: environment)
            if fresh.identifier != meter.zone.identifier {
                log.write(LogEvent(priority: .info, "Time zone now \(fresh.identifier) (was \(meter.zone.identifier))"))
            }
            meter.zone = fresh
        } catch {
            log.write(LogEvent(priority: .warning,
                               "Keeping the time zone \(meter.zone.identifier): cannot read the new one: \(error)"))
        }
    }
}
