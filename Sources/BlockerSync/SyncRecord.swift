import BlockerCore
import BlockerJSON

// One balance on every machine (issue 25): each device appends what it did to
// a log of its own in a folder a sync engine (Syncthing) keeps in step, and
// reads the others'. This file and SyncMerge.swift are the pure part: a
// record, its line in the log, reading a log back whatever state the copy is
// in, and the merge. SyncFolder.swift is the I/O: the device id, this
// device's log written whole, the others' read as they change.

/// A device's id: made once and kept in its state directory; 16 lowercase hex
/// digits (64 random bits), the name of its log in the folder.
public struct DeviceID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let text: String

    public init?(_ text: String) {
        guard text.utf8.count == 16, text.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else {
            return nil
        }
        self.text = text
    }

    public var description: String { text }
    public static func < (a: Self, b: Self) -> Bool { a.text < b.text }
}

/// What a device did, once: the unit the others merge by `(device, seq)`.
public struct SyncRecord: Equatable, Sendable {
    public enum Event: Equatable, Sendable {
        /// Minutes earned (an earning as the ledger keeps it).
        case earn(Milliseconds, exercise: String, reps: Int)
        /// The balance spent (`debit`) and each group's use (`usage`, for
        /// daily limits), over a stretch ending at the record's instant.
        case spend(debit: Milliseconds, usage: [String: Milliseconds])
        /// `blockerctl block TARGET` until an instant; `unblock` ends it.
        case block(target: String, until: WallInstant)
        case unblock(target: String)
        /// An emergency pass of a group, until an instant.
        case pass(group: String, until: WallInstant)
    }

    public var device: DeviceID
    /// 1, 2, 3…: one more for each record the device writes.
    public var seq: UInt64
    /// The device's local day the record counts on (a daily limit's day).
    public var day: CivilDate
    public var at: WallInstant
    public var event: Event

    public init(device: DeviceID, seq: UInt64, day: CivilDate, at: WallInstant, event: Event) {
        self.device = device
        self.seq = seq
        self.day = day
        self.at = at
        self.event = event
    }
}

/// A record as one line of a device's log: its JSON, a space, the CRC-32 of
/// the JSON in 8 hex digits, a newline. Written whole and fsync'd: a line
/// without its newline is a copy still coming (a torn tail), never a record.
public enum SyncLine {
    /// The format's version, `"v"`: a reader refuses any other (a newer blocker's record).
    public static let version: Int64 = 1
    /// No record is longer: a longer line is refused without being parsed.
    public static let maximumBytes = 4096

    public static func encode(_ record: SyncRecord) -> [UInt8] {
        var fields: [(String, JSONValue)] = [
            ("v", .integer(version)), ("device", .string(record.device.text)), ("seq", .integer(Int64(record.seq))),
            ("day", .string(record.day.description)), ("at_ms", .integer(record.at.ms)),
        ]
        switch record.event {
        case let .earn(ms, exercise, reps):
            fields += [("kind", .string("earn")), ("ms", .integer(ms.ms)), ("exercise", .string(exercise)),
                       ("reps", .integer(Int64(reps)))]
        case let .spend(debit, usage):
            fields += [("kind", .string("spend")), ("ms", .integer(debit.ms)),
                       ("usage", .object(usage.sorted { $0.key < $1.key }.map { ($0.key, .integer($0.value.ms)) }))]
        case let .block(target, until):
            fields += [("kind", .string("block")), ("target", .string(target)), ("until_ms", .integer(until.ms))]
        case let .unblock(target):
            fields += [("kind", .string("unblock")), ("target", .string(target))]
        case let .pass(group, until):
            fields += [("kind", .string("pass")), ("group", .string(group)), ("until_ms", .integer(until.ms))]
        }
        let json = Array(JSONValue.object(fields).rendered.utf8)
        return json + Array(" \(hex8(CRC32.of(json)))\n".utf8)
    }

    /// Why a complete line is not a record.
    public enum Refusal: Error, Equatable, Sendable, CustomStringConvertible {
        case tooLong(Int)
        case badChecksum
        case notARecord(String)
        case foreignVersion(Int64)

