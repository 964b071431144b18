import BlockerCore
import Testing
@testable import BlockerSync

/// The merge of the devices' logs (issue 25): duplicate, reordered, torn,
/// foreign-version and hostile records; nothing counted twice, nothing a
/// device could not have written counted at all, and no input that crashes.
@Suite struct SyncMergeTests {
    let laptop = DeviceID("0123456789abcdef")!
    let desktop = DeviceID("fedcba9876543210")!
    let day = CivilDate(year: 2026, month: 12, day: 6)

    func record(_ device: DeviceID, _ seq: UInt64, _ event: SyncRecord.Event, at: Int64 = 1_796_000_000_000) -> SyncRecord {
        SyncRecord(device: device, seq: seq, day: day, at: WallInstant(ms: at), event: event)
    }

    func log(_ records: [SyncRecord]) -> [UInt8] { records.flatMap(SyncLine.encode) }

    @Test func aRecordIsOneLineAndReadsBackTheSame() throws {
        let events: [SyncRecord.Event] = [
            .earn(600_000, exercise: "pushups", reps: 20),
            .spend(debit: 60_000, usage: ["social": 60_000, "video": 1_500]),
            .block(target: "social", until: WallInstant(ms: 1_796_003_600_000)),
            .unblock(target: "social"),
            .pass(group: "video", until: WallInstant(ms: 1_796_000_900_000)),
        ]
        for (index, event) in events.enumerated() {
            let original = record(laptop, UInt64(index + 1), event)
            let line = SyncLine.encode(original)
            #expect(line.last == 0x0A && line.dropLast().firstIndex(of: 0x0A) == nil)
            #expect(try SyncLine.decode(line.dropLast()).get() == original)
        }
        // The checksum is zlib's CRC-32.
        #expect(CRC32.of(Array("123456789".utf8)) == 0xCBF4_3926)
    }

    @Test func aTornTailIsNoRecordUntilItsLineEnds() {
        let whole = log([record(laptop, 1, .earn(60_000, exercise: "pushups", reps: 2)),
                         record(laptop, 2, .earn(30_000, exercise: "pushups", reps: 1))])
        for cut in 1..<whole.count {
            let read = SyncLogRead.read(Array(whole[..<cut]), device: laptop)
            #expect(read.refused.isEmpty, "cut at \(cut)")
            #expect(read.records.count == whole[..<cut].filter { $0 == 0x0A }.count)
            #expect(read.tornTail == cut - (whole[..<cut].lastIndex(of: 0x0A).map { $0 + 1 } ?? 0))
        }
        #expect(SyncLogRead.read(whole, device: laptop).records.count == 2)
    }

