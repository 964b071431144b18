import BlockerSystem
import Glibc

/// Runs the command probe's program on the daemon's behalf from a helper
/// process started once (`blockerd --probe-launcher`), so the long-running
/// daemon does not pay for a fork and exec on every tick: it writes a request
/// and reads the answer. The helper enforces the probe's timeout itself; if
/// the helper hangs or dies it is killed and started again on the next sample.
public final class ProbeLauncher {
    /// A program that serves requests on fd 3 when given `--probe-launcher`.
    public let executable: String
    private var pid: pid_t = 0
    private var socket: Int32 = -1

    public init(executable: String) {
        self.executable = executable
    }

    deinit { stop() }

    /// The helper's pid while it runs (for tests and `ps`).
    public var helperPID: pid_t? { pid > 0 ? pid : nil }

    public func run(_ argv: [String], timeoutMs: Milliseconds) -> Result<Subprocess.Output, Subprocess.Failure> {
        if socket < 0, let failure = start() { return .failure(failure) }
        var request = Wire()
        request.u32(UInt32(clamping: timeoutMs.ms))
        request.u32(UInt32(argv.count))
        for arg in argv { request.bytes(Array(arg.utf8)) }
        // The helper answers within the probe's timeout; a second more is its own hang.
        guard Wire.send(request.data, to: socket),
              let reply = Wire.receive(from: socket, deadline: .after(timeoutMs + .seconds(1))) else {
            stop()
            return .failure(.cannotStart("the probe launcher (\(executable) --probe-launcher)", errno: .brokenPipe))
        }
        return Self.decode(reply)
    }

    private func start() -> Subprocess.Failure? {
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0 else {
            return .cannotStart("the probe launcher", errno: .current)
        }
        for fd in pair { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        switch Subprocess.spawn([executable, "--probe-launcher"], passing: pair[1], as: 3) {
        case let .success(child):
            pid = child
            socket = pair[0]
            close(pair[1])
            return nil
        case let .failure(failure):
            close(pair[0])
            close(pair[1])
            return failure
        }
    }

    /// Stops the helper (it is started again on the next run).
    public func stop() {
        // Closing the socket ends the helper's run: it kills the probe's
        // group and exits. SIGKILL is for a helper that does not.
        if socket >= 0 { close(socket) }
        socket = -1
        if pid > 0 { ChildProcesses.stop(pid, grace: 500, group: false) }
        pid = 0
    }

    // MARK: the helper's side

    /// `blockerd --probe-launcher`: runs each request on fd 3 with
    /// `Subprocess.run` and writes the answer back, until the daemon closes it.
    public static func serve(fd: Int32 = 3) -> Never {
        // Whatever a probe leaves behind (a child that escaped its group's
        // kill by setsid) is re-parented here and reaped after each run,
        // instead of piling up under the service manager.
        try? ChildProcesses.becomeSubreaper()
        while let request = Wire.receive(from: fd, deadline: nil) {
            var reader = Wire.Reader(data: request)
            guard let timeout = reader.u32(), let count = reader.u32() else { break }
            var argv: [String] = []
            for _ in 0..<count {
                guard let arg = reader.bytes() else { exit(2) }
                argv.append(String(decoding: arg, as: UTF8.self))
            }
            var reply = Wire()
            switch Subprocess.run(argv, timeoutMs: Milliseconds(ms: Int64(timeout)), cancelWhenHungUp: fd) {
            case let .success(output):
                reply.u32(0); reply.u32(UInt32(bitPattern: output.status)); reply.bytes(output.stdout); reply.bytes(output.stderr)
            case let .failure(.cannotStart(program, errno)): reply.u32(1); reply.u32(UInt32(bitPattern: errno.rawValue)); reply.bytes(Array(program.utf8))
            case let .failure(.timedOut(ms)): reply.u32(2); reply.u32(UInt32(clamping: ms.ms)); reply.bytes([])
            case let .failure(.tooMuchOutput(limit)): reply.u32(3); reply.u32(UInt32(clamping: limit)); reply.bytes([])
            }
            ChildProcesses.reapExited()
            guard Wire.send(reply.data, to: fd) else { break }
        }
        exit(0)
    }

    static func decode(_ reply: [UInt8]) -> Result<Subprocess.Output, Subprocess.Failure> {
        var reader = Wire.Reader(data: reply)
        guard let kind = reader.u32(), let code = reader.u32(), let payload = reader.bytes() else {
            return .failure(.cannotStart("the probe launcher (garbled answer)", errno: .protocolError))
        }
        switch kind {
        case 0: return .success(Subprocess.Output(status: Int32(bitPattern: code), stdout: payload, stderr: reader.bytes() ?? []))
        case 1: return .failure(.cannotStart(String(decoding: payload, as: UTF8.self), errno: Errno(rawValue: Int32(bitPattern: code))))
        case 2: return .failure(.timedOut(ms: Milliseconds(ms: Int64(code))))
        default: return .failure(.tooMuchOutput(limit: Int(code)))
        }
    }
}

/// Length-prefixed frames of little-endian u32s and byte strings.
struct Wire {
    var data: [UInt8] = []

    mutating func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { data += $0 } }
    mutating func bytes(_ b: [UInt8]) { u32(UInt32(b.count)); data += b }

    struct Reader {
        let data: [UInt8]
        var offset = 0
        mutating func u32() -> UInt32? {
            guard offset + 4 <= data.count else { return nil }
            defer { offset += 4 }
            return data[offset..<offset + 4].reversed().reduce(0) { $0 << 8 | UInt32($1) }
        }
        mutating func bytes() -> [UInt8]? {
            guard let n = u32().map(Int.init), offset + n <= data.count else { return nil }
            defer { offset += n }
            return Array(data[offset..<offset + n])
        }
    }

    /// One frame: its length, then the bytes.
    static func send(_ payload: [UInt8], to fd: Int32) -> Bool {
        var frame = Wire()
        frame.bytes(payload)
        var sent = 0
        while sent < frame.data.count {
            let n = try? retryOnInterrupt {
                frame.data[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            }
            guard let n, n > 0 else { return false }
            sent += n
        }
        return true
    }

    /// One frame, or nil on EOF, error or when `deadline` passes.
    static func receive(from fd: Int32, deadline: Deadline?) -> [UInt8]? {
        func read(_ count: Int) -> [UInt8]? {
            var out = [UInt8](repeating: 0, count: count)
            var got = 0
            while got < count {
                if let deadline {
                    guard (try? deadline.wait(for: fd)) == true else { return nil }
                }
                let n = try? retryOnInterrupt { out[got...].withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) } }
                guard let n, n > 0 else { return nil }
                got += n
            }
            return out
        }
        guard let header = read(4) else { return nil }
        var reader = Reader(data: header)
        guard let length = reader.u32(), length <= 1 << 20 else { return nil }
        return read(Int(length))
    }
}
