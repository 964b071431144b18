import BlockerCore
import BlockerStore
import BlockerSystemd
import Glibc

/// Where blockerd keeps its ledger anchors (`LedgerAnchor`): the journal in
/// blockerd, memory in tests.
public protocol LedgerAnchorStore: AnyObject {
    func write(_ anchor: LedgerAnchor, ledgerPath: String)
    /// The newest anchor for the ledger at `ledgerPath`; nil: none found;
    /// `.failure`: the store cannot be read, and why.
    func newest(ledgerPath: String) -> Result<LedgerAnchor?, SystemdError>
}

/// The journal: journald owns its files (root, read-only for the user), so a
/// user can neither rewrite nor delete an entry blockerd sent, only send new
/// ones, which carry their own `_UID`, `_PID` and `_EXE`.
public final class JournalAnchorStore: LedgerAnchorStore {
    public init() {}

    public func write(_ anchor: LedgerAnchor, ledgerPath: String) {
        // Nowhere better to say it: the next start finds an older anchor, which only weakens its check.
        try? Journal.send(LogEvent(anchor: anchor, ledgerPath: ledgerPath).journalFields)
    }

    public func newest(ledgerPath: String) -> Result<LedgerAnchor?, SystemdError> {
        do throws(SystemdError) {
            let fields = try Journal.newest(matching: ["MESSAGE_ID=\(EventKind.ledgerAnchor.messageID)",
                                                       "_UID=\(getuid())", "BLOCKER_LEDGER=\(ledgerPath)"])
            return .success(fields.flatMap(LedgerAnchor.init(journalFields:)))
        } catch {
            return .failure(error)
        }
    }
}

/// Anchors kept in memory (tests; a machine without journald).
public final class MemoryAnchorStore: LedgerAnchorStore {
    public private(set) var anchors: [(path: String, anchor: LedgerAnchor)] = []
    public init() {}
    public func write(_ anchor: LedgerAnchor, ledgerPath: String) { anchors.append((ledgerPath, anchor)) }
    public func newest(ledgerPath: String) -> Result<LedgerAnchor?, SystemdError> {
        .success(anchors.last { $0.path == ledgerPath }?.anchor)
    }
}

extension LogEvent {
    /// The `ledger-anchor` entry: every field of the anchor (BLOCKER_RUN…).
    init(anchor: LedgerAnchor, ledgerPath: String) {
        var fields = [("LEDGER", ledgerPath), ("RUN", "\(anchor.runID)"), ("SEAL", anchor.seal),
                      ("SEAL_FORMAT", "\(anchor.sealFormat)"), ("EARNINGS", "\(anchor.earnings)"), ("CHAIN", anchor.chain),
                      ("EARNED_TOTAL_MS", "\(anchor.earnedTotalMs.ms)"), ("SPENT_TOTAL_MS", "\(anchor.spentTotalMs.ms)"),
                      ("FINAL", anchor.final ? "1" : "0"), ("AT_MS", "\(anchor.at.ms)"), ("DAY", anchor.day),
                      ("EARNED_DAY_MS", "\(anchor.earnedOnDayMs.ms)"), ("OPENS", "\(anchor.opens)"),
                      ("PASSES", "\(anchor.passes)")]
        if let broken = anchor.brokenEarning { fields.append(("BROKEN_EARNING", "\(broken)")) }
        if let last = anchor.lastEarningAt { fields.append(("LAST_EARNING_MS", "\(last.ms)")) }
        self.init(.ledgerAnchor, "Ledger anchored\(anchor.final ? " at the stop" : ""): run #\(anchor.runID), "
                  + "\(anchor.earnings) earnings, seal \(anchor.seal)", fields: fields)
    }
}

