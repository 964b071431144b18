import Glibc

/// Runs a program (argv, never a shell) and collects its stdout, killing it
/// when it outlives its deadline.
public enum Subprocess {
    public struct Output: Sendable {
        public var status: Int32      // exit code, or 128+signal
        public var stdout: [UInt8]
        /// The start of what it printed on stderr (at most `stderrKept` bytes):
        /// enough to say why it failed, never a flood into the journal.
        public var stderr: [UInt8] = []

        public init(status: Int32, stdout: [UInt8], stderr: [UInt8] = []) {
            self.status = status
            self.stdout = stdout
            self.stderr = stderr
        }

        /// The first line of stderr, trimmed to 200 characters; nil when it printed none.
        public var stderrLine: String? {
            let isBlank = { (b: UInt8) in b == 0x20 || b == 0x09 || b == 0x0D }
            guard let first = stderr.split(separator: 0x0A).first(where: { !$0.allSatisfy(isBlank) }) else { return nil }
            let start = first.firstIndex { !isBlank($0) }!, end = first.lastIndex { !isBlank($0) }!
            let line = String(decoding: first[start...end], as: UTF8.self)
            return line.count > 200 ? String(line.prefix(200)) + "…" : line
        }
    }

    /// How much of a program's stderr is kept; the rest is read and dropped.
    public static let stderrKept = 1024

    public enum Failure: Error, Equatable, Sendable, CustomStringConvertible {
        case cannotStart(String, errno: Errno)
        case timedOut(ms: Milliseconds)
        case tooMuchOutput(limit: Int)

        public var description: String {
            switch self {
            case let .cannotStart(program, errno): "cannot run \(program): \(errno)"
            case let .timedOut(ms): "did not answer within \(ms) ms and was killed"
            case let .tooMuchOutput(limit): "printed more than \(limit) bytes"
            }
        }
    }

    /// Runs `argv` (see `spawn`) in a process group of its own and collects
    /// its stdout and the start of its stderr. Whatever happens, the whole
    /// group is killed before this returns, so a probe that forks a child
    /// (which may hold stdout open) leaves nothing running behind it.
    /// `cancelWhenHungUp`: a socket whose peer going away (blockerd stopping
    /// its probe launcher) ends the run at once, the program's group killed.
    public static func run(_ argv: [String], timeoutMs: Milliseconds, outputLimit: Int = 65_536,
                           cancelWhenHungUp peer: Int32? = nil) -> Result<Output, Failure> {
        guard !argv.isEmpty else { return .failure(.cannotStart("(empty command)", errno: .invalidArgument)) }
        let child: Capturing
        switch spawnCapturing(argv) {
        case let .success(started): child = started
        case let .failure(failure): return .failure(failure)
        }
        defer { close(child.stdout); close(child.stderr) }

        let deadline = Deadline.after(timeoutMs)
        var stdout: [UInt8] = [], stderr: [UInt8] = []
        var open: (out: Bool, err: Bool) = (true, true)
        var chunk = [UInt8](repeating: 0, count: 4096)
        var failure: Failure?
        while open.out {
            var pfds = [pollfd(fd: child.stdout, events: Int16(POLLIN), revents: 0),
                        pollfd(fd: open.err ? child.stderr : -1, events: Int16(POLLIN), revents: 0),
                        pollfd(fd: peer ?? -1, events: Int16(POLLIN), revents: 0)]
            guard (try? deadline.wait(for: &pfds)) == true else { failure = .timedOut(ms: timeoutMs); break }
            if pfds[2].revents != 0 { failure = .timedOut(ms: 0); break }
            if pfds[1].revents != 0 {
                let n = (try? retryOnInterrupt { read(child.stderr, &chunk, chunk.count) }) ?? -1
                if n <= 0 { open.err = false } else if stderr.count < stderrKept {
                    stderr += chunk[0..<min(n, stderrKept - stderr.count)]
                }
            }
            if pfds[0].revents != 0 {
                let n = (try? retryOnInterrupt { read(child.stdout, &chunk, chunk.count) }) ?? -1
                if n <= 0 { open.out = false; break }
                stdout += chunk[0..<n]
                if stdout.count > outputLimit { failure = .tooMuchOutput(limit: outputLimit); break }
            }
        }
        // stdout is closed (or we gave up): wait for the program itself, then
        // kill its group, so children it left behind go too.
        let stopped = ChildProcesses.stop(child.pid, grace: failure == nil ? Milliseconds(ms: Int64(deadline.pollTimeout)) : 0,
                                          group: true)
        if failure == nil && !stopped.exitedInTime { failure = .timedOut(ms: timeoutMs) }
        if let failure { return .failure(failure) }
        return .success(Output(status: stopped.exitCode, stdout: stdout, stderr: stderr))
    }

