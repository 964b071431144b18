import BlockerCore
import Foundation
import Glibc
import Testing
import TestSupport
@testable import BlockerSync

/// The sync folder on real files: this device's log written whole and
/// synced, its seq carried on across a restart and a torn last line; the
/// other devices' logs read as they grow, a copy still coming left for
/// later, hostile files refused with where and why; inotify wakes the reader.
@Suite struct SyncFolderTests {
    let laptop = DeviceID("0123456789abcdef")!
    let desktop = DeviceID("fedcba9876543210")!
    let day = CivilDate(year: 2026, month: 12, day: 7)
    let at = WallInstant(ms: 1_796_000_000_000)

    func bytes(_ path: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path))) }

    @Test func logNamesAreDeviceSegmentLogAndNothingElseIsALog() {
        #expect(SyncFolder.logName(laptop, segment: 1) == "0123456789abcdef.000001.log")
        #expect(SyncFolder.parseLogName("0123456789abcdef.000012.log")! == (laptop, 12))
        for other in [".syncthing.0123456789abcdef.000001.log.tmp", "0123456789abcdef.000001.sync-conflict-20261207-1.log",
                      "0123456789ABCDEF.000001.log", "0123456789abcdef.000000.log", "0123456789abcdef.1.log", "notes.txt"] {
            #expect(SyncFolder.parseLogName(other) == nil, "\(other)")
        }
    }

    @Test func theDeviceIdIsMadeOnceAndKept() throws {
        let state = try TemporaryDirectory()
        let path = state.file("device-id")
        let made = try DeviceIdentity.loadOrCreate(at: path)
        #expect(try DeviceIdentity.loadOrCreate(at: path) == made)
        #expect(String(decoding: try bytes(path), as: UTF8.self) == made.text + "\n")
        try state.write("device-id", "not an id\n")
        #expect(throws: SyncFolderError.self) { try DeviceIdentity.loadOrCreate(at: path) }
    }

    @Test func recordsAreAppendedWholeAndTheSeqGoesOnAfterAReopen() throws {
        let folder = try TemporaryDirectory()
        let writer = try SyncLogWriter(folder: folder.path, device: laptop)
        try writer.append(.earn(600_000, exercise: "pushups", reps: 20), day: day, at: at)
        try writer.append(.spend(debit: 60_000, usage: ["social": 60_000]), day: day, at: at + 60_000)
        let again = try SyncLogWriter(folder: folder.path, device: laptop)
        #expect(again.nextSeq == 3)
        try again.append(.block(target: "social", until: at + 3_600_000), day: day, at: at + 61_000)
        let read = SyncLogRead.read(try bytes(folder.file("0123456789abcdef.000001.log")), device: laptop)
        #expect(read.records.map(\.seq) == [1, 2, 3] && read.refused.isEmpty && read.tornTail == 0)
    }

    @Test func aTornLastLineOfItsOwnLogIsCutAtOpen() throws {
        let folder = try TemporaryDirectory()
        let writer = try SyncLogWriter(folder: folder.path, device: laptop)
        try writer.append(.earn(60_000, exercise: "pushups", reps: 2), day: day, at: at)
        let path = folder.file("0123456789abcdef.000001.log")
        let whole = try bytes(path)
        // A kill -9 in the middle of the second line's write.
        let second = SyncLine.encode(SyncRecord(device: laptop, seq: 2, day: day, at: at, event: .unblock(target: "social")))
        try folder.write("0123456789abcdef.000001.log", bytes: whole + second.prefix(17))
        let reopened = try SyncLogWriter(folder: folder.path, device: laptop)
        #expect(reopened.nextSeq == 2)
        #expect(try bytes(path) == whole)
        try reopened.append(.unblock(target: "social"), day: day, at: at)
        #expect(SyncLogRead.read(try bytes(path), device: laptop).records.map(\.seq) == [1, 2])
    }

    @Test func segmentsRollOverAndTheNewestCarriesTheSeq() throws {
        let folder = try TemporaryDirectory()
        let writer = try SyncLogWriter(folder: folder.path, device: laptop, segmentBytes: 400)
        for minute in 0..<10 {
            try writer.append(.spend(debit: 60_000, usage: ["social": 60_000]), day: day, at: at + Int64(minute) * 60_000)
        }
        let logs = try SyncFolder.logs(in: folder.path)[laptop] ?? []
        #expect(logs.count > 2)
        for (_, name) in logs { #expect(try bytes(folder.file(name)).count <= 400) }
        let reopened = try SyncLogWriter(folder: folder.path, device: laptop, segmentBytes: 400)
        #expect(reopened.nextSeq == 11)
        let reader = try SyncFolderReader(folder: folder.path, own: desktop)
        #expect(try reader.readNew().isEmpty)
        #expect(reader.merge.spent == 600_000 && reader.merge.devices[laptop]?.highestSeq == 10)
    }

    @Test func theReaderReadsWhatIsNewIgnoresItsOwnLogAndWaitsForACopyStillComing() throws {
        let folder = try TemporaryDirectory()
        let laptopLog = try SyncLogWriter(folder: folder.path, device: laptop)
        let ownLog = try SyncLogWriter(folder: folder.path, device: desktop)
        try ownLog.append(.earn(999_000, exercise: "squats", reps: 99), day: day, at: at)
        let reader = try SyncFolderReader(folder: folder.path, own: desktop)
        #expect(try reader.readNew().isEmpty && reader.merge.devices.isEmpty)

        try laptopLog.append(.earn(600_000, exercise: "pushups", reps: 20), day: day, at: at)
        var woke = pollfd(fd: try #require(reader.eventDescriptor), events: Int16(POLLIN), revents: 0)
        #expect(poll(&woke, 1, 2_000) == 1, "inotify did not wake the reader")
        #expect(try reader.readNew().isEmpty)
        #expect(reader.merge.earned == 600_000)

        // A copy still coming: half a line, then the rest.
        let name = SyncFolder.logName(laptop, segment: 1)
        let whole = try bytes(folder.file(name))
        let next = SyncLine.encode(SyncRecord(device: laptop, seq: 2, day: day, at: at + 1_000,
                                              event: .spend(debit: 30_000, usage: ["social": 30_000])))
        try folder.write(name, bytes: whole + next.prefix(20))
        #expect(try reader.readNew().isEmpty && reader.merge.spent == 0)
        try folder.write(name, bytes: whole + next)
        #expect(try reader.readNew().isEmpty && reader.merge.spent == 30_000)
        // Read again from the start after a shorter copy: nothing counted twice.
        try folder.write(name, bytes: whole)
        #expect(try reader.readNew().isEmpty)
        try folder.write(name, bytes: whole + next)
        #expect(try reader.readNew().isEmpty)
        #expect((reader.merge.earned, reader.merge.spent) == (600_000, 30_000))
    }

    @Test func hostileFilesAreRefusedSayingWhereAndWhy() throws {
        let folder = try TemporaryDirectory()
        let reader = try SyncFolderReader(folder: folder.path, own: desktop)
        let mine = SyncLine.encode(SyncRecord(device: desktop, seq: 1, day: day, at: at, event: .earn(1, exercise: "x", reps: 1)))
        let good = SyncLine.encode(SyncRecord(device: laptop, seq: 1, day: day, at: at, event: .earn(60_000, exercise: "x", reps: 1)))
        var damaged = good
        damaged[10] ^= 0x01
        let huge = [UInt8](repeating: 0x41, count: 3 * SyncFolderReader.chunkBytes)
        let jump = SyncLine.encode(SyncRecord(device: laptop, seq: 1 << 40, day: day, at: at, event: .earn(1, exercise: "x", reps: 1)))
        // In the laptop's log: this device's record, a damaged line, a huge
        // line, a seq far ahead, then one good record.
        try folder.write(SyncFolder.logName(laptop, segment: 1),
                         bytes: mine + damaged + huge + [0x0A] + jump + good)
        let refused = try reader.readNew()
        #expect(refused.map(\.line) == [1, 2, 3, 4])
        #expect(refused.map(\.reason) == [.anotherDevice(desktop, inLogOf: laptop), .line(.badChecksum),
                                          // as much of it as the first read held
                                          .line(.tooLong(SyncFolderReader.chunkBytes - mine.count - damaged.count)),
                                          .seqJump(seq: 1 << 40, highest: 0)])
        #expect(reader.merge.earned == 60_000)
    }
}
