import Glibc

/// A file descriptor opened by this module, as swift-system's
/// `FileDescriptor`: a plain value, so `close()` it exactly once.
public struct FileDescriptor: RawRepresentable, Hashable, Sendable {
    /// The corresponding C value is the descriptor number.
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// open(2) with O_RDONLY | O_CLOEXEC. A directory opens; reading it fails with EISDIR.
    public static func open(readingFrom path: String) throws(Errno) -> FileDescriptor {
        FileDescriptor(rawValue: try retryOnInterrupt { Glibc.open(path, O_RDONLY | O_CLOEXEC) })
    }

    /// One read(2) of at most `count` bytes; empty at the end of the file.
    public func read(upTo count: Int) throws(Errno) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: count)
        let n = try retryOnInterrupt {
            buffer.withUnsafeMutableBytes { Glibc.read(rawValue, $0.baseAddress, $0.count) }
        }
        buffer.removeSubrange(n...)
        return buffer
    }

    /// write(2) until all of `bytes` is written.
    public func writeAll(_ bytes: [UInt8]) throws(Errno) {
        var offset = 0
        while offset < bytes.count {
            offset += try retryOnInterrupt {
                bytes.withUnsafeBytes { Glibc.write(rawValue, $0.baseAddress! + offset, $0.count - offset) }
            }
        }
    }

    public func close() {
        _ = Glibc.close(rawValue)
    }
}

/// Whole small files (a config, a time zone, a file header), read in one go.
public enum FileContents {
    /// Why a file could not be read.
    public enum Failure: Error, Equatable, Sendable, CustomStringConvertible {
        /// open(2) or read(2) failed: ENOENT, EACCES, EISDIR (a directory)…
        case system(Errno)
        /// The file holds more than `limit` bytes.
        case tooLarge(limit: Int)

        public var description: String {
            switch self {
            case let .system(code): code.description
            case let .tooLarge(limit): "larger than \(limit) bytes"
            }
        }
    }

    /// Every byte of the file at `path`. Stops as soon as more than `limit`
    /// bytes came, so a path like /dev/zero fails instead of eating memory.
    public static func read(atPath path: String, limit: Int) throws(Failure) -> [UInt8] {
        let file: FileDescriptor
        do { file = try FileDescriptor.open(readingFrom: path) } catch { throw .system(error) }
        defer { file.close() }
        var contents: [UInt8] = []
        while true {
            let chunk: [UInt8]
            do { chunk = try file.read(upTo: 64 * 1024) } catch { throw .system(error) }
            if chunk.isEmpty { return contents }
            contents += chunk
            if contents.count > limit { throw .tooLarge(limit: limit) }
        }
    }

    /// The first `count` bytes of the file at `path`, fewer when it is shorter.
    public static func prefix(atPath path: String, count: Int) throws(Errno) -> [UInt8] {
        let file = try FileDescriptor.open(readingFrom: path)
        defer { file.close() }
        var contents: [UInt8] = []
        while contents.count < count {
            let chunk = try file.read(upTo: count - contents.count)
            if chunk.isEmpty { break }
            contents += chunk
        }
        return contents
    }
}
