import Foundation
import Glibc

/// Something a test needs that did not work: the test fails with this.
struct X11TestError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A child process the test started, stopped by its PID when this goes away
/// (SIGTERM, then SIGKILL after a second), whatever happened in between.
///
/// posix_spawn rather than Foundation's Process: the test runner's threads
/// block most signals and Process passes that mask on, so its children ignore
/// SIGTERM (and a killed one was never reaped).
final class X11TestChild {
    let pid: pid_t
    let argv: [String]
    private var exitStatus: Int32?

    /// Starts `argv` (a path or a name in /usr/bin, /bin) with `environment`;
    /// stdout goes to `stdout` (nil: /dev/null), stdin and stderr to /dev/null.
    init(_ argv: [String], environment: [String: String], stdout: Int32? = nil) throws {
        self.argv = argv
        let program = try Self.resolve(argv[0])
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        if let stdout { posix_spawn_file_actions_adddup2(&actions, stdout, 1) }
        else { posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0) }
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)

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
        let cEnv = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (cArgs + cEnv).forEach { free($0) } }
        var child: pid_t = 0
        let r = posix_spawn(&child, program, &actions, &attributes, cArgs, cEnv)
        guard r == 0 else { throw X11TestError("cannot start \(program): \(String(cString: strerror(r)))") }
        pid = child
    }

    deinit { stop() }

    /// Reaps the child if it has exited.
    var isRunning: Bool {
        guard exitStatus == nil else { return false }
        var status: Int32 = 0
        if waitpid(pid, &status, WNOHANG) == pid { exitStatus = status }
        return exitStatus == nil
    }

    /// Waits for the child to exit; its exit code (128+N for signal N).
    @discardableResult
    func wait() -> Int32 {
        if exitStatus == nil {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            exitStatus = status
        }
        let status = exitStatus!
        return status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }

    /// `signal` (SIGTERM), then SIGKILL if it lingers past a second; always reaped.
    func stop(signal: Int32 = SIGTERM) {
        guard isRunning else { return }
        kill(pid, signal)
        let deadline = Date().addingTimeInterval(1)
        while isRunning && Date() < deadline { usleep(5_000) }
        if isRunning { kill(pid, SIGKILL) }
        wait()
    }

    static func resolve(_ program: String) throws -> String {
        if program.hasPrefix("/") { return program }
        for dir in ["/usr/bin", "/bin", "/usr/local/bin"] where access(dir + "/" + program, X_OK) == 0 {
            return dir + "/" + program
        }
        throw X11TestError("\(program) is not installed (apt-get install it): the test cannot run without it")
    }

    /// Runs `argv` to completion (killed after `timeout` s) and returns its
    /// stdout; a non-zero exit is an error.
    @discardableResult
    static func run(_ argv: [String], environment: [String: String], timeout: TimeInterval = 10) throws -> String {
        var fds: [Int32] = [-1, -1]
        try makePipe(&fds)
        let child: X11TestChild
        do {
            child = try X11TestChild(argv, environment: environment, stdout: fds[1])
        } catch {
            close(fds[0]); close(fds[1])
            throw error
        }
        close(fds[1])
        defer { close(fds[0]) }
        let deadline = Date().addingTimeInterval(timeout)
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let left = Int32(max(0, deadline.timeIntervalSinceNow) * 1000)
            guard left > 0 else {
                child.stop(signal: SIGKILL)
                throw X11TestError("\(argv.joined(separator: " ")) did not finish within \(timeout) s")
            }
            var pfd = pollfd(fd: fds[0], events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, left) > 0 else { continue }
            let n = read(fds[0], &chunk, chunk.count)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            output += chunk[0..<n]
        }
        let code = child.wait()
        let text = String(decoding: output, as: UTF8.self)
        guard code == 0 else { throw X11TestError("\(argv.joined(separator: " ")) exited with \(code): \(text)") }
        return text
    }
}

/// A real Xvfb with openbox (which keeps `_NET_ACTIVE_WINDOW`) on a display of
/// its own, plus the X clients a test starts; all stopped by PID on deinit.
final class X11Server {
    private(set) var display = ""
    private var xvfb: X11TestChild?
    private var windowManager: X11TestChild?
    private var clients: [X11TestChild] = []

    /// `ownDisplay`: for a test that restarts the server on the same display,
    /// a number far above where `-displayfd` searches (from 0 up), so no other
    /// Xvfb on this machine takes the display while ours is down.
    init(ownDisplay: Bool = false) throws {
        guard ownDisplay else {
            display = ":" + (try startXvfb(nil))
            try startWindowManager()
            return
        }
        var lastError: Error = X11TestError("no free display in 400..<500")
        for number in 400..<500 where access("/tmp/.X\(number)-lock", F_OK) != 0 {
            do {
                display = ":" + (try startXvfb(number))
                try startWindowManager()
                return
            } catch {
                lastError = error           // taken meanwhile: Xvfb exited; try the next one
                xvfb = nil
            }
        }
        throw lastError
    }

