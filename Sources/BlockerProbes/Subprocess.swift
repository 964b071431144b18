import BlockerSystem
import Glibc

/// Runs a program (argv, never a shell) and collects its stdout, killing it
/// when it outlives its deadline.
public enum Subprocess {
    public struct Output: Sendable {
        public var status: Int32      // exit code, or 128+signal
        public var stdout: [UInt8]
    }

    public enum Failure: Error, Equatable, Sendable, CustomStringConvertible {
        case cannotStart(String, errno: Int32)
        case timedOut(ms: Int64)
        case tooMuchOutput(limit: Int)

        public var description: String {
            switch self {
            case let .cannotStart(program, errno): "cannot run \(program): \(Errno(rawValue: errno))"
            case let .timedOut(ms): "did not answer within \(ms) ms and was killed"
            case let .tooMuchOutput(limit): "printed more than \(limit) bytes"
            }
        }
    }

    /// Runs `argv` (see `spawn`) and collects its stdout.
    public static func run(_ argv: [String], timeoutMs: Int64, outputLimit: Int = 65_536) -> Result<Output, Failure> {
        guard let program = argv.first else { return .failure(.cannotStart("(empty command)", errno: EINVAL)) }
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return .failure(.cannotStart(program, errno: errno)) }
        let (readEnd, writeEnd) = (fds[0], fds[1])
        // Not inherited by other children; dup2 onto fd 1 clears it for this one.
        _ = fcntl(readEnd, F_SETFD, FD_CLOEXEC)
        _ = fcntl(writeEnd, F_SETFD, FD_CLOEXEC)

        let spawned = spawn(argv, passing: writeEnd, as: 1)
        close(writeEnd)
        guard case let .success(pid) = spawned else {
            close(readEnd)
            if case let .failure(failure) = spawned { return .failure(failure) }
            return .failure(.cannotStart(program, errno: EINVAL))
        }
        defer { close(readEnd) }

        let deadline = MonotonicClock.nowMs + timeoutMs
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        var failure: Failure?
        reading: while true {
            let left = deadline - MonotonicClock.nowMs
            if left <= 0 { failure = .timedOut(ms: timeoutMs); break }
            var pfd = pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&pfd, 1, Int32(left))
            if ready < 0 && errno == EINTR { continue }
            if ready == 0 { failure = .timedOut(ms: timeoutMs); break }
            let n = (try? retryOnInterrupt { read(readEnd, &chunk, chunk.count) }) ?? -1
            if n <= 0 { break reading }
            output += chunk[0..<n]
            if output.count > outputLimit { failure = .tooMuchOutput(limit: outputLimit); break }
        }
        // stdout is closed (or we gave up): reap the child, killing it past the deadline.
        var status: Int32 = 0
        while failure == nil {
            let r = waitpid(pid, &status, WNOHANG)
            if r == pid { return .success(Output(status: exitCode(status), stdout: output)) }
            if r < 0 && errno != EINTR { return .success(Output(status: -1, stdout: output)) }
            if MonotonicClock.nowMs >= deadline { failure = .timedOut(ms: timeoutMs); break }
            usleep(1000)
        }
        kill(pid, SIGKILL)
        _ = try? retryOnInterrupt { waitpid(pid, &status, 0) }
        return .failure(failure!)
    }

    /// Starts `argv` with `fd` as its descriptor `target`, stdin from
    /// /dev/null, stderr inherited, an empty signal mask and default handlers
    /// (the daemon blocks SIGTERM/SIGHUP for sd_event; its children must not).
    public static func spawn(_ argv: [String], passing fd: Int32, as target: Int32) -> Result<pid_t, Failure> {
        guard let program = argv.first else { return .failure(.cannotStart("(empty command)", errno: EINVAL)) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, fd, target)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for s in [SIGPIPE, SIGTERM, SIGHUP, SIGINT] { sigaddset(&defaults, s) }
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        var pid: pid_t = 0
        let cArgs = argv.map { strdup($0) } + [nil]
        defer { cArgs.forEach { free($0) } }
        let result = posix_spawnp(&pid, program, &actions, &attributes, cArgs, environ)
        return result == 0 ? .success(pid) : .failure(.cannotStart(program, errno: result))
    }

    private static func exitCode(_ status: Int32) -> Int32 {
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }
}
