import BlockerCore
import BlockerSync
import BlockerSystem
import Glibc

/// `blocker-bench sync [--days N]`
///
/// `[sync]`'s costs, printed as `| label | value | target |` rows:
/// - a year (N days) of two devices' logs merged at a start (read from the
///   files, as blockerd does when it opens the folder), and the memory it took;
/// - one incoming record: appended to a device's log, then read and merged;
/// - one record of this device's, written whole and fsync'd.
/// Each device's days: 8 hours charged (a spend record a minute), 4 earnings
/// and a block, so 485 records a day.
func benchSync(_ arguments: [String]) {
    var days = 365
    var rest = arguments[...]
    while let option = rest.popFirst() {
        switch (option, rest.popFirst().flatMap { Int($0) }) {
        case let ("--days", n?) where n > 0: days = n
        default: benchFail("usage: blocker-bench sync [--days N]")
        }
    }
    let folder = temporaryFolder()
    defer { removeFolder(folder) }
    let devices = [DeviceID("00000000000000a1")!, DeviceID("00000000000000b2")!]
    let reader = DeviceID("00000000000000c3")!
    var records = 0
    let start = CivilDate(year: 2025, month: 12, day: 7)
    for device in devices {
        records += writeYear(of: device, days: days, from: start, into: folder)
    }

    let rssBefore = residentKiB()
    let began = MonotonicClock.nowNs
    let merge: SyncFolderReader
    do {
        merge = try SyncFolderReader(folder: folder, own: reader)
        let refused = try merge.readNew()
        guard refused.isEmpty else { benchFail("sync: refused \(refused.first!)") }
    } catch { benchFail("sync: \(error)") }
    let mergeMs = Double(MonotonicClock.nowNs - began) / 1e6
    let rssAfter = residentKiB()
    guard merge.merge.devices.values.map(\.records).reduce(0, +) == records else { benchFail("sync: not every record merged") }

    // One record more in the first device's log, then read: 1000 times.
    guard let newest = (try? SyncFolder.logs(in: folder))?[devices[0]]?.last?.name else { benchFail("sync: no log") }
    let path = folder + "/" + newest
    var perRecord: [Double] = []
    let day = start.adding(days: days)
    for seq in 1...1000 {
        let line = SyncLine.encode(SyncRecord(device: devices[0], seq: UInt64(records / 2 + seq), day: day,
                                              at: WallInstant(ms: 1_796_000_000_000 + Int64(seq) * 60_000),
                                              event: .spend(debit: 60_000, usage: ["social": 60_000])))
        append(line, to: path)
        let before = MonotonicClock.nowNs
        _ = try? merge.readNew()
        perRecord.append(Double(MonotonicClock.nowNs - before) / 1e3)
    }

    // This device's own record: written whole and fsync'd, 200 times.
    let writer: SyncLogWriter
    do { writer = try SyncLogWriter(folder: folder, device: reader) } catch { benchFail("sync: \(error)") }
    var perWrite: [Double] = []
    for minute in 0..<200 {
        let before = MonotonicClock.nowNs
        do {
            try writer.append(.spend(debit: 60_000, usage: ["social": 60_000]), day: day,
                              at: WallInstant(ms: 1_796_000_000_000 + Int64(minute) * 60_000))
        } catch { benchFail("sync: \(error)") }
        perWrite.append(Double(MonotonicClock.nowNs - before) / 1e6)
    }

    func row(_ label: String, _ value: String, _ target: String = "") { print("| \(label) | \(value) | \(target) |") }
    row("sync: merge \(days) days of 2 devices at start (\(records) records)", format(mergeMs, "ms"), "")
    row("sync:   memory for it (RSS growth)", "\(max(rssAfter - rssBefore, 0)) KiB", "")
    row("sync: an incoming record, read and merged (median)", format(median(perRecord), "us"), "")
    row("sync: this device's record, written and fsync'd (median)",
        format(median(perWrite), "ms"), "once a minute while charging")
}

/// A device's year as its log would hold it, written straight into its
/// segments (blockerd would fsync each line; here only the result matters).
private func writeYear(of device: DeviceID, days: Int, from start: CivilDate, into folder: String) -> Int {
    var seq: UInt64 = 0, segment = 1, size = 0
    var buffer: [UInt8] = []
    func flush() {
        append(buffer, to: folder + "/" + SyncFolder.logName(device, segment: segment))
        buffer = []
    }
    func add(_ event: SyncRecord.Event, day: CivilDate, at: WallInstant) {
        seq += 1
        let line = SyncLine.encode(SyncRecord(device: device, seq: seq, day: day, at: at, event: event))
        if size + line.count > SyncFolder.segmentBytes {
            flush()
            segment += 1
            size = 0
        }
        buffer += line
        size += line.count
    }
    for offset in 0..<days {
        let day = start.adding(days: offset)
        let morning = WallInstant(ms: 1_765_000_000_000 + Int64(offset) * 86_400_000)
        for earning in 0..<4 { add(.earn(600_000, exercise: "pushups", reps: 20), day: day, at: morning + Int64(earning) * 60_000) }
        add(.block(target: "social", until: morning + 3_600_000), day: day, at: morning)
        for minute in 0..<480 {
            add(.spend(debit: 60_000, usage: ["social": 60_000]), day: day, at: morning + Int64(minute + 10) * 60_000)
        }
    }
    flush()
    return Int(seq)
}

private func append(_ bytes: [UInt8], to path: String) {
    let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
    guard fd >= 0 else { benchFail("sync: cannot write \(path)") }
    defer { close(fd) }
    do { try FileDescriptor(rawValue: fd).writeAll(bytes) } catch { benchFail("sync: \(error)") }
}

private func temporaryFolder() -> String {
    var template = Array("/tmp/blocker-bench-sync.XXXXXX".utf8CString)
    guard let made = mkdtemp(&template) else { benchFail("sync: mkdtemp failed") }
    return String(cString: made)
}

private func removeFolder(_ folder: String) {
    if let names = try? SyncFolder.logs(in: folder) {
        for (_, segments) in names { for (_, name) in segments { unlink(folder + "/" + name) } }
    }
    rmdir(folder)
}

/// VmRSS of this process, KiB.
private func residentKiB() -> Int {
    guard let bytes = try? FileContents.read(atPath: "/proc/self/status", limit: 1 << 16) else { return 0 }
    let line = String(decoding: bytes, as: UTF8.self).split(separator: "\n").first { $0.hasPrefix("VmRSS:") }
    return line.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") } ?? 0
}