    /// A program started in a process group of its own (its pid), with
    /// its stdout and stderr on pipes whose read ends the caller closes.
    package struct Capturing {
        package let pid: pid_t
        package let stdout: Int32
        package let stderr: Int32
    }

    /// Starts `argv` for `run` and the streaming probe: pipes close-on-exec
    /// from birth, dup'ed onto fds 1 and 2 of this child only.
    package static func spawnCapturing(_ argv: [String]) -> Result<Capturing, Failure> {
        let program = argv.first ?? "(empty command)"
        let out: (read: Int32, write: Int32), err: (read: Int32, write: Int32)
        do throws(Errno) {
            out = try Pipe.make()
            do { err = try Pipe.make() } catch {
                close(out.read); close(out.write)
                throw error
            }
        } catch {
            return .failure(.cannotStart(program, errno: error))
        }
        let spawned = spawn(argv, passing: [(out.write, 1), (err.write, 2)], newProcessGroup: true)
        close(out.write); close(err.write)
        guard case let .success(pid) = spawned else {
            close(out.read); close(err.read)
            if case let .failure(failure) = spawned { return .failure(failure) }
            return .failure(.cannotStart(program, errno: .invalidArgument))
        }
        return .success(Capturing(pid: pid, stdout: out.read, stderr: err.read))
    }

    /// Starts `argv` with `fd` as its descriptor `target`, stdin from
    /// /dev/null, stderr inherited, an empty signal mask and default handlers
    /// (the daemon blocks SIGTERM/SIGHUP for sd_event; its children must not).
    public static func spawn(_ argv: [String], passing fd: Int32, as target: Int32) -> Result<pid_t, Failure> {
        spawn(argv, passing: [(fd, target)], newProcessGroup: false)
    }

    /// Starts `argv` with each `(fd, target)` dup'ed onto `target`; in a new
    /// process group (its pid) when asked, so the group can be killed whole.
    static func spawn(_ argv: [String], passing descriptors: [(Int32, Int32)],
                      newProcessGroup: Bool) -> Result<pid_t, Failure> {
        guard let program = argv.first else { return .failure(.cannotStart("(empty command)", errno: .invalidArgument)) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        for (fd, target) in descriptors { posix_spawn_file_actions_adddup2(&actions, fd, target) }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for s in [SIGPIPE, SIGTERM, SIGHUP, SIGINT, SIGUSR1, SIGUSR2, SIGALRM] { sigaddset(&defaults, s) }
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF
        if newProcessGroup {
            posix_spawnattr_setpgroup(&attributes, 0)
            flags |= POSIX_SPAWN_SETPGROUP
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))

        var pid: pid_t = 0
        let cArgs = argv.map { strdup($0) } + [nil]
        defer { cArgs.forEach { free($0) } }
        let result = posix_spawnp(&pid, program, &actions, &attributes, cArgs, environ)
        return result == 0 ? .success(pid) : .failure(.cannotStart(program, errno: Errno(rawValue: result)))
    }

}
