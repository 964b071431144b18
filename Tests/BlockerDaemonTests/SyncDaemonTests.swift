import Foundation
import Testing
@testable import BlockerDaemon
import BlockerCore
import BlockerStore
import BlockerSync
import TestSupport

/// One balance on every machine, through two real daemons (real ledgers,
/// the command probe) sharing one folder, as a sync engine would keep it:
/// here they share the directory itself (itest-sync.sh runs Syncthing).
@Suite struct SyncDaemonTests {
    let pushups = Exercise(name: "pushups", perRep: 30_000)

    /// Two machines, A and B, with the folder; `sync: false` leaves [sync] out.
    func machines(sync: Bool = true) throws -> (a: Sandbox, b: Sandbox, folder: TemporaryDirectory) {
        let folder = try TemporaryDirectory()
        let sections = (sync ? "[sync]\nfolder = \"\(folder.path)\"\n\n" : "") + socialAndToolsGroups
        let a = try Sandbox(), b = try Sandbox()
        for box in [a, b] {
            try box.write(commandProbeConfig(frontFile: box.frontPath, warnBefore: nil, sections: sections), to: box.configPath)
        }
        return (a, b, folder)
    }

    /// `app` in front of `daemon` for `seconds`, a tick a second (each charges its second).
    func run(_ daemon: Daemon, _ box: Sandbox, _ app: String, seconds: Int, clock: inout Clock) {
        box.front(app)
        for _ in 0..<seconds {
            clock.advance(.seconds(1))
            daemon.tick(clock)
        }
    }

    func logs(_ folder: TemporaryDirectory) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".log") }.sorted()
    }

    @Test func anEarningOnOneMachineIsEveryMachinesBalance() throws {
        let (a, b, folder) = try machines()
        let log = MemoryLog()
        let machineA = try a.daemon(), machineB = try b.daemon(log: log)
        let clock = Clock()
        _ = try machineA.earn(exercise: pushups, reps: 20, wall: clock.wall)   // 10 min
        #expect(machineA.spendable == .minutes(10))
        #expect(try logs(folder).count == 1, "A's log holds the earning")
        #expect(machineB.readSync())
        #expect(machineB.spendable == .minutes(10))
        #expect(machineB.ledger.balance == 0, "B's own ledger earned nothing")
        #expect(machineB.sync?.reader.merge.devices[machineA.sync!.device]?.records == 1)
        #expect(log.events(.syncError).isEmpty && log.events(.syncRefused).isEmpty)
    }

    @Test func spendingAnotherMachinesEarningsGoesOutAndComesBackToIt() throws {
        let (a, b, folder) = try machines()
        defer { withExtendedLifetime(folder) {} }
        let machineA = try a.daemon(), machineB = try b.daemon()
        var clock = Clock()
        _ = try machineA.earn(exercise: pushups, reps: 20, wall: clock.wall)   // 10 min, on A
        machineB.readSync()
        b.front("discord")
        machineB.tick(clock)
        run(machineB, b, "discord", seconds: 90, clock: &clock)   // B earned nothing itself
        #expect(machineB.spendable == .minutes(10) - .seconds(90))
        #expect(machineB.ledger.balance == 0, "B's ledger never goes below zero")
        #expect(machineB.shield == nil, "A's minutes pay for B's discord")
        // The first minute went out at a commit a minute in; the rest at the stop.
        machineB.shutdown(monotonic: clock.monotonic, wall: clock.wall)
        #expect(machineA.readSync())
        #expect(machineA.spendable == .minutes(10) - .seconds(90))
        #expect(machineA.snapshot(at: clock.wall).usedToday["social"] == .seconds(90), "B's use counts in A's daily limit")
    }

    @Test func aBlockSetOnOneMachineCoversTheOtherAndAnUnblockThereLiftsIt() throws {
        let (a, b, folder) = try machines()
        defer { withExtendedLifetime(folder) {} }
        let machineA = try a.daemon(), machineB = try b.daemon()
        var clock = Clock()
        _ = try machineB.earn(exercise: pushups, reps: 20, wall: clock.wall)
        _ = try machineA.block(target: "social", until: clock.wall + .hours(1), wall: clock.wall)
        machineB.readSync()
        b.front("discord")
        machineB.tick(clock)
        #expect(machineB.shield?.reason == .timedBlock)
        clock.advance(1_000)
        #expect(try machineB.unblock(target: "social", wall: clock.wall), "B may lift a block A set")
        #expect(machineB.shield == nil)
        machineA.readSync()
        #expect(machineA.snapshot(at: clock.wall).timedBlocks.isEmpty, "B's later unblock lifts A's block on A too")
    }

    @Test func whatTheLedgerHadBeforeSyncGoesOutAtTheFirstStart() throws {
        let (a, b, folder) = try machines(sync: false)
        var machineA: Daemon? = try a.daemon()
        var clock = Clock()
        _ = try machineA!.earn(exercise: pushups, reps: 20, wall: clock.wall)
        a.front("discord")
        machineA!.tick(clock)
        run(machineA!, a, "discord", seconds: 30, clock: &clock)
        machineA!.shutdown(monotonic: clock.monotonic, wall: clock.wall)
        machineA = nil
        // [sync] added: A's earnings and spending so far go out, once.
        let sections = "[sync]\nfolder = \"\(folder.path)\"\n\n" + socialAndToolsGroups
        try a.write(commandProbeConfig(frontFile: a.frontPath, warnBefore: nil, sections: sections), to: a.configPath)
        try b.write(commandProbeConfig(frontFile: b.frontPath, warnBefore: nil, sections: sections), to: b.configPath)
        for _ in 0..<2 {
            let again = try Daemon.reopened(options: a.options, log: MemoryLog(), environment: ["TZ": "UTC", "HOME": a.root])
            #expect(again.spendable == .minutes(10) - .seconds(30))
            again.shutdown(monotonic: clock.monotonic, wall: clock.wall)
        }
        let machineB = try b.daemon()
        #expect(machineB.spendable == .minutes(10) - .seconds(30), "counted once, whatever the restarts")
    }

    @Test func aFolderThatCannotBeUsedIsSaidAndTheBalanceStaysThisMachines() throws {
        let box = try Sandbox()
        let sections = "[sync]\nfolder = \"\(box.root)/nowhere\"\n\n" + socialAndToolsGroups
        try box.write(commandProbeConfig(frontFile: box.frontPath, warnBefore: nil, sections: sections), to: box.configPath)
        let log = MemoryLog()
        let daemon = try box.daemon(log: log)
        #expect(daemon.sync == nil)
        #expect(daemon.syncProblem?.contains("it does not exist: create it and share it") == true)
        #expect(log.events(.syncError).count == 1)
        _ = try daemon.earn(exercise: pushups, reps: 2, wall: Clock().wall)
        #expect(daemon.spendable == .minutes(1))
    }
}

