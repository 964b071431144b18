import CLinux
import Glibc

/// This process as a parent of other programs.
public enum ChildProcesses {
    /// Orphans of our children (a grandchild whose parent exited) become our
    /// children, so we can reap them instead of leaving them to the service
    /// manager. The corresponding C call is prctl(PR_SET_CHILD_SUBREAPER, 1).
    public static func becomeSubreaper() throws(Errno) {
        guard clinux_become_child_subreaper() == 0 else { throw Errno.current }
    }

    /// Reaps every child that has exited, without waiting for the others.
    public static func reapExited() {
        var status: Int32 = 0
        while waitpid(-1, &status, WNOHANG) > 0 {}
    }
}
