import Glibc

/// Facts about other processes, from /proc.
public enum ProcFS {
    /// Basename of /proc/PID/exe (`firefox-esr`), or nil when unreadable
    /// (another user's process, or gone).
    public static func executableName(pid: Int32) -> String? {
        guard pid > 0 else { return nil }
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/\(pid)/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        let path = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        // A replaced binary reads as "/usr/bin/x (deleted)".
        let name = path.split(separator: "/").last.map(String.init) ?? path
        return name.hasSuffix(" (deleted)") ? String(name.dropLast(10)) : name
    }
}

/// The executable of the window in front, read once per pid: the same window
/// is sampled every second, and its process does not change under it.
final class ExecutableNameCache {
    private var last: (pid: Int32, name: String?)?

    func name(pid: Int32) -> String? {
        if let last, last.pid == pid { return last.name }
        let name = ProcFS.executableName(pid: pid)
        last = (pid, name)
        return name
    }
}
