import Foundation
import Glibc

/// Processes found by a marker (`NAME=value`) in their environment: what a
/// server a test started under another user spawned, wherever it re-parented.
public enum MarkedProcesses {
    /// Every process but this one whose environment holds `marker`.
    public static func find(_ marker: String) -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        let needle = Data(marker.utf8)
        return entries.compactMap { pid_t($0) }.filter { pid in
            guard pid != getpid(), let environ = FileManager.default.contents(atPath: "/proc/\(pid)/environ") else { return false }
            return environ.split(separator: 0).contains { Data($0) == needle }
        }
    }

    /// SIGKILLs them, by PID, until none is left (up to a second).
    public static func kill(_ marker: String) {
        for _ in 0..<50 {
            let left = find(marker)
            if left.isEmpty { return }
            left.forEach { Glibc.kill($0, SIGKILL) }
            usleep(20_000)
        }
    }
}