    @Test func aRecordSeenTwiceOrOutOfOrderCountsOnce() {
        var merge = SyncMerge(own: desktop)
        let records = (1...5).map { record(laptop, UInt64($0), .spend(debit: 1_000, usage: ["social": 1_000])) }
        for seq in [3, 1, 5, 2, 4] { #expect(merge.merge(records[seq - 1]) == .counted) }
        for seq in [1, 5, 3] { #expect(merge.merge(records[seq - 1]) == .duplicate) }
        #expect(merge.spent == 5_000)
        #expect(merge.usage[day]?["social"] == 5_000)
        #expect(merge.devices[laptop]?.highestSeq == 5 && merge.devices[laptop]?.records == 5)
        // The same log read again, whole: nothing more.
        for again in SyncLogRead.read(log(records), device: laptop).records { #expect(merge.merge(again) == .duplicate) }
        #expect(merge.spent == 5_000)
    }

    @Test func hostileRecordsAreRefusedAndChangeNothing() {
        var merge = SyncMerge(own: desktop)
        #expect(merge.merge(record(laptop, 1, .earn(60_000, exercise: "pushups", reps: 2))) == .counted)
        // Another device's record in the laptop's log.
        let planted = SyncLogRead.read(log([record(desktop, 7, .earn(3_600_000, exercise: "pushups", reps: 120))]),
                                       device: laptop)
        #expect(planted.records.isEmpty && planted.refused.first?.reason == .anotherDevice(desktop, inLogOf: laptop))
        // A record claiming this device's id (its own are in its ledger).
        #expect(merge.merge(record(desktop, 1, .earn(60_000, exercise: "pushups", reps: 2))) == .refused(.thisDevice))
        // A huge seq.
        #expect(merge.merge(record(laptop, 1 + SyncMerge.maximumSeqJump + 1, .earn(1, exercise: "x", reps: 1)))
                == .refused(.seqJump(seq: 1 + SyncMerge.maximumSeqJump + 1, highest: 1)))
        // The same seq with other contents: the first counts.
        #expect(merge.merge(record(laptop, 1, .earn(3_600_000, exercise: "pushups", reps: 120)))
                == .refused(.changed(seq: 1)))
        #expect(merge.earned == 60_000)
    }

    @Test func aDamagedOrForeignLineIsRefusedByLineTheRestCounts() {
        var bytes = log([record(laptop, 1, .earn(60_000, exercise: "pushups", reps: 2))])
        var edited = SyncLine.encode(record(laptop, 2, .earn(60_000, exercise: "pushups", reps: 2)))
        edited[edited.firstIndex(of: UInt8(ascii: "6"))!] = UInt8(ascii: "9")   // 60000 → 90000, checksum kept
        bytes += edited
        let newer = Array(#"{"v":2,"device":"0123456789abcdef","seq":3}"#.utf8)
        bytes += newer + Array(" \(SyncLine.hex8(CRC32.of(newer)))\n".utf8)
        bytes += Array("garbage\n".utf8)
        bytes += Array(repeating: UInt8(ascii: "x"), count: SyncLine.maximumBytes + 1) + [0x0A]
        bytes += log([record(laptop, 4, .earn(30_000, exercise: "pushups", reps: 1))])
        let read = SyncLogRead.read(bytes, device: laptop)
        #expect(read.records.map(\.seq) == [1, 4])
        #expect(read.refused.map(\.line) == [2, 3, 4, 5])
        #expect(read.refused.map(\.reason) == [.line(.badChecksum), .line(.foreignVersion(2)),
                                                .line(.notARecord("no checksum at its end")),
                                                .line(.tooLong(SyncLine.maximumBytes + 1))])
    }

    @Test func theNewestWordOnABlockWinsWhateverOrderItComesIn() {
        var merge = SyncMerge(own: desktop)
        let until = WallInstant(ms: 1_796_003_600_000)
        _ = merge.merge(record(laptop, 2, .unblock(target: "Social"), at: 1_796_000_100_000))
        _ = merge.merge(record(laptop, 1, .block(target: "social", until: until), at: 1_796_000_000_000))
        #expect(merge.timedBlocks(activeAt: WallInstant(ms: 1_796_000_200_000)).isEmpty, "unblocked after the block")
        _ = merge.merge(record(laptop, 3, .block(target: "social", until: until), at: 1_796_000_300_000))
        #expect(merge.timedBlocks(activeAt: WallInstant(ms: 1_796_000_400_000)) == [TimedBlock(target: "social", until: until)])
        #expect(merge.timedBlocks(activeAt: until).isEmpty, "over at its end")
    }

    @Test func noBytesCrashTheReader() throws {
        var generator = SystemRandomNumberGenerator()
        let valid = log([record(laptop, 1, .spend(debit: 1_000, usage: ["social": 1_000]))])
        for _ in 0..<2_000 {
            var bytes = valid
            for _ in 0..<Int.random(in: 1...8, using: &generator) {
                bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            let read = SyncLogRead.read(bytes, device: laptop)
            #expect(read.records.count + read.refused.count <= bytes.filter { $0 == 0x0A }.count)
            // Whatever is read as a record reads back as itself.
            for record in read.records { #expect(try SyncLine.decode(SyncLine.encode(record).dropLast()).get() == record) }
        }
    }
}
