import BlockerSystem

/// Facts about other processes, from /proc.
public enum ProcFS {
    /// Basename of /proc/PID/exe (`firefox-esr`), or nil when unreadable
    /// (another user's process, or gone).
    public static func executableName(pid: Int32) -> String? {
        ProcessExecutable.of(pid: pid)?.name
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