        public var description: String {
            switch self {
            case let .tooLong(bytes): "a line of \(bytes) bytes, over \(SyncLine.maximumBytes)"
            case .badChecksum: "its checksum does not match (damaged, or edited by hand)"
            case let .notARecord(why): "not a record: \(why)"
            case let .foreignVersion(version): "format version \(version), not \(SyncLine.version) (a newer blocker wrote it)"
            }
        }
    }

    /// One complete line (its newline taken off) → its record.
    public static func decode(_ line: ArraySlice<UInt8>) -> Result<SyncRecord, Refusal> {
        guard line.count <= maximumBytes else { return .failure(.tooLong(line.count)) }
        guard line.count > 9, let space = line.lastIndex(of: 0x20), line.endIndex - space == 9 else {
            return .failure(.notARecord("no checksum at its end"))
        }
        let json = line[line.startIndex..<space]
        guard String(decoding: line[(space + 1)...], as: UTF8.self) == hex8(CRC32.of(json)) else {
            return .failure(.badChecksum)
        }
        guard let value = try? JSONReader.value(json, limits: .init(maxBytes: maximumBytes, maxDepth: 3)) else {
            return .failure(.notARecord("its JSON does not read"))
        }
        guard let version = value["v"]?.integer else { return .failure(.notARecord("no version")) }
        guard version == Self.version else { return .failure(.foreignVersion(version)) }
        guard let device = value["device"]?.string.flatMap(DeviceID.init), let seqValue = value["seq"]?.integer,
              seqValue > 0, let day = value["day"]?.string.flatMap(CivilDate.init(iso:)), let at = value["at_ms"]?.integer,
              let kind = value["kind"]?.string else {
            return .failure(.notARecord("device, seq, day, at_ms or kind missing or malformed"))
        }
        let event: SyncRecord.Event
        let ms = value["ms"]?.integer
        switch kind {
        case "earn":
            guard let ms, ms >= 0, let exercise = value["exercise"]?.string, let reps = value["reps"]?.integer,
                  reps >= 0, reps <= Int64(Int32.max) else {
                return .failure(.notARecord("an earning without ms, exercise or reps"))
            }
            event = .earn(Milliseconds(ms: ms), exercise: exercise, reps: Int(reps))
        case "spend":
            guard let ms, ms >= 0, let members = value["usage"]?.members else {
                return .failure(.notARecord("a spending without ms or usage"))
            }
            var usage: [String: Milliseconds] = [:]
            for (group, used) in members {
                guard let used = used.integer, used >= 0 else { return .failure(.notARecord("a group's use is not ms")) }
                usage[group, default: 0] += Milliseconds(ms: used)
            }
            event = .spend(debit: Milliseconds(ms: ms), usage: usage)
        case "block", "pass":
            let name = value[kind == "block" ? "target" : "group"]?.string
            guard let name, let until = value["until_ms"]?.integer else {
                return .failure(.notARecord("a \(kind) without its \(kind == "block" ? "target" : "group") or until_ms"))
            }
            event = kind == "block" ? .block(target: name, until: WallInstant(ms: until))
                                    : .pass(group: name, until: WallInstant(ms: until))
        case "unblock":
            guard let target = value["target"]?.string else { return .failure(.notARecord("an unblock without its target")) }
            event = .unblock(target: target)
        default:
            return .failure(.notARecord("the kind \"\(kind.prefix(40))\""))
        }
        return .success(SyncRecord(device: device, seq: UInt64(seqValue), day: day, at: WallInstant(ms: at), event: event))
    }

    static func hex8(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }
}

/// CRC-32 (IEEE 802.3, as zlib's `crc32`): a torn or edited line is told
/// from a whole one. Not a seal: anyone can recompute it.
public enum CRC32 {
    static let table: [UInt32] = (0..<256).map { byte in
        (0..<8).reduce(UInt32(byte)) { crc, _ in crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
    }

    public static func of<Bytes: Collection>(_ bytes: Bytes) -> UInt32 where Bytes.Element == UInt8 {
        ~bytes.reduce(~UInt32(0)) { crc, byte in table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
    }
}