extension SyncDaemonTests {
    /// Spending goes out a minute at a time while charging, and the rest at
    /// the tick it stops, however soon after the last record.
    @Test func spendingGoesOutOnceItStopsEvenWithinTheMinute() throws {
        let (a, _, folder) = try machines()
        defer { withExtendedLifetime(folder) {} }
        let machineA = try a.daemon()
        var clock = Clock()
        _ = try machineA.earn(exercise: pushups, reps: 20, wall: clock.wall)
        for burst in 1...2 {
            run(machineA, a, "discord", seconds: 5, clock: &clock)
            run(machineA, a, "notes", seconds: 15, clock: &clock)
            #expect(machineA.sync?.said.spent == .seconds(Int64(5 * burst)), "burst \(burst)")
        }
    }
}

extension SyncDaemonTests {
    /// A hostile log in the folder: every bad line refused with one journal
    /// line naming file and line, nothing of it counted, blockerd running on.
    @Test func hostileRecordsAreRefusedOnceInTheJournalAndCountNothing() throws {
        let (a, _, folder) = try machines()
        let log = MemoryLog()
        let machineA = try a.daemon(log: log)
        let other = DeviceID("fedcba9876543210")!
        let day = CivilDate(year: 2026, month: 12, day: 7)
        let good = SyncLine.encode(SyncRecord(device: other, seq: 1, day: day, at: 1_796_000_000_000,
                                              event: .earn(60_000, exercise: "pushups", reps: 2)))
        var damaged = SyncLine.encode(SyncRecord(device: other, seq: 2, day: day, at: 1_796_000_000_000,
                                                 event: .earn(3_600_000, exercise: "pushups", reps: 120)))
        damaged[12] ^= 0x01
        let mine = SyncLine.encode(SyncRecord(device: machineA.sync!.device, seq: 7, day: day, at: 1_796_000_000_000,
                                              event: .earn(3_600_000, exercise: "pushups", reps: 120)))
        // A newer blocker's record, whole and checksummed.
        let json = Array(#"{"v":2,"device":"fedcba9876543210","seq":3}"#.utf8)
        let crc = String(CRC32.of(json), radix: 16)
        let newer = json + Array(" \(String(repeating: "0", count: 8 - crc.count))\(crc)\n".utf8)
        try folder.write(SyncFolder.logName(other, segment: 1), bytes: good + damaged + mine + newer)
        #expect(machineA.readSync())
        #expect(machineA.spendable == 60_000, "only the good record counts")
        let refused = log.events(.syncRefused)
        #expect(refused.map { $0.fields.first { $0.0 == "LINE" }?.1 } == ["2", "3", "4"])
        #expect(refused.allSatisfy { $0.message.contains("fedcba9876543210.000001.log") })
        #expect(refused.last?.message.contains("format version 2") == true)
        // Read again (the file touched): said once, still not counted.
        try folder.write(SyncFolder.logName(other, segment: 1), bytes: good + damaged + mine + newer)
        machineA.readSync()
        #expect(log.events(.syncRefused).count == 3 && machineA.spendable == 60_000)
    }
}

extension SyncDaemonTests {
    /// A machine outside strict mode cannot lift, or shorten, a block that one
    /// in strict mode set: there it runs to its end.
    @Test func aBlockSetInStrictModeRunsToItsEndWhateverAnotherMachineSays() throws {
        let (a, b, folder) = try machines()
        defer { withExtendedLifetime(folder) {} }
        let strictSections = "[strict]\ndelay = \"1h\"\n\n[sync]\nfolder = \"\(folder.path)\"\n\n" + socialAndToolsGroups
        try a.write(commandProbeConfig(frontFile: a.frontPath, warnBefore: nil, sections: strictSections), to: a.configPath)
        let machineA = try a.daemon(), machineB = try b.daemon()
        var clock = Clock()
        _ = try machineA.block(target: "social", until: clock.wall + .hours(2), wall: clock.wall)
        machineB.readSync()
        clock.advance(1_000)
        #expect(try machineB.unblock(target: "social", wall: clock.wall), "B, outside strict mode, lifts it for itself")
        clock.advance(1_000)
        _ = try machineB.block(target: "social", until: clock.wall + .minutes(5), wall: clock.wall)
        machineA.readSync()
        #expect(machineA.snapshot(at: clock.wall).timedBlocks == [TimedBlock(target: "social", until: Clock().wall + .hours(2))])
    }
}

extension SyncDaemonTests {
    /// Near zero the others hear every 5 s, not every minute: two machines
    /// spending the last of the balance at once overspend less.
    @Test func nearZeroSpendingGoesOutEveryFiveSeconds() throws {
        let (a, _, folder) = try machines()
        defer { withExtendedLifetime(folder) {} }
        let machineA = try a.daemon()
        var clock = Clock()
        _ = try machineA.earn(exercise: pushups, reps: 2, wall: clock.wall)   // 1 min: under 2 min
        a.front("discord")
        machineA.tick(clock)
        run(machineA, a, "discord", seconds: 20, clock: &clock)
        // Written at 1 s (the first), 6, 11 and 16 s; a minute apart it would be 1 s only.
        #expect(machineA.sync?.said.spent == .seconds(16))
        #expect(machineA.sync?.said.records == 5, "the earning and four spend records")
    }
}

extension SyncDaemonTests {
    /// A folder made after blockerd started is used from the next reload;
    /// a reload to another folder first writes what the old one lacked.
    @Test func aReloadTriesAgainAndWritesWhatTheOldFolderLacked() throws {
        let box = try Sandbox()
        let later = box.root + "/later"
        let sections = "[sync]\nfolder = \"\(later)\"\n\n" + socialAndToolsGroups
        try box.write(commandProbeConfig(frontFile: box.frontPath, warnBefore: nil, sections: sections), to: box.configPath)
        let daemon = try box.daemon()
        #expect(daemon.sync == nil && daemon.syncProblem != nil)
        try FileManager.default.createDirectory(atPath: later, withIntermediateDirectories: false)
        _ = daemon.reload()
        #expect(daemon.sync != nil && daemon.syncProblem == nil, "the folder made since is used")
        var clock = Clock()
        _ = try daemon.earn(exercise: pushups, reps: 20, wall: clock.wall)
        run(daemon, box, "discord", seconds: 10, clock: &clock)   // only the first second of it written yet
        #expect(daemon.sync?.said.spent == .seconds(1))
        let other = box.root + "/other"
        try FileManager.default.createDirectory(atPath: other, withIntermediateDirectories: false)
        try box.write(commandProbeConfig(frontFile: box.frontPath, warnBefore: nil,
                                         sections: "[sync]\nfolder = \"\(other)\"\n\n" + socialAndToolsGroups), to: box.configPath)
        _ = daemon.reload()
        let old = try SyncLogWriter(folder: later, device: try #require(daemon.sync?.device))
        #expect(old.said.spent == .seconds(9), "the old folder got the spending it lacked (9 s charged in 10 ticks)")
    }
}
