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

/// One descriptor for several: readable when any of them is (an epoll set),
/// for a loop that watches one fd per source.
public enum ReadableSet {
    /// The corresponding C calls are epoll_create1(EPOLL_CLOEXEC) and epoll_ctl(EPOLL_CTL_ADD, EPOLLIN).
    public static func make(watching fds: [Int32]) throws(Errno) -> Int32 {
        let set = fds.withUnsafeBufferPointer { clinux_epoll_of_readable($0.baseAddress, Int32($0.count)) }
        guard set >= 0 else { throw Errno.current }
        return set
    }
}

/// A pipe whose ends are close-on-exec from the moment they exist (no window
/// in which a program spawned by another thread inherits them, keeping the
/// write end open and the reader from ever seeing EOF).
public enum Pipe {
    /// (read end, write end). The corresponding C call is pipe2(O_CLOEXEC).
    public static func make() throws(Errno) -> (read: Int32, write: Int32) {
        var fds: [Int32] = [-1, -1]
        guard clinux_pipe_cloexec(&fds) == 0 else { throw Errno.current }
        return (fds[0], fds[1])
    }
}
