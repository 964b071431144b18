import Foundation
import Glibc

/// A child process a test started, stopped by its PID when this goes away
/// (SIGTERM, then SIGKILL after a second), whatever happened in between.
///
/// posix_spawn rather than Foundation's Process: the test runner's threads
/// block most signals and Process passes that mask on, so its children ignore
/// SIGTERM (and a killed one was never reaped).
public final class ChildProcess {
    public let pid: pid_t
    public let argv: [String]
    private var exitStatus: Int32?

    /// Starts `argv` (a path, or a name in the usual bin directories) with
    /// exactly `environment`; stdout and stderr go to the given descriptors
    /// (nil: /dev/null), stdin is /dev/null.
    public convenience init(_ argv: [String], environment: [String: String], stdout: Int32? = nil,
                            stderr: Int32? = nil) throws {
        try self.init(argv, environmentEntries: environment.map { "\($0.key)=\($0.value)" },
                      stdout: stdout, stderr: stderr)
    }

    /// The same with the environment as `NAME=value` entries, exactly as given (names may repeat).
    public init(_ argv: [String], environmentEntries: [String], stdout: Int32? = nil, stderr: Int32? = nil) throws {
        self.argv = argv
        let program = try Self.resolve(argv[0])
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        for (target, source) in [(Int32(1), stdout), (Int32(2), stderr)] {
            if let source { posix_spawn_file_actions_adddup2(&actions, source, target) }
            else { posix_spawn_file_actions_addopen(&actions, target, "/dev/null", O_WRONLY, 0) }
        }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var defaults = sigset_t()
        sigfillset(&defaults)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let cArgs = ([program] + argv.dropFirst()).map { strdup($0) } + [nil]
        let cEnv = environmentEntries.map { strdup($0) } + [nil]
        defer { (cArgs + cEnv).forEach { free($0) } }
        var child: pid_t = 0
        let r = posix_spawn(&child, program, &actions, &attributes, cArgs, cEnv)
        guard r == 0 else { throw TestFailure("cannot start \(program): \(String(cString: strerror(r)))") }
        pid = child
    }

    deinit { stop() }

    /// Reaps the child if it has exited.
    public var isRunning: Bool {
        guard exitStatus == nil else { return false }
        var status: Int32 = 0
        if waitpid(pid, &status, WNOHANG) == pid { exitStatus = status }
        return exitStatus == nil
    }

    /// Waits for the child to exit; its exit code (128+N for signal N).
    @discardableResult
    public func wait() -> Int32 {
        if exitStatus == nil {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            exitStatus = status
        }
        let status = exitStatus!
        return status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }

    /// `signal` (SIGTERM), then SIGKILL if it lingers past a second; always reaped.
    public func stop(signal: Int32 = SIGTERM) {
        guard isRunning else { return }
        kill(pid, signal)
        let deadline = Date().addingTimeInterval(1)
        while isRunning && Date() < deadline { usleep(5_000) }
        if isRunning { kill(pid, SIGKILL) }
        wait()
    }

    /// The full path of `program`; a missing one fails the test with what to install.
    public static func resolve(_ program: String) throws -> String {
        if program.hasPrefix("/") { return program }
        for dir in ["/usr/bin", "/bin", "/usr/sbin", "/sbin", "/usr/local/bin"] where access(dir + "/" + program, X_OK) == 0 {
            return dir + "/" + program
        }
        throw TestFailure("\(program) is not installed (scripts/deps.sh check installs it): the test cannot run without it")
    }
}

/// How a program that ran to its end ended, and what it printed.
public struct Finished {
    /// The exit code (128+N for signal N).
    public var status: Int32
    public var stdout: String
    public var stderr: String
}

/// Runs `argv` to its end with both streams captured; nil `environment`: this process's own.
/// Killed, and an error, after `timeout` seconds.
public func run(_ argv: [String], environment: [String: String]? = nil, timeout: TimeInterval = 10) throws -> Finished {
    let environment = environment ?? ProcessInfo.processInfo.environment
    return try run(argv, environmentEntries: environment.map { "\($0.key)=\($0.value)" }, timeout: timeout)
}

/// The same with the environment as `NAME=value` entries, exactly as given (names may repeat).
public func run(_ argv: [String], environmentEntries: [String], timeout: TimeInterval = 10) throws -> Finished {
    let out = try CapturePipe(), err = try CapturePipe()
    let child: ChildProcess
    do {
        child = try ChildProcess(argv, environmentEntries: environmentEntries, stdout: out.write, stderr: err.write)
    } catch {
        out.closeBoth(); err.closeBoth()
        throw error
    }
    out.closeWrite(); err.closeWrite()
    defer { out.closeBoth(); err.closeBoth() }

    // Both streams at once: a child blocked on a full stderr pipe would never close stdout.
    var captured: [Int32: [UInt8]] = [out.read: [], err.read: []]
    var open = [out.read, err.read]
    let deadline = Date().addingTimeInterval(timeout)
    var chunk = [UInt8](repeating: 0, count: 65_536)
    while !open.isEmpty {
        let left = Int32(max(0, deadline.timeIntervalSinceNow) * 1000)
        guard left > 0 else {
            child.stop(signal: SIGKILL)
            throw TestFailure("\(argv.joined(separator: " ")) did not finish within \(timeout) s")
        }
        var fds = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        guard poll(&fds, nfds_t(fds.count), min(left, 100)) > 0 else { continue }
        for entry in fds where entry.revents != 0 {
            let n = Glibc.read(entry.fd, &chunk, chunk.count)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { open.removeAll { $0 == entry.fd } } else { captured[entry.fd]! += chunk[0..<n] }
        }
    }
    let status = child.wait()
    return Finished(status: status, stdout: String(decoding: captured[out.read]!, as: UTF8.self),
                    stderr: String(decoding: captured[err.read]!, as: UTF8.self))
}

/// The stdout of `argv` run to its end; an error naming its status and stderr unless it exits 0.
@discardableResult
public func output(of argv: [String], environment: [String: String]? = nil, timeout: TimeInterval = 10) throws -> String {
    try succeeded(argv, run(argv, environment: environment, timeout: timeout))
}

@discardableResult
public func output(of argv: [String], environmentEntries: [String], timeout: TimeInterval = 10) throws -> String {
    try succeeded(argv, run(argv, environmentEntries: environmentEntries, timeout: timeout))
}

private func succeeded(_ argv: [String], _ finished: Finished) throws -> String {
    guard finished.status == 0 else {
        throw TestFailure("\(argv.joined(separator: " ")) exited with \(finished.status): \(finished.stdout)\(finished.stderr)")
    }
    return finished.stdout
}

/// A pipe whose ends children do not inherit (dup2 onto their fd 1 or 2 clears the flag there).
private final class CapturePipe {
    let read: Int32
    let write: Int32
    private var readOpen = true, writeOpen = true

    init() throws {
        var fds: [Int32] = [-1, -1]
        // Close-on-exec from the start: tests spawn in parallel, and a write
        // end leaked into another test's long-lived child would never let EOF come.
        guard pipe2(&fds, O_CLOEXEC) == 0 else { throw TestFailure("pipe2: \(String(cString: strerror(errno)))") }
        (read, write) = (fds[0], fds[1])
    }

    func closeWrite() { if writeOpen { close(write); writeOpen = false } }
    func closeBoth() { closeWrite(); if readOpen { close(read); readOpen = false } }
}

/// glibc's pipe2, which the Glibc module hides behind _GNU_SOURCE.
@_silgen_name("pipe2")
private func pipe2(_ fds: UnsafeMutablePointer<Int32>, _ flags: Int32) -> Int32
