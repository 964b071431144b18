import BlockerCore
import BlockerStore
import BlockerSync
import BlockerSystem

/// One balance on every machine (`[sync]`, SyncLink.swift): the balance, the
/// day's use and the timed blocks are every device's; this device's own
/// earnings, spending, blocks and passes go out to its log.
extension Daemon {
    /// The balance the rules and the meter go by: every machine's with
    /// `[sync]`, this ledger's otherwise.
    public var spendable: Milliseconds { sync?.balance ?? ledger.balance }

    /// Opens the folder `[sync]` names (again after a reload that changed
    /// it); a folder that cannot be used is said once and leaves the balance
    /// this machine's own.
    func openSync(wall: WallInstant) {
        let settings = config.sync
        guard settings != nil || sync != nil || syncProblem != nil else { return }
        // What the old link had not written yet goes to its folder first.
        sync?.flushSpending(at: wall, now: true)
        sync = nil
        syncProblem = nil
        syncRefusalsSaid = []
        guard let settings else {
            return log.write(LogEvent(priority: .info, "[sync] is gone: the balance is this machine's own again"))
        }
        let home = environment["HOME"] ?? "/"
        do {
            let link = try SyncLink(settings: settings, home: home, stateDirectory: options.stateDirectory, ledger: ledger,
                                    wall: wall, today: meter.zone.localDate(at: wall))
            sync = link
            _ = readSync()
            log.write(LogEvent(priority: .info, "Sync: this machine is device \(link.device) in \(link.folder); "
                               + "\(link.reader.merge.devices.count) other device(s) seen"))
        } catch {
            syncProblem = error.description
            log.write(LogEvent(.syncError, "Sync is off: \(error); the balance is this machine's own",
                               fields: [("SYNC_FOLDER", settings.folderPath(home: home))]))
        }
    }

    /// Reads what the other devices wrote; whether anything changed. Each
    /// refused line is said once in the journal; nothing refused counts.
    @discardableResult
    func readSync() -> Bool {
        guard let sync else { return false }
        let before = (sync.remoteBalance, sync.reader.merge.devices.values.map(\.records).reduce(0, +))
        switch sync.readNew() {
        case let .failure(error):
            if syncProblem == nil {
                log.write(LogEvent(.syncError, "Sync: \(error)", fields: [("SYNC_FOLDER", sync.folder)]))
            }
            syncProblem = error.description
            return false
        case let .success(refused):
            syncProblem = nil
            for refusal in refused where syncRefusalsSaid.insert("\(refusal.file):\(refusal.line)").inserted {
                log.write(LogEvent(.syncRefused, "Sync: refused \(sync.folder)/\(refusal)",
                                   fields: [("SYNC_FILE", refusal.file), ("LINE", "\(refusal.line)")]))
            }
        }
        return before != (sync.remoteBalance, sync.reader.merge.devices.values.map(\.records).reduce(0, +))
    }

    /// What Status and `blockerctl devices` show.
    var syncStatus: SyncStatus? {
        guard let settings = config.sync else { return nil }
        guard let sync else {
            return SyncStatus(folder: settings.folderPath(home: environment["HOME"] ?? "/"), device: "",
                              problem: syncProblem ?? "not open", records: 0, devices: [])
        }
        let devices = sync.reader.merge.devices.sorted { $0.key < $1.key }.map { id, device in
            SyncStatus.Device(id: id.text, records: device.records, lastAt: device.lastAt, earnedMs: device.earned,
                              spentMs: device.spent)
        }
        return SyncStatus(folder: sync.folder, device: sync.device.text, problem: syncProblem ?? sync.writeError,
                          records: sync.said.records, devices: devices)
    }

    /// The ledger's view of `today` with the other devices' use and blocks in it.
    func withSync(_ snapshot: LedgerSnapshot, today: CivilDate, wall: WallInstant) -> LedgerSnapshot {
        guard let sync else { return snapshot }
        var merged = snapshot
        merged.balance = sync.balance
        for (group, ms) in sync.remoteUsage(day: today) { merged.usedToday[group, default: 0] += ms }
        // Every device's newest word on each target, this one's included (a
        // block set here is in its log); a block not written yet counts too,
        // and in strict mode a block set here runs to its end whatever another
        // machine said since (one outside strict mode could lift it).
        var blocks = sync.blocks(activeAt: wall)
        let strict = config.strict.delay != nil
        for block in snapshot.timedBlocks where strict || sync.said.blocks[block.target]?.until != block.until {
            blocks.removeAll { $0.target == block.target && $0.until < block.until }
            if !blocks.contains(where: { $0.target == block.target }) { blocks.append(block) }
        }
        merged.timedBlocks = blocks.sorted { $0.target < $1.target }
        return merged
    }
}
