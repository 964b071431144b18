import BlockerCore
import BlockerSystem
import Glibc

/// `probe = "command"` with `probe-command-mode = "stream"`: `probe-command`
/// is started once and prints one JSON line (the command probe's format)
/// each time the window in front changes, like `swaymsg -t subscribe -m`.
/// Each line is taken when it arrives, so time is charged exactly, where the
/// one-shot mode charges a whole poll interval to whatever it saw.
///
/// The program runs in a process group of its own and is killed with it. If
/// it exits, samples fail with its status and its last stderr line, and it is
/// started again with a backoff.
public final class StreamingCommandProbe: ForegroundProbe {
    public let name = "command"
    public let argv: [String]

    private let executables = ExecutableNameCache()
    /// The program while it runs; why it is not running (`downBecause`).
    private let link = Reconnecting<Running>(initial: 500, cap: 10_000, downBecause: "probe command is not running")
    private var running: Running? { link.connection }
    private var lines = LineBuffer()
    /// What the last complete line said; nil until the first line.
    private var latest: Result<Reading, ProbeFailure>?
    public var eventGeneration: Int { link.generation }

    public init(argv: [String]) {
        self.argv = argv
    }

    deinit { stop() }

    public func shutdown() { stop() }

    public var eventDescriptor: Int32? { running?.events }

    public func sample() -> Result<Reading, ProbeFailure> {
        switch link.connectIfDue(now: MonotonicClock.now, describe: \.message, start) {
        case .connected: break
        case let .waiting(ms):
            return .failure(ProbeFailure("\(link.downBecause); starting it again in \(ms) ms"))
        case let .failed(failure): return .failure(failure)
        }
        drainEvents()
        return latest ?? .failure(ProbeFailure("probe command has not printed its first line yet"))
    }

    /// Reads every complete line that arrived; the last one is what is in front.
    public func drainEvents() {
        guard let running else { return }
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n: Int
            do { n = try retryOnInterrupt { read(running.stdout, &chunk, chunk.count) } } catch .wouldBlock { break } catch { n = -1 }
            guard n > 0 else {
                ended()   // EOF or a read error: the program is gone (or closed stdout)
                return
            }
            for line in lines.append(chunk[0..<n]) {
                switch line {
                case let .line(bytes): latest = CommandProbe.parse(bytes, executables: executables)
                case .overlong:
                    latest = .failure(ProbeFailure("probe command printed a line longer than \(LineBuffer.maximum) bytes"))
                }
            }
        }
        link.update { $0.stderr.drain() }
    }

    // MARK: the program

    private struct Running {
        let pid: pid_t
        let stdout: Int32
        var stderr: StderrTail
        /// An epoll set of stdout and stderr: readable when either has data.
        let events: Int32
    }

    private func start() throws(ProbeFailure) -> Running {
        let child: Subprocess.Capturing
        switch Subprocess.spawnCapturing(argv) {
        case let .success(started): child = started
        case let .failure(failure): throw ProbeFailure("probe command \(failure)")
        }
        for fd in [child.stdout, child.stderr] { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        guard let events = try? ReadableSet.make(watching: [child.stdout, child.stderr]) else {
            let code = Errno.current
            ChildProcesses.stop(child.pid, grace: 0, group: true)
            close(child.stdout); close(child.stderr)
            throw ProbeFailure("cannot watch the probe command's output: \(code)")
        }
        lines = LineBuffer()
        latest = nil
        return Running(pid: child.pid, stdout: child.stdout, stderr: StderrTail(fd: child.stderr), events: events)
    }

    /// stdout closed: reap the program, kill what it left in its group, and
    /// say why the next samples fail.
    private func ended() {
        guard var running else { return }
        running.stderr.drain()
        let said = running.stderr.lastLine.map { ": \($0)" } ?? ""
        let status = Self.stop(running)
        link.drop(because: "probe command \(status)\(said)", backingOffAt: MonotonicClock.now)
        latest = nil
    }

    private func stop() {
        if let running = link.drop(because: "probe command is not running") { _ = Self.stop(running) }
    }

    private static func stop(_ running: Running) -> String {
        // Give a program that closed stdout on its way out a moment to exit on its own.
        let stopped = ChildProcesses.stop(running.pid, grace: 100, group: true)
        close(running.stdout)
        if running.stderr.fd >= 0 { close(running.stderr.fd) }
        close(running.events)
        let signal = stopped.status & 0x7f
        return stopped.exitedInTime
            ? (signal == 0 ? "exited with status \((stopped.status >> 8) & 0xff)" : "was killed by signal \(signal)")
            : "closed its output and was stopped"
    }
}

/// Splits a byte stream into lines; a line longer than `maximum` is reported
/// once as overlong and skipped up to its end. Pure.
struct LineBuffer {
    static let maximum = 65_536

    enum Item: Equatable {
        case line([UInt8])
        case overlong
    }

    private var pending: [UInt8] = []
    private var skipping = false

    mutating func append(_ bytes: ArraySlice<UInt8>) -> [Item] {
        var items: [Item] = []
        var rest = bytes[...]
        while let newline = rest.firstIndex(of: 0x0A) {
            if skipping {
                skipping = false
            } else {
                pending += rest[rest.startIndex..<newline]
                items.append(pending.count > Self.maximum ? .overlong : .line(pending))
            }
            pending = []
            rest = rest[(newline + 1)...]
        }
        if !skipping {
            pending += rest
            if pending.count > Self.maximum {
                items.append(.overlong)
                pending = []
                skipping = true
            }
        }
        return items
    }
}

/// The last line a program printed on stderr, read without ever blocking it:
/// everything is read, only the last line (up to 200 characters) is kept.
/// At EOF the descriptor is closed, which also takes it out of the epoll set
/// (a closed stderr must not keep the set readable and spin the loop).
struct StderrTail {
    private(set) var fd: Int32
    private(set) var lastLine: String?
    private var partial: [UInt8] = []

    init(fd: Int32) { self.fd = fd }

    mutating func drain() {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while fd >= 0 {
            let n: Int
            do { n = try retryOnInterrupt { read(fd, &chunk, chunk.count) } } catch .wouldBlock { return } catch { n = -1 }
            guard n > 0 else {   // EOF or a read error
                close(fd)
                fd = -1
                return
            }
            for byte in chunk[0..<n] {
                if byte == 0x0A {
                    let text = String(decoding: partial, as: UTF8.self)
                    if !text.allSatisfy(\.isWhitespace) { lastLine = text.count > 200 ? String(text.prefix(200)) + "…" : text }
                    partial = []
                } else if partial.count < 1024 {
                    partial.append(byte)
                }
            }
        }
    }
}