    /// Starts Xvfb on `number` (nil: a free one it picks) and waits until it
    /// writes its display number to fd 1 (`-displayfd`), which it does once it listens.
    private func startXvfb(_ number: Int?) throws -> String {
        var fds: [Int32] = [-1, -1]
        try makePipe(&fds)
        defer { close(fds[0]) }
        do {
            xvfb = try X11TestChild(["Xvfb"] + (number.map { [":\($0)"] } ?? [])
                                        + ["-displayfd", "1", "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
                                    environment: ProcessInfo.processInfo.environment, stdout: fds[1])
        } catch {
            close(fds[1])
            throw error
        }
        close(fds[1])
        return try Self.readLine(fds[0], timeout: 10)
    }

    deinit { stopAll() }

    var environment: [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["DISPLAY"] = display
        env.removeValue(forKey: "WAYLAND_DISPLAY")
        return env
    }

    /// Starts an X client, stopped with the server.
    @discardableResult
    func spawn(_ argv: [String]) throws -> X11TestChild {
        let child = try X11TestChild(argv, environment: environment)
        clients.append(child)
        return child
    }

    /// Runs an X tool (xdotool, xset, xprop) to completion; its stdout.
    @discardableResult
    func run(_ argv: [String]) throws -> String {
        try X11TestChild.run(argv, environment: environment)
    }

    /// Starts `xterm -class CLASS -T TITLE` and waits for its window; its id.
    func xterm(class name: String, title: String) throws -> (window: UInt32, process: X11TestChild) {
        let child = try spawn(["xterm", "-class", name, "-T", title, "-e", "sleep", "600"])
        return (try window(ofClass: name, from: child), child)
    }

    /// The window whose WM_CLASS class is exactly `name`, once it is mapped.
    /// (Polled here: `xdotool search --sync` sleeps half a second per try.)
    func window(ofClass name: String, from child: X11TestChild) throws -> UInt32 {
        var found: UInt32?
        try waitFor("a visible window of class \(name)") {
            guard child.isRunning else { throw X11TestError("\(child.argv.joined(separator: " ")) exited before showing a window") }
            // Exits 1 while there is no match.
            let out = (try? run(["xdotool", "search", "--onlyvisible", "--class", "^\(name)$"])) ?? ""
            found = out.split(separator: "\n").first.flatMap { UInt32($0) }
            return found != nil
        }
        return found!
    }

    /// Focuses `window` and waits until the window manager says it is active.
    func activate(_ window: UInt32) throws {
        try run(["xdotool", "windowactivate", "--sync", String(window)])
    }

    /// SIGKILLs the X server (openbox and the clients lose it too).
    func killServer() {
        xvfb?.stop(signal: SIGKILL)
        xvfb = nil
        windowManager?.stop()
        windowManager = nil
        for client in clients { client.stop() }
        clients = []
    }

    /// SIGSTOPs (true) or SIGCONTs (false) the X server: it keeps its socket but answers nothing.
    func pauseServer(_ paused: Bool) {
        if let xvfb { kill(xvfb.pid, paused ? SIGSTOP : SIGCONT) }
    }

    /// Starts a new X server on the same display, with openbox.
    func restartServer() throws {
        // The killed server left its lock and socket; a new Xvfb on the same
        // display sees the lock's owner is dead and takes over.
        guard let number = Int(display.dropFirst()) else { throw X11TestError("bad display \(display)") }
        _ = try startXvfb(number)
        try startWindowManager()
    }

    private func startWindowManager() throws {
        // openbox sets _NET_SUPPORTING_WM_CHECK before it is done starting; an
        // xterm mapped in between waited 5 s for it. --startup runs once it is.
        let ready = "_BLOCKER_TEST_WM_READY"
        windowManager = try X11TestChild(["openbox", "--startup", "xprop -root -f \(ready) 8s -set \(ready) yes"],
                                         environment: environment)
        try waitFor("openbox on \(display)") {
            let check = try? run(["xprop", "-root", ready])
            return check?.contains("\"yes\"") == true
        }
    }

    private func stopAll() {
        pauseServer(false)              // a stopped Xvfb would not act on SIGTERM
        for client in clients.reversed() { client.stop() }
        clients = []
        windowManager?.stop()
        windowManager = nil
        xvfb?.stop()
        xvfb = nil
    }

    func waitFor(_ what: String, timeout: TimeInterval = 10, _ condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try condition() { return }
            usleep(20_000)
        }
        throw X11TestError("timed out waiting for \(what)")
    }

    private static func readLine(_ fd: Int32, timeout: TimeInterval) throws -> String {
        // Xvfb keeps fd 1 open: read up to the newline, not to EOF.
        var line: [UInt8] = []
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, 100) > 0 else { continue }
            var byte: UInt8 = 0
            guard read(fd, &byte, 1) == 1 else { break }
            if byte == UInt8(ascii: "\n") { return String(decoding: line, as: UTF8.self) }
            line.append(byte)
        }
        throw X11TestError("Xvfb did not print its display number (is xvfb installed?)")
    }
}

/// A pipe whose ends children do not inherit (dup2 onto their fd 1 clears the flag there).
func makePipe(_ fds: inout [Int32]) throws {
    guard pipe(&fds) == 0 else { throw X11TestError("pipe: \(String(cString: strerror(errno)))") }
    _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
    _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
}

/// CPU time of the calling thread, in ms.
func threadCPUMilliseconds() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
    return Double(t.tv_sec) * 1000 + Double(t.tv_nsec) / 1_000_000
}

/// Waits up to `timeoutMs` for `fd` to become readable.
func isReadable(_ fd: Int32, timeoutMs: Int32) -> Bool {
    var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    return poll(&pfd, 1, timeoutMs) > 0
}
