import BlockerCore
import BlockerStore

/// Notes of what may have been a way around blockerd (IntegrityNote): said
/// in the journal as they happen, kept in the ledger for history and doctor.
extension Daemon {
    /// Says `note` in the journal (`BLOCKER_EVENT=` its kind, with `FROM_MS`,
    /// `TO_MS` and `fields`) and stores it; returns its id in the ledger, nil
    /// when the ledger refused it (said as a storage error; the journal has it).
    @discardableResult
    func record(_ note: IntegrityNote, message: String, fields: [(String, String)] = []) -> Int64? {
        log.write(LogEvent(EventKind(note.kind), message, fields: [("FROM_MS", "\(note.from)"), ("TO_MS", "\(note.to)")] + fields))
        do { return try ledger.addNote(note) } catch {
            noteStorage(error)
            return nil
        }
    }

    /// Stores `note` for history and doctor when the journal has said it already.
    func keep(_ note: IntegrityNote) {
        do { _ = try ledger.addNote(note) } catch { noteStorage(error) }
    }

    /// Moves the end of a stored note (a stretch that goes on), quietly.
    func extend(_ id: Int64?, to: WallInstant, text: String) {
        guard let id else { return }
        do { try ledger.extendNote(id, to: to, text: text) } catch { noteStorage(error) }
    }

    /// The notes overlapping `since…now`, oldest first.
    public func notes(since: WallInstant) throws(StoreError) -> [IntegrityNote] {
        try ledger.notes(since: since)
    }
}

extension EventKind {
    /// The journal's event for a note of `kind` (the same name).
    init(_ kind: IntegrityNote.Kind) {
        switch kind {
        case .lockNotHonoured: self = .lockNotHonoured
        case .stall: self = .stall
        case .environment: self = .environment
        case .configUnreadable: self = .configUnreadable
        case .uncovered: self = .coverBack
        case .coverRefused: self = .coverRefused
        case .ledgerEdited: self = .ledgerEdited
        }
    }
}

/// Stalls close together (a `kill -STOP`/`-CONT` loop) make one note.
struct StallRun {
    var noteID: Int64?
    var from: WallInstant
    var to: WallInstant
    var count = 0
    var chargedMs: Milliseconds = 0
    var unchargedMs: Milliseconds = 0
    var apps: [String] = []

    var text: String {
        let times = count == 1 ? "once" : "\(count) times"
        var parts: [String] = []
        if chargedMs > 0 { parts.append("\(DurationText.format(chargedMs)) past the cap, charged (the same app in front before and after)") }
        if unchargedMs > 0 { parts.append("\(DurationText.format(unchargedMs)) past the cap, not charged (another window in front after it)") }
        return "blockerd did not run (SIGSTOP or a stall) \(times) with \(apps.joined(separator: ", ")) in front: "
            + parts.joined(separator: "; ")
    }
}

extension Daemon {
    /// A stall shorter than this is charged (or not) without a note: a busy machine.
    static let stallNoteAfterMs: Milliseconds = 2_000
    /// A stall within this long of the last one's end joins its note.
    static let stallJoinWithinMs: Milliseconds = .minutes(1)

    /// Records a stall the meter measured (it charged it already, or not).
    func noteStall(_ stall: Stall, wall: WallInstant) {
        guard stall.ms >= Self.stallNoteAfterMs else { return }
        let from = wall - stall.ms
        var run: StallRun
        if let last = stallRun, from - last.to <= Self.stallJoinWithinMs {
            run = last
            run.to = wall
        } else {
            run = StallRun(from: from, to: wall)
        }
        run.count += 1
        if stall.charged { run.chargedMs += stall.ms } else { run.unchargedMs += stall.ms }
        if !run.apps.contains(stall.app) { run.apps.append(stall.app) }
        let message = "Stalled \(DurationText.format(stall.ms)) with \(stall.app) in front: "
            + (stall.charged ? "charged" : "not charged, another window was in front after it")
        let fields = [("STALL_MS", "\(stall.ms)"), ("CHARGED", stall.charged ? "1" : "0"), ("APP", stall.app)]
        if run.noteID == nil {
            run.noteID = record(IntegrityNote(kind: .stall, from: run.from, to: run.to, text: run.text),
                                message: message, fields: fields)
        } else {
            extend(run.noteID, to: run.to, text: run.text)
            if let folded = stallLines.admit(at: wall) {
                let more = folded > 0 ? " (and \(folded) more stalls in the minute before)" : ""
                log.write(LogEvent(.stall, message + more, fields: [("FROM_MS", "\(from)"), ("TO_MS", "\(wall)")] + fields))
            }
        }
        stallRun = run
    }
}

extension Daemon {
    /// At start: keeps this run's environment, and records what changed since
    /// the last run's (a new "today", another ledger, a blind probe, a shim).
    func noteEnvironment(wall: WallInstant) {
        guard let runID else { return }
        let now = RunEnvironment(stateDirectory: options.stateDirectory, configPath: configFile.path,
                                 zone: meter.zone.identifier, probe: probe.name, environment: environment)
        let previous: String?
        do { previous = try ledger.swapEnvironment(run: runID, text: now.text) } catch {
            noteStorage(error)
            return
        }
        guard let previous else { return }
        let changes = now.changes(since: RunEnvironment(text: previous))
        guard !changes.isEmpty else { return }
        let text = "started with another environment than the last run: " + changes.joined(separator: "; ")
        record(IntegrityNote(kind: .environment, from: wall, to: wall, text: text),
               message: "blockerd " + text, fields: [("CHANGES", changes.joined(separator: "\n"))])
    }
}

extension Daemon {
    /// `reading` with a lock nothing vouches for honoured or not
    /// (`LockClaimCheck`); a lock not honoured is said and recorded.
    func judgeLock(_ reading: Reading, monotonic: MonotonicInstant, wall: WallInstant) -> Reading {
        let (judged, event) = lockCheck.judge(reading, monotonic: monotonic, wall: wall)
        switch event {
        case let .notHonoured(source, reason, since)?:
            let text = "\(source) said the screen is locked, but \(reason): not honoured, charged from "
                + ShieldText.clock(wall, now: wall, zone: meter.zone)
            lockNote = (record(IntegrityNote(kind: .lockNotHonoured, from: since, to: wall, text: text),
                               message: "Lock not honoured: " + text, fields: [("SOURCE", source), ("REASON", reason)]),
                        text)
        case .ended?:
            if let lockNote { extend(lockNote.id, to: wall, text: lockNote.text) }
            lockNote = nil
        case nil:
            break
        }
        return judged
    }
}
