import BlockerSystem
import Glibc

/// One daemon per state directory: an flock on `blockerd.lock`, which holds
/// the owner's pid so a second daemon can name it. The kernel drops the lock
/// when the process dies, even by SIGKILL.
public final class StateLock {
    public let path: String
    private let fd: Int32

    public struct Held: Error, CustomStringConvertible, Sendable {
        public let path: String
        public let pid: Int32?
        public var description: String {
            let who = pid.map { "pid \($0)" } ?? "another process"
            return "blockerd is already running (\(who)) on \(path); stop it first: systemctl --user stop blockerd"
        }
    }

    public struct Failed: Error, CustomStringConvertible, Sendable {
        public let path: String
        public let errno: Errno
        /// The name is taken by a symlink, a FIFO, a directory…: nothing blockerd created.
        public var notRegular = false
        public var description: String {
            if notRegular {
                return "cannot lock \(path): it is not a regular file (a symlink or another kind of file); "
                    + "nothing was written to it; remove it if it is not yours: rm \(path)"
            }
            return "cannot lock \(path): \(errno)"
        }
    }

    public init(directory: String) throws(StateLockError) {
        path = directory + "/blockerd.lock"
        try Self.makeDirectory(directory)
        // O_NOFOLLOW: a symlink planted at this name must not get another
        // file truncated and overwritten with our pid.
        let fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            let code = Errno.current
            throw .failed(Failed(path: path, errno: code, notRegular: code == .tooManySymbolicLinkLevels))
        }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            throw .failed(Failed(path: path, errno: .invalidArgument, notRegular: true))
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let holder = StateLock.readPid(fd)
            close(fd)
            throw .held(Held(path: directory, pid: holder))
        }
        self.fd = fd
        let pid = Array("\(getpid())\n".utf8)
        ftruncate(fd, 0)
        _ = pwrite(fd, pid, pid.count, 0)
    }

    deinit {
        close(fd)
    }

    /// `mkdir -p` with 0700 for what it creates: the ledger is nobody else's business.
    private static func makeDirectory(_ directory: String) throws(StateLockError) {
        var partial = directory.hasPrefix("/") ? "" : "."
        for component in directory.split(separator: "/") {
            partial += "/" + component
            if mkdir(partial, 0o700) != 0 && Errno.current != .fileExists {
                throw .failed(Failed(path: partial, errno: .current))
            }
        }
    }

    private static func readPid(_ fd: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let n = pread(fd, &buffer, buffer.count, 0)
        guard n > 0 else { return nil }
        return Int32(String(decoding: buffer[0..<n], as: UTF8.self).filter(\.isNumber))
    }
}

public enum StateLockError: Error, CustomStringConvertible, Sendable {
    case held(StateLock.Held)
    case failed(StateLock.Failed)
    public var description: String {
        switch self {
        case let .held(e): e.description
        case let .failed(e): e.description
        }
    }
}
