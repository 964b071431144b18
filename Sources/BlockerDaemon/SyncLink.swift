import BlockerCore
import BlockerStore
import BlockerSync
import BlockerSystem

/// blockerd's side of `[sync]`: this device's log in the folder, kept equal
/// to what its ledger says it did, and the other devices' logs, merged. The
/// ledger stays this device's truth (and the home of its strict mode and
/// seal); the log is its replica for the others. Spending goes out a record
/// a minute while charging; earnings, blocks and passes at once.
final class SyncLink {
    let folder: String
    let device: DeviceID
    private let writer: SyncLogWriter
    let reader: SyncFolderReader
    /// Records waiting for a write that failed (a full disk): written, in
    /// order, before the next one.
    private var queued: [(event: SyncRecord.Event, day: CivilDate, at: WallInstant)] = []
    /// Spending since the last spend record: its day, the debit and each group's use.
    private var unsaid: (day: CivilDate, debit: Milliseconds, usage: [String: Milliseconds])?
    private var lastSpendAt: WallInstant?
    /// Why the last write failed; nil once one succeeds.
    private(set) var writeError: String?

    /// How often spending goes out while charging: the others' view of this
    /// device's spending lags by at most this (plus the sync engine's copy).
    static let spendEvery: Milliseconds = .minutes(1)
    /// Near zero the others must hear sooner, or two machines spending at
    /// once each spend the last minutes in full: under `lowBalance` shared,
    /// spending goes out every `spendEveryNearZero`.
    static let lowBalance: Milliseconds = .minutes(2)
    static let spendEveryNearZero: Milliseconds = .seconds(5)

    /// Opens the folder's logs and writes what the ledger has that this
    /// device's log lacks (a first start, a kill -9 between the two).
    init(settings: SyncSettings, home: String, stateDirectory: String, ledger: Ledger, wall: WallInstant,
         today: CivilDate) throws(SyncFolderError) {
        folder = settings.folderPath(home: home)
        guard FilePaths.isDirectory(folder) else {
            throw SyncFolderError(folder, "no sync folder", reason: "it does not exist: create it and share it with "
                                  + "your sync engine (Syncthing), or change [sync] folder")
        }
        device = try DeviceIdentity.loadOrCreate(at: stateDirectory + "/" + BlockerPaths.deviceIDFileName)
        writer = try SyncLogWriter(folder: folder, device: device)
        reader = try SyncFolderReader(folder: folder, own: device)
        catchUp(ledger: ledger, wall: wall, today: today)
    }

    private func catchUp(ledger: Ledger, wall: WallInstant, today: CivilDate) {
        let said = writer.said
        if let audit = try? ledger.audit() {
            if audit.earnedTotal > said.earned {
                queued.append((.earn(audit.earnedTotal - said.earned, exercise: "", reps: 0), today, wall))
            }
            if audit.spentTotal > said.spent {
                var usage = ledger.usedToday(day: today)
                for (group, ms) in said.usage[today] ?? [:] { usage[group.lowercased(), default: 0] -= ms }
                queued.append((.spend(debit: audit.spentTotal - said.spent, usage: usage.filter { $0.value > 0 }),
                               today, wall))
            }
        }
        for block in ledger.timedBlocks(activeAt: wall) where said.blocks[block.target]?.until != block.until {
            queued.append((.block(target: block.target, until: block.until), today, wall))
        }
        flush()
    }

    // MARK: this device's records

    func note(_ event: SyncRecord.Event, day: CivilDate, at: WallInstant) {
        queued.append((event, day, at))
        flush()
    }

    /// Spending of a tick the ledger took; written once a minute has passed
    /// since the last spend record (or `now`), on a new day first.
    func noteSpent(_ debit: Milliseconds, usage: [UsageEntry], day: CivilDate) {
        guard debit > 0 || !usage.isEmpty else { return }
        if let unsaid, unsaid.day != day { queueSpending() }
        var spending = unsaid ?? (day, 0, [:])
        spending.debit += debit
        for entry in usage where entry.ms > 0 { spending.usage[entry.group.lowercased(), default: 0] += entry.ms }
        unsaid = spending
    }

    /// At each tick: the spending goes out once a minute has passed (5 s
    /// near zero) since the last spend record, or at once when the balance is no longer
    /// being spent (`spending` false) or at a stop (`now`). A group's use
    /// alone (an unmetered group's daily limit) waits for the minute.
    func flushSpending(at wall: WallInstant, spending: Bool = true, now: Bool = false) {
        guard let pending = unsaid else { return }
        let every = balance < Self.lowBalance ? Self.spendEveryNearZero : Self.spendEvery
        let due = wall.isDue(every: every, since: lastSpendAt)
        guard now || due || (!spending && pending.debit > 0) else { return }
        lastSpendAt = wall
        queueSpending(at: wall)
        flush()
    }

    private func queueSpending(at wall: WallInstant? = nil) {
        guard let spending = unsaid else { return }
        unsaid = nil
        queued.append((.spend(debit: spending.debit, usage: spending.usage), spending.day, wall ?? lastSpendAt ?? WallClock.now))
    }

    private func flush() {
        while let next = queued.first {
            do {
                try writer.append(next.event, day: next.day, at: next.at)
                queued.removeFirst()
                writeError = nil
            } catch {
                writeError = error.description
                return
            }
        }
    }

    /// This device's balance as the others will see it: what its log says,
    /// and what waits to be written.
    /// What this device's log has said so far.
    var said: SyncTotals { writer.said }

    var ownBalance: Milliseconds {
        var balance = writer.said.earned - writer.said.spent - (unsaid?.debit ?? 0)
        for record in queued {
            switch record.event {
            case let .earn(ms, _, _): balance += ms
            case let .spend(debit, _): balance -= debit
            default: break
            }
        }
        return balance
    }

    /// Every device's earnings less every device's spending: the balance.
    var balance: Milliseconds { ownBalance + remoteBalance }

    // MARK: the other devices

    /// Reads what the other devices wrote since the last read; what was refused.
    func readNew() -> Result<[SyncFolderReader.Refused], SyncFolderError> {
        do { return .success(try reader.readNew()) } catch { return .failure(error) }
    }

    /// What the other devices earned less what they spent.
    var remoteBalance: Milliseconds { reader.merge.earned - reader.merge.spent }

    func remoteUsage(day: CivilDate) -> [String: Milliseconds] { reader.merge.usage[day] ?? [:] }

    /// The blocks the newest word of any device (this one's included) leaves running.
    func blocks(activeAt now: WallInstant) -> [TimedBlock] {
        writer.said.timedBlocks(with: reader.merge.blocks, activeAt: now)
    }
}
