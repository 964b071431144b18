import BlockerCore
import BlockerSystem
import Glibc

/// The folder a sync engine keeps in step between the user's machines: this
/// device writes its own log there and nothing else, and reads the others'.
/// A log is `DEVICE.SEGMENT.log` (`0123456789abcdef.000001.log`): a segment
/// is closed once it passes `segmentBytes`, so no file grows without bound
/// and the engine copies only the newest one again. The I/O of this target;
/// what a line means and how logs merge is `SyncRecord` and `SyncMerge`.
public enum SyncFolder {
    public static let segmentBytes = 4 << 20

    public static func logName(_ device: DeviceID, segment: Int) -> String {
        let digits = String(segment)
        return "\(device.text).\(String(repeating: "0", count: max(0, 6 - digits.count)))\(digits).log"
    }

    /// Whose log `name` is, and which segment; nil for anything else in the
    /// folder (an engine's temporary or conflict copy, a user's note).
    public static func parseLogName(_ name: String) -> (device: DeviceID, segment: Int)? {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[2] == "log", parts[1].count == 6, parts[1].allSatisfy(\.isASCII),
              let segment = Int(parts[1]), segment >= 1, let device = DeviceID(String(parts[0])) else { return nil }
        return (device, segment)
    }

    /// The logs in `folder`: each device's segments, in order.
    public static func logs(in folder: String) throws(SyncFolderError) -> [DeviceID: [(segment: Int, name: String)]] {
        guard let directory = opendir(folder) else { throw SyncFolderError(folder, "cannot read the folder", .current) }
        defer { closedir(directory) }
        var logs: [DeviceID: [(segment: Int, name: String)]] = [:]
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if let (device, segment) = parseLogName(name) { logs[device, default: []].append((segment, name)) }
        }
        return logs.mapValues { $0.sorted { $0.segment < $1.segment } }
    }

    /// The size of the file at `path`; nil when there is none.
    static func size(_ path: String) -> Int? {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : nil
    }
}

/// What went wrong with the sync folder or the device id: the path, what
/// blocker was doing, and why.
public struct SyncFolderError: Error, Equatable, Sendable, CustomStringConvertible {
    public var path: String
    public var action: String
    public var reason: String

    init(_ path: String, _ action: String, _ errno: Errno) {
        self.init(path, action, reason: errno.description)
    }

    public init(_ path: String, _ action: String, reason: String) {
        self.path = path
        self.action = action
        self.reason = reason
    }

    public var description: String { "\(path): \(action): \(reason)" }
}

/// This device's id: made once (64 bits from /dev/urandom) and kept in a file
/// of the state directory, so it outlives a reinstall of the same home.
public enum DeviceIdentity {
    public static func loadOrCreate(at path: String) throws(SyncFolderError) -> DeviceID {
        if let existing = try read(path) { return existing }
        let random: [UInt8]
        do { random = try FileContents.prefix(atPath: "/dev/urandom", count: 8) } catch {
            throw SyncFolderError("/dev/urandom", "cannot make a device id", error)
        }
        let text = random.map { byte in
            let digits = String(byte, radix: 16)
            return digits.count == 1 ? "0" + digits : digits
        }.joined()
        guard let id = DeviceID(text) else { throw SyncFolderError(path, "cannot make a device id", reason: "bad random bytes") }
        do {
            try FileContents.replace(atPath: path, with: Array((text + "\n").utf8))
        } catch {
            throw SyncFolderError(path, "cannot keep the device id", error)
        }
        return id
    }

    private static func read(_ path: String) throws(SyncFolderError) -> DeviceID? {
        let bytes: [UInt8]
        do { bytes = try FileContents.prefix(atPath: path, count: 64) } catch {
            if error == Errno(rawValue: ENOENT) { return nil }
            throw SyncFolderError(path, "cannot read the device id", error)
        }
        let text = String(decoding: bytes, as: UTF8.self).trimmingNewline
        guard let id = DeviceID(text) else {
            throw SyncFolderError(path, "cannot read the device id",
                                  reason: "it is not 16 lowercase hex digits; remove the file to make a new id")
        }
        return id
    }
}

extension String {
    fileprivate var trimmingNewline: String { hasSuffix("\n") ? String(dropLast()) : self }
}

/// Appends this device's records to its log: each line written whole and
/// fsync'd before `append` returns. The log is its own truth for the next
/// seq: at open the newest segment is read, and a torn last line (a crash
/// mid-write) cut off, since no other program writes it.
public final class SyncLogWriter {
    public let folder: String
    public let device: DeviceID
    /// The seq the next record gets.
    public private(set) var nextSeq: UInt64 = 1
    private var segment = 1
    private var segmentSize = 0
    private let segmentBytes: Int

    /// What the log has said so far, summed (every segment, read at open).
    public private(set) var said = SyncTotals()

    public init(folder: String, device: DeviceID, segmentBytes: Int = SyncFolder.segmentBytes) throws(SyncFolderError) {
        self.folder = folder
        self.device = device
        self.segmentBytes = segmentBytes
        let segments = try SyncFolder.logs(in: folder)[device] ?? []
        for (index, (number, name)) in segments.enumerated() {
            let path = folder + "/" + name
            let bytes: [UInt8]
            do { bytes = try FileContents.prefix(atPath: path, count: SyncFolder.size(path) ?? 0) } catch {
                throw SyncFolderError(path, "cannot read this device's log", error)
            }
            let read = SyncLogRead.read(bytes, device: device)
            if let refused = read.refused.first {
                throw SyncFolderError(path, "this device's log is damaged", reason: "\(refused); move the file away "
                                      + "to start a new log (the other devices keep what they read of it)")
            }
            for record in read.records { said.add(record) }
            // Seqs only grow, segment after segment: the newest holds the highest.
            if let last = read.records.last { nextSeq = max(nextSeq, last.seq + 1) }
            guard index == segments.count - 1 else { continue }
            segment = number
            segmentSize = bytes.count - read.tornTail
            if read.tornTail > 0 && truncate(path, off_t(segmentSize)) != 0 {
                throw SyncFolderError(path, "cannot cut the torn last line of this device's log", .current)
            }
        }
    }