extension LedgerAnchor {
    /// Read back from a journal entry's fields; nil when one is missing.
    init?(journalFields fields: [String: String]) {
        func number(_ key: String) -> Int64? { fields["BLOCKER_" + key].flatMap { Int64($0) } }
        guard let run = number("RUN"), let seal = fields["BLOCKER_SEAL"], let format = number("SEAL_FORMAT"),
              let earnings = number("EARNINGS"), let chain = fields["BLOCKER_CHAIN"], let earned = number("EARNED_TOTAL_MS"),
              let spent = number("SPENT_TOTAL_MS"), let at = number("AT_MS") else { return nil }
        self.init(runID: run, seal: seal, sealFormat: format, earnings: earnings, chain: chain, earnedTotalMs: Milliseconds(ms: earned),
                  spentTotalMs: Milliseconds(ms: spent), brokenEarning: number("BROKEN_EARNING"),
                  final: fields["BLOCKER_FINAL"] == "1", at: WallInstant(ms: at))
        day = fields["BLOCKER_DAY"] ?? ""
        earnedOnDayMs = Milliseconds(ms: number("EARNED_DAY_MS") ?? 0)
        lastEarningAt = number("LAST_EARNING_MS").map(WallInstant.init(ms:))
        // Absent from anchors written before opens and passes were kept: 0 checks nothing.
        opens = number("OPENS") ?? 0
        passes = number("PASSES") ?? 0
    }
}

extension Daemon {
    /// While anything was committed, an anchor at most this often (and at
    /// start, each earning, an edit found and the stop).
    static let anchorEveryMs: Milliseconds = .minutes(5)

    /// At start, before anything writes: the file against the last anchor and
    /// its earnings chain. Returns what departs (said and noted by
    /// `recordStartFindings` once the daemon is whole) and the anchor.
    static func checkLedgerAtStart(_ ledger: Ledger, anchors: LedgerAnchorStore?, wall: WallInstant,
                                   log: LogSink) -> (found: [String], anchor: LedgerAnchor?, broken: Int64?) {
        var anchor: LedgerAnchor?
        let broken: Int64?
        var found: [String] = []
        do {
            broken = try ledger.firstBrokenEarning()
            if let anchors {
                anchor = try newestAnchor(ledger, anchors: anchors, log: log)
                if let anchor {
                    let file = try ledger.anchor(sealFormat: anchor.sealFormat, brokenEarning: broken, final: false, at: wall)
                    found = anchor.departures(of: file, chainAtAnchoredCount: try ledger.chain(atEarning: anchor.earnings))
                }
            }
            if anchor == nil, let broken {
                found.append("earning #\(broken) does not follow from the one before it (changed, inserted, or one before it removed)")
            }
        } catch {
            log.write(LogEvent(.storageError, "Cannot check the ledger against its anchor: \(error)"))
            return ([], nil, nil)
        }
        return (found, anchor, broken)
    }

    /// The newest anchor; when it is older than the file's newest run, the
    /// stop's anchor may still be on its way into the journal (a restart):
    /// asked again for up to half a second.
    private static func newestAnchor(_ ledger: Ledger, anchors: LedgerAnchorStore, log: LogSink) throws(StoreError) -> LedgerAnchor? {
        let fileRun = try ledger.anchor(brokenEarning: nil, final: false, at: WallInstant(ms: 0)).runID
        for attempt in 0..<6 {
            switch anchors.newest(ledgerPath: ledger.path) {
            case let .failure(error):
                log.write(LogEvent(priority: .warning, "Cannot read the ledger's anchors from the journal (\(error)): "
                                   + "a restored or rewritten ledger cannot be told at this start"))
                return nil
            case let .success(anchor?) where anchor.runID >= fileRun || attempt == 5:
                return anchor
            case .success(nil) where attempt == 5:
                log.write(LogEvent(priority: fileRun > 0 ? .notice : .info, "No anchor of the ledger \(ledger.path) in the journal "
                                   + "(its first start with anchors, or the journal no longer has them): a restored or "
                                   + "rewritten ledger cannot be told at this start"))
                return nil
            case .success:
                usleep(100_000)
            }
        }
        return nil
    }

