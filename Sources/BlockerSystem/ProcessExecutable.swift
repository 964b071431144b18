import Glibc

/// The program a process runs, from /proc/PID/exe: what blockerd goes by to
/// tell its own cover from a window or a bus name anybody can choose.
public struct ProcessExecutable: Equatable, Sendable {
    /// The file's path as the kernel resolved it (symlinks followed; a
    /// replaced binary's " (deleted)" taken off).
    public var path: String
    /// The file's owner and mode bits (`st_uid`, `st_mode`), when it can still be stat'ed.
    public var ownerUID: UInt32?
    public var mode: UInt32?

    public init(path: String, ownerUID: UInt32? = nil, mode: UInt32? = nil) {
        self.path = path
        self.ownerUID = ownerUID
        self.mode = mode
    }

    /// The basename: `firefox-esr`.
    public var name: String { path.split(separator: "/").last.map(String.init) ?? path }

    /// The executable of `pid`, or nil when it cannot be read (another
    /// user's process, or gone).
    public static func of(pid: Int32) -> ProcessExecutable? {
        guard pid > 0 else { return nil }
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/\(pid)/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        var path = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if path.hasSuffix(" (deleted)") { path = String(path.dropLast(10)) }
        // Stat'ed through /proc: the file the process runs, even when its path
        // now names another one (or, in a chroot, means something else here).
        var info = stat()
        guard stat("/proc/\(pid)/exe", &info) == 0 else { return ProcessExecutable(path: path) }
        return ProcessExecutable(path: path, ownerUID: info.st_uid, mode: info.st_mode)
    }

    /// This process's own executable.
    public static var current: ProcessExecutable? { of(pid: getpid()) }

    /// The process that started `pid` (`/proc/PID/stat`'s fourth field, read
    /// after the last ")": a program's name may hold spaces and parentheses);
    /// nil when it is gone.
    public static func parent(of pid: Int32) -> Int32? {
        guard pid > 0, let bytes = try? FileContents.read(atPath: "/proc/\(pid)/stat", limit: 4096) else { return nil }
        let stat = String(decoding: bytes, as: UTF8.self)
        guard let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 1, let parent = Int32(fields[1]), parent > 0 else { return nil }
        return parent
    }
}