    private var path: String { folder + "/" + SyncFolder.logName(device, segment: segment) }

    /// Writes `event` as this device's next record, whole and synced.
    @discardableResult
    public func append(_ event: SyncRecord.Event, day: CivilDate, at: WallInstant) throws(SyncFolderError) -> SyncRecord {
        let record = SyncRecord(device: device, seq: nextSeq, day: day, at: at, event: event)
        let line = SyncLine.encode(record)
        if segmentSize > 0 && segmentSize + line.count > segmentBytes {
            segment += 1
            segmentSize = 0
        }
        let path = self.path
        let created = segmentSize == 0
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard fd >= 0 else { throw SyncFolderError(path, "cannot open this device's log", .current) }
        let file = FileDescriptor(rawValue: fd)
        defer { file.close() }
        do throws(Errno) {
            try file.writeAll(line)
            guard fsync(fd) == 0 else { throw Errno.current }
        } catch {
            // No half line stays behind to spoil the next one.
            _ = ftruncate(fd, off_t(segmentSize))
            throw SyncFolderError(path, "cannot write this device's log", error)
        }
        if created { syncDirectory() }
        segmentSize += line.count
        nextSeq += 1
        said.add(record)
        return record
    }

    /// A new file's name is on disk too once its first record is.
    private func syncDirectory() {
        let fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        close(fd)
    }
}

/// Reads the other devices' logs as they change and merges them: each file
/// from where the last read stopped (a whole line at a time; a copy still
/// coming is read once it is complete). A file that shrank (an engine put an
/// older or rewritten copy in place) is read again from its start: the merge
/// counts each `(device, seq)` once.
public final class SyncFolderReader {
    public let folder: String
    public private(set) var merge: SyncMerge
    /// Readable when the folder changed (nil: it could not be watched; read on a timer).
    public var eventDescriptor: Int32? { watch?.descriptor }
    private let watch: Inotify?
    private var files: [String: FileState] = [:]
    /// At most this much is read of a file at once.
    static let chunkBytes = 1 << 20

    private struct FileState {
        var offset = 0
        var lines = 0
        /// A line longer than any record: its bytes are dropped up to its newline.
        var skippingLongLine = false
    }

    /// A line or record refused, for the journal.
    public struct Refused: Equatable, Sendable, CustomStringConvertible {
        public var file: String
        public var line: Int
        public var reason: SyncMerge.Refusal
        public var description: String { "\(file), line \(line): \(reason)" }
    }

    public init(folder: String, own: DeviceID) throws(SyncFolderError) {
        self.folder = folder
        merge = SyncMerge(own: own)
        do {
            let watch = try Inotify()
            try watch.watchDirectory(folder)
            self.watch = watch
        } catch {
            throw SyncFolderError(folder, "cannot watch the folder", error)
        }
    }

    /// Reads what is new in every other device's log; what was refused.
    public func readNew() throws(SyncFolderError) -> [Refused] {
        watch?.drain()
        var refused: [Refused] = []
        for (device, segments) in try SyncFolder.logs(in: folder).sorted(by: { $0.key < $1.key }) where device != merge.own {
            for (_, name) in segments { refused += read(name, device: device) }
        }
        return refused
    }

    private func read(_ name: String, device: DeviceID) -> [Refused] {
        let path = folder + "/" + name
        guard let size = SyncFolder.size(path) else { return [] }
        var state = files[name] ?? FileState()
        if size < state.offset { state = FileState() }
        var refused: [Refused] = []
        defer { files[name] = state }
        guard size > state.offset, let file = try? FileDescriptor.open(readingFrom: path) else { return [] }
        defer { file.close() }
        while state.offset < size {
            var chunk = [UInt8](repeating: 0, count: min(Self.chunkBytes, size - state.offset))
            let count = chunk.withUnsafeMutableBytes { pread(file.rawValue, $0.baseAddress, $0.count, off_t(state.offset)) }
            guard count > 0 else { break }
            chunk.removeSubrange(count...)
            if state.skippingLongLine {
                guard let newline = chunk.firstIndex(of: 0x0A) else { state.offset += count; continue }
                state.offset += newline + 1
                state.skippingLongLine = false
                continue
            }
            let read = SyncLogRead.read(chunk, device: device)
            for line in read.refused {
                refused.append(Refused(file: name, line: state.lines + line.line, reason: line.reason))
            }
            for (record, line) in zip(read.records, read.recordLines) {
                if case let .refused(reason) = merge.merge(record) {
                    refused.append(Refused(file: name, line: state.lines + line, reason: reason))
                }
            }
            state.lines += read.records.count + read.refused.count
            state.offset += count - read.tornTail
            if read.tornTail > SyncLine.maximumBytes {
                state.lines += 1
                refused.append(Refused(file: name, line: state.lines, reason: .line(.tooLong(read.tornTail))))
                state.offset += read.tornTail
                state.skippingLongLine = true
            } else if read.tornTail > 0 && state.offset + read.tornTail >= size {
                break   // the last line is still coming: read once it ends
            }
        }
        return refused
    }
}
