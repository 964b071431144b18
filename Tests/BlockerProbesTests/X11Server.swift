import Foundation
import Glibc
import TestSupport

/// A real Xvfb with openbox (which keeps `_NET_ACTIVE_WINDOW`) on a display of
/// its own, plus the X clients a test starts; all stopped by PID on deinit.
final class X11Server {
    private(set) var display = ""
    private var xvfb: ChildProcess?
    private var windowManager: ChildProcess?
    private var clients: [ChildProcess] = []

    /// `ownDisplay`: for a test that restarts the server on the same display,
    /// a number far above where `-displayfd` searches (from 0 up), so no other
    /// Xvfb on this machine takes the display while ours is down.
    init(ownDisplay: Bool = false) throws {
        guard ownDisplay else {
            // Once in a few hundred runs on a busy machine openbox never
            // became ready on a fresh Xvfb (CI waited 30 s on :0); a second
            // server on another display has always come up at once.
            do {
                display = ":" + (try startXvfb(nil))
                try startWindowManager(timeout: 15)
            } catch {
                // The first server keeps its display until the second has
                // another, so the retry does not land on the same number.
                windowManager?.stop()
                let first = xvfb
                display = ":" + (try startXvfb(nil))
                first?.stop()
                try startWindowManager(timeout: 15)
            }
            return
        }
        var lastError: Error = TestFailure("no free display in 400..<500")
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
            xvfb = try ChildProcess(["Xvfb"] + (number.map { [":\($0)"] } ?? [])
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
    func spawn(_ argv: [String]) throws -> ChildProcess {
        let child = try ChildProcess(argv, environment: environment)
        clients.append(child)
        return child
    }

    /// Runs an X tool (xdotool, xset, xprop) to completion; its stdout.
    @discardableResult
    func run(_ argv: [String]) throws -> String {
        try output(of: argv, environment: environment)
    }

    /// Starts `xterm -class CLASS -T TITLE` and waits for its window; its id.
    func xterm(class name: String, title: String) throws -> (window: UInt32, process: ChildProcess) {
        let child = try spawn(["xterm", "-class", name, "-T", title, "-e", "sleep", "600"])
        return (try window(ofClass: name, from: child), child)
    }

    /// The window whose WM_CLASS class is exactly `name`, once it is mapped.
    /// (Polled here: `xdotool search --sync` sleeps half a second per try.)
    func window(ofClass name: String, from child: ChildProcess) throws -> UInt32 {
        var found: UInt32?
        try waitFor("a visible window of class \(name)") {
            guard child.isRunning else { throw TestFailure("\(child.argv.joined(separator: " ")) exited before showing a window") }
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
        guard let number = Int(display.dropFirst()) else { throw TestFailure("bad display \(display)") }
        _ = try startXvfb(number)
        try startWindowManager()
    }

    private func startWindowManager(timeout: TimeInterval = 30) throws {
        // openbox sets _NET_SUPPORTING_WM_CHECK before it is done starting; an
        // xterm mapped in between waited 5 s for it. --startup runs once it is.
        let ready = "_BLOCKER_TEST_WM_READY"
        windowManager = try ChildProcess(["openbox", "--startup", "xprop -root -f \(ready) 8s -set \(ready) yes"],
                                         environment: environment)
        // Generous: on a machine busy with other builds openbox took over 10 s.
        try waitFor("openbox on \(display)", timeout: timeout) {
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
        try waitUntil(what, timeout: timeout, condition)
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
        throw TestFailure("Xvfb did not print its display number (is xvfb installed?)")
    }
}

/// A pipe whose ends children do not inherit (dup2 onto their fd 1 clears the flag there).
func makePipe(_ fds: inout [Int32]) throws {
    guard pipe(&fds) == 0 else { throw TestFailure("pipe: \(String(cString: strerror(errno)))") }
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
