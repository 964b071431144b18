import BlockerCore

/// A device's log as the folder holds it now, read whatever state its copy
/// is in: its whole lines as records or refusals, and the bytes after its
/// last newline (a copy still coming) left for the next read.
public struct SyncLogRead: Equatable, Sendable {
    public var records: [SyncRecord] = []
    /// Each record's line (1-based), in step with `records`.
    public var recordLines: [Int] = []
    /// Each refused line (1-based) and why.
    public var refused: [Refused] = []
    /// Bytes after the last newline: not a record until it ends.
    public var tornTail = 0

    public struct Refused: Equatable, Sendable, CustomStringConvertible {
        public var line: Int
        public var reason: SyncMerge.Refusal
        public var description: String { "line \(line): \(reason)" }
    }

    /// `bytes` is the log of `device` (its file's name says whose): a line
    /// claiming another device is refused, whatever else it says.
    public static func read(_ bytes: [UInt8], device: DeviceID) -> SyncLogRead {
        var read = SyncLogRead()
        var start = 0, line = 0
        while let newline = bytes[start...].firstIndex(of: 0x0A) {
            line += 1
            switch SyncLine.decode(bytes[start..<newline]) {
            case let .success(record) where record.device == device:
                read.records.append(record)
                read.recordLines.append(line)
            case let .success(record):
                read.refused.append(Refused(line: line, reason: .anotherDevice(record.device, inLogOf: device)))
            case let .failure(refusal):
                read.refused.append(Refused(line: line, reason: .line(refusal)))
            }
            start = newline + 1
        }
        read.tornTail = bytes.count - start
        return read
    }
}

/// The seqs of one device seen so far: all up to `through`, and those beyond
/// it that came early (a reordered copy). A year of a record a minute stays a
/// number, not half a million entries.
struct SeqSet: Equatable, Sendable {
    var through: UInt64 = 0
    var beyond: Set<UInt64> = []

    func contains(_ seq: UInt64) -> Bool { seq <= through || beyond.contains(seq) }

    var highest: UInt64 { beyond.max() ?? through }

    mutating func insert(_ seq: UInt64) {
        guard !contains(seq) else { return }
        beyond.insert(seq)
        while beyond.remove(through + 1) != nil { through += 1 }
    }
}

/// The other devices' records merged by `(device, seq)`: a record seen twice
/// counts once, in whatever order they come; what a device could not have
/// written is refused, said, and changes nothing. This device's own records
/// are its ledger's, never the folder's.
public struct SyncMerge: Sendable {
    /// A seq this far past a device's highest is refused: no device writes a
    /// million records between two reads of its log; a hostile one would make
    /// the others wait for the gap for ever.
    public static let maximumSeqJump: UInt64 = 1 << 20

    public enum Refusal: Equatable, Sendable, CustomStringConvertible {
        case line(SyncLine.Refusal)
        /// A record in one device's log naming another device.
        case anotherDevice(DeviceID, inLogOf: DeviceID)
        /// A record claiming to be this device's: only its ledger speaks for it.
        case thisDevice
        case seqJump(seq: UInt64, highest: UInt64)
        /// Seen before with other contents: the first one counts.
        case changed(seq: UInt64)

        public var description: String {
            switch self {
            case let .line(refusal): refusal.description
            case let .anotherDevice(claimed, log): "a record of device \(claimed) in the log of \(log)"
            case .thisDevice: "a record claiming this device's id (its own records are in its ledger)"
            case let .seqJump(seq, highest): "seq \(seq), more than \(SyncMerge.maximumSeqJump) past the highest seen (\(highest))"
            case let .changed(seq): "seq \(seq) again with other contents (the first one counts)"
            }
        }
    }

    public enum Outcome: Equatable, Sendable {
        case counted
        case duplicate
        case refused(Refusal)
    }

    /// What one other device has said.
    public struct Device: Equatable, Sendable {
        var seen = SeqSet()
        public var earned: Milliseconds = 0
        public var spent: Milliseconds = 0
        public var records = 0
        /// The newest record's instant (the device's lag, for `blockerctl devices`).
        public var lastAt: WallInstant?
        public var highestSeq: UInt64 { seen.highest }
    }

    public let own: DeviceID
    public private(set) var devices: [DeviceID: Device] = [:]
    /// Each day's use per group (lowercased), over the other devices.
    public private(set) var usage: [CivilDate: [String: Milliseconds]] = [:]
    /// The newest word on each block target (lowercased): a block's end, or
    /// nil for an unblock; the later instant wins.
    public private(set) var blocks: [String: SyncTotals.BlockWord] = [:]
    /// Records kept by `(device, seq)` only to tell a changed copy from the
    /// same one (a digest would do; the event itself is small).
    private var contents: [DeviceID: [UInt64: SyncRecord.Event]] = [:]
    /// How many recent contents are kept per device to compare.
    static let contentsKept = 4096

    public init(own: DeviceID) {
        self.own = own
    }

    public var earned: Milliseconds { devices.values.reduce(0) { $0 + $1.earned } }
    public var spent: Milliseconds { devices.values.reduce(0) { $0 + $1.spent } }

    public mutating func merge(_ record: SyncRecord) -> Outcome {
        guard record.device != own else { return .refused(.thisDevice) }
        var device = devices[record.device] ?? Device()
        if device.seen.contains(record.seq) {
            if let first = contents[record.device]?[record.seq], first != record.event {
                return .refused(.changed(seq: record.seq))
            }
            return .duplicate
        }
        guard record.seq <= device.seen.highest + Self.maximumSeqJump else {
            return .refused(.seqJump(seq: record.seq, highest: device.seen.highest))
        }
        device.seen.insert(record.seq)
        device.records += 1
        device.lastAt = max(device.lastAt ?? record.at, record.at)
        switch record.event {
        case let .earn(ms, _, _):
            device.earned += ms
        case let .spend(debit, used):
            device.spent += debit
            for (group, ms) in used { usage[record.day, default: [:]][group.lowercased(), default: 0] += ms }
        case let .block(target, until):
            noteBlock(target, at: record.at, until: until)
        case let .unblock(target):
            noteBlock(target, at: record.at, until: nil)
        case .pass:
            break
        }
        devices[record.device] = device
        // In place: a copy taken out and put back would copy the whole table each record.
        if contents[record.device]?.count ?? 0 >= Self.contentsKept { contents[record.device]?.removeAll(keepingCapacity: true) }
        contents[record.device, default: [:]][record.seq] = record.event
        return .counted
    }

    private mutating func noteBlock(_ target: String, at: WallInstant, until: WallInstant?) {
        let key = target.lowercased()
        if let newest = blocks[key], newest.at > at { return }
        blocks[key] = SyncTotals.BlockWord(at: at, until: until)
    }

    /// The other devices' blocks still running at `now`, as the policy takes them.
    public func timedBlocks(activeAt now: WallInstant) -> [TimedBlock] {
        SyncTotals().timedBlocks(with: blocks, activeAt: now)
    }
}
