import BlockerCore
import BlockerProbes
import BlockerStore
import BlockerSystem
import Glibc

/// What ended a run, in words, from what systemd hands `ExecStopPost=`:
/// `$SERVICE_RESULT`, `$EXIT_CODE` and `$EXIT_STATUS` (systemd.exec(5)).
public enum StopCause {
    /// nil: nothing to add (a clean stop blockerd recorded itself). `override`:
    /// the reason replaces what blockerd wrote (it could not know it was killed).
    public static func reason(serviceResult: String?, exitCode: String?, exitStatus: String?) -> (reason: String, override: Bool)? {
        let status = exitStatus ?? "?"
        switch serviceResult ?? "" {
        case "success": return nil
        case "exit-code": return ("exited with status \(status)", false)
        case "signal": return (status == "KILL" ? "killed with SIGKILL" : "killed by SIG\(status)", true)
        case "core-dump": return ("crashed (SIG\(status), core dumped)", true)
        case "watchdog": return ("watchdog: it stopped answering and systemd killed it", true)
        case "timeout": return ("timed out (systemd gave up waiting for it)", true)
        case "": return nil
        case let other: return ("ended: \(other) (\(exitCode ?? "?") \(status))", true)
        }
    }
}

extension StopCause {
    /// `blockerd --record-stop`: writes what systemd says ended the newest
    /// run into the ledger; nil when done (or nothing to say), else why not.
    public static func record(stateDirectory: String, environment: [String: String]) -> String? {
        guard let cause = reason(serviceResult: environment["SERVICE_RESULT"], exitCode: environment["EXIT_CODE"],
                                 exitStatus: environment["EXIT_STATUS"]) else { return nil }
        do {
            let ledger = try Ledger.open(stateDirectory: stateDirectory)
            defer { ledger.close() }
            try ledger.recordStop(reason: cause.reason, override: cause.override)
            return nil
        } catch {
            return "cannot record why blockerd stopped (\(cause.reason)): \(error)"
        }
    }
}

extension Daemon {
    /// How often a run notes that it is alive: the most a kill -9 gap is off by.
    static let runTouchEveryMs: Milliseconds = .minutes(1)

    /// The journal line for the gap before this start (nil: none worth a line).
    /// `unguardedSince`: see `Unguarded` (nil: logind did not say).
    static func gapEvent(previous: RunRecord?, now: WallInstant, zone: TimeZoneRules, unguardedSince: WallInstant? = nil) -> LogEvent? {
        guard let previous else { return nil }
        let from = previous.lastSign
        guard now > from else { return nil }
        let reason = previous.endReason ?? Gap.unknown
        var message = "blockerd was off \(DurationText.format(now - from)) (since \(ShieldText.clock(from, now: now, zone: zone))): \(reason)"
        var fields = [("GAP_MS", "\(now - from)"), ("FROM_MS", "\(from)"), ("REASON", reason)]
        if let unguarded = Gap(from: from, to: now, reason: reason, unguardedSince: unguardedSince).unguarded {
            message += unguarded > 0 ? "; \(DurationText.format(unguarded)) of it in the graphical session"
                                     : "; none of it in a graphical session logind still has"
            fields.append(("UNGUARDED_MS", "\(unguarded)"))
        }
        return LogEvent(.gap, message, fields: fields)
    }

    /// Asks logind which graphical sessions were there during the gap before
    /// this run and notes it with the run; nil (and one info line) when
    /// logind cannot say. Never fails the start.
    func noteUnguarded(previous: RunRecord?, now: WallInstant, sessionStarts: SessionStarts) -> WallInstant? {
        guard let previous, let runID, now > previous.lastSign else { return nil }
        switch sessionStarts(getuid(), environment) {
        case let .failure(why):
            log.write(LogEvent(priority: .info, "No unguarded time for the gap before this start: \(why)"))
            return nil
        case let .success(starts):
            let since = Unguarded.since(gapFrom: previous.lastSign, gapTo: now, sessionStarts: starts)
            do throws(StoreError) { try ledger.noteUnguarded(runID, since: since) } catch { noteStorage(error) }
            return since
        }
    }

    /// The wall instant the run is next due to be noted alive: the loop ticks
    /// then even with nothing else to do (an event-driven probe, no watchdog).
    var nextRunTouch: WallInstant? { runID.map { _ in lastRunTouch + Self.runTouchEveryMs } }

    /// Notes the run alive, at most once a `runTouchEveryMs`.
    func touchRun(wall: WallInstant) {
        guard let runID, wall.isDue(every: Self.runTouchEveryMs - coalescing, since: lastRunTouch) else { return }
        lastRunTouch = wall
        do { try ledger.touchRun(runID, now: wall) } catch { noteStorage(error) }
        extendConfigUnreadable(wall: wall)
        if let lockNote { extend(lockNote.id, to: wall, text: lockNote.text) }
    }

    /// The gaps overlapping `since…now`, with the stretches blockerd ran
    /// blind (`Gap.blind`), oldest first.
    public func gaps(since: WallInstant, now: WallInstant = WallClock.now) throws(StoreError) -> [Gap] {
        let off = Gap.between(try ledger.runs(since: since))
        let blind = try ledger.blindStretches(since: since, now: now)
        return (off + blind).filter { $0.to > since }.sorted { $0.from < $1.from }
    }
}