    /// Says and notes what the start check found (the daemon is whole now).
    func recordStartFindings(_ found: [String], anchor: LedgerAnchor?, wall: WallInstant) {
        let today = meter.zone.localDate(at: wall)
        if let anchor, anchor.day == today.description {
            earnedFloor = (today, EarnLimits.History(earnedToday: anchor.earnedOnDayMs,
                                                          lastEarningAt: anchor.lastEarningAt))
        }
        guard !found.isEmpty else { return }
        // The seal check of the start's first write may have noted this edit already.
        if ledger.editsFound == 0 {
            do throws(StoreError) { try ledger.noteEdit(since: anchor?.at ?? wall) } catch { noteStorage(error) }
        }
        noteLedgerEdits(found)
    }

    /// Every `ledgerCheckEveryMs` of ticks and before an earning: when
    /// another connection committed (a hand edit while blockerd runs), the
    /// seal and the earnings chain now.
    func checkLedgerIfChanged(wall: WallInstant) {
        guard ledger.changedOutside() else { return }
        // After the checks below: their own write comes upon the edit too.
        defer { ledger.outsideChangeChecked() }
        let since = ledger.lastWrite ?? wall
        do throws(StoreError) {
            let sealed = try ledger.checkSeal()
            let broken = try ledger.firstBrokenEarning()
            var found: [String] = []
            if let broken, broken != knownBrokenEarning {
                found.append("earning #\(broken) does not follow from the one before it (changed, inserted, or one before it removed)")
                if !sealed { try ledger.noteEdit(since: since) }
            }
            knownBrokenEarning = broken
            if sealed || !found.isEmpty {
                noteLedgerEdits(found)
                anchorLedger(wall: wall)
            }
        } catch {
            noteStorage(error)
        }
    }

    /// Sends an anchor of the ledger as it is now.
    func anchorLedger(final: Bool = false, wall: WallInstant) {
        guard let anchors else { return }
        do throws(StoreError) {
            var anchor = try ledger.anchor(brokenEarning: knownBrokenEarning, final: final, at: wall)
            let today = meter.zone.localDate(at: wall)
            let earned = try earningHistory(day: today)
            (anchor.day, anchor.earnedOnDayMs, anchor.lastEarningAt) = (today.description, earned.earnedToday, earned.lastEarningAt)
            anchors.write(anchor, ledgerPath: ledger.path)
            lastAnchor = (wall, ledger.commits)
        } catch {
            log.write(LogEvent(.storageError, "Cannot anchor the ledger: \(error)"))
        }
    }

    /// After a tick: an anchor when anything was committed since the last
    /// one and `anchorEveryMs` has passed.
    func anchorIfDue(wall: WallInstant) {
        guard ledger.commits != lastAnchor.commits, wall.isDue(every: Self.anchorEveryMs, since: lastAnchor.at) else { return }
        anchorLedger(wall: wall)
    }

    /// What `[earn]` limits are checked against: the file's earnings, but
    /// never less than blockerd itself knows was earned today (an earning
    /// moved to another day by hand still counts on its own).
    func earningHistory(day: CivilDate) throws(StoreError) -> EarnLimits.History {
        let file = try ledger.earningHistory(day: day)
        guard let floor = earnedFloor, floor.day == day else { return file }
        return EarnLimits.History(earnedToday: max(file.earnedToday, floor.history.earnedToday),
                                  lastEarningAt: [file.lastEarningAt, floor.history.lastEarningAt].compactMap { $0 }.max())
    }

    /// After an earning of `ms` at `wall` on `day`, on top of `before` (`earningHistory`).
    func noteEarned(_ ms: Milliseconds, day: CivilDate, before: EarnLimits.History, wall: WallInstant) {
        earnedFloor = (day, EarnLimits.History(earnedToday: before.earnedToday + ms, lastEarningAt: wall))
    }
}
