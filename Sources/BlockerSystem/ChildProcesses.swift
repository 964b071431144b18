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

    /// How a child ended in `stop`.
    public struct Stopped: Equatable, Sendable {
        /// waitpid(2)'s status.
        public let status: Int32
        /// It exited within the grace time; false: it was killed.
        public let exitedInTime: Bool

        /// Its exit code, or 128 + the signal that ended it (as a shell says).
        public var exitCode: Int32 {
            let signal = status & 0x7f
            return signal == 0 ? (status >> 8) & 0xff : 128 + signal
        }
    }

    /// Stops the child `pid`: gives it `grace` to exit by itself (checked
    /// every 1 ms at first, backing off to every 10 ms), then sends SIGKILL
    /// and reaps it, so no zombie stays behind. With `group` the SIGKILL goes
    /// to its whole process group (`pid` leads it) even when it exited in
    /// time: what it left running goes too (the group id stays taken while
    /// any member lives). No SIGTERM: each caller has told the child to go
    /// (closed its stdout or its socket) before calling this.
    @discardableResult
    public static func stop(_ pid: pid_t, grace: Milliseconds, group: Bool) -> Stopped {
        var status: Int32 = 0
        var exited = false
        let deadline = Deadline.after(grace)
        var stepUs: UInt32 = 1_000
        while true {
            let reaped = waitpid(pid, &status, WNOHANG)
            // ECHILD: someone else reaped it (a subreaper's reapExited).
            if reaped == pid || (reaped < 0 && Errno.current != .interrupted) { exited = true; break }
            if deadline.hasPassed { break }
            usleep(stepUs)
            stepUs = min(stepUs * 2, 10_000)
        }
        if group { kill(-pid, SIGKILL) } else if !exited { kill(pid, SIGKILL) }
        if !exited { _ = try? retryOnInterrupt { waitpid(pid, &status, 0) } }
        return Stopped(status: status, exitedInTime: exited)
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
