import Foundation
import Glibc
import TestSupport

/// A real headless wlroots compositor — sway 1.7 or phoc 0.24 — for the
/// wlroots probe's tests, or KWin 5.27 (virtual), a compositor without the protocol (docs/ARCHITECTURE.md, "How the tests run real servers").
///
/// Both refuse root or want a session of their own, so each runs as the
/// unprivileged user `blocker-sway` with a fresh private XDG_RUNTIME_DIR
/// (the pixman renderer, no input devices); root (the test) connects to its
/// Wayland socket. Clients (foot) run as that user too. Everything started
/// carries a marker in its environment, so `close()` stops exactly those
/// processes (the compositor by its PID first) and nothing else.
final class WlrootsHeadless {
    enum Compositor: String, CustomStringConvertible {
        case sway, phoc, kwin
        var description: String { rawValue }
        /// The ones offering zwlr_foreign_toplevel_manager_v1.
        static let wlroots: [Compositor] = [.sway, .phoc]
    }

    let compositor: Compositor
    private let runtime: TemporaryDirectory
    var runtimeDir: String { runtime.path }
    let uid: uid_t
    let gid: gid_t
    let marker: String
    private var process: ChildProcess?
    private var clients: [ChildProcess] = []
    /// The Wayland socket's name in `runtimeDir` (`wayland-1`).
    private(set) var socketName = ""
    private var closed = false

    /// The environment a probe (run as root, here) needs to find the compositor.
    var probeEnvironment: [String: String] { ["WAYLAND_DISPLAY": socketName, "XDG_RUNTIME_DIR": runtimeDir] }

    init(_ compositor: Compositor) throws {
        self.compositor = compositor
        let user = try Self.testUser()
        (uid, gid) = (user.pw_uid, user.pw_gid)
        runtime = try TemporaryDirectory()
        marker = "BLOCKER_WLROOTS_RUN=\(UUID().uuidString)"
        do {
            guard chown(runtimeDir, uid, gid) == 0, chmod(runtimeDir, 0o700) == 0 else {
                throw TestFailure("cannot hand \(runtimeDir) to \(SwayHeadless.user)")
            }
            // sway: no Xwayland, only native toplevels are tested. phoc creates its
            // seat only with Xwayland, and foot will not start without a seat.
            try writeOwned("config", "xwayland disable\n")
            try writeOwned("phoc.ini", "[core]\nxwayland=true\n")
            try start()
        } catch {
            close()
            throw error
        }
    }

    deinit { close() }

    private func writeOwned(_ name: String, _ text: String) throws {
        try text.write(toFile: runtimeDir + "/" + name, atomically: false, encoding: .utf8)
        chown(runtimeDir + "/" + name, uid, gid)
    }

    private var userEnvironment: [String] {
        [
            "HOME=/home/\(SwayHeadless.user)", "USER=\(SwayHeadless.user)", "LOGNAME=\(SwayHeadless.user)",
            "SHELL=/bin/sh", "PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8", "XDG_RUNTIME_DIR=\(runtimeDir)",
            // phoc (GLib) would otherwise autolaunch a session bus of its own.
            "DBUS_SESSION_BUS_ADDRESS=unix:path=\(runtimeDir)/no-bus",
            marker,
        ]
    }

    /// Starts the compositor and waits until its Wayland socket accepts connections.
    func start() throws {
        precondition(process == nil)
        let command: [String] = switch compositor {
        case .sway: ["/usr/bin/sway", "-c", runtimeDir + "/config"]
        case .phoc: ["/usr/bin/phoc", "-C", runtimeDir + "/phoc.ini"]
        case .kwin:
            // /usr/bin/kwin_wayland has a file capability this sandbox's bounding
            // set lacks; a plain copy drops it (and must keep its name).
            [try kwinCopy(), "--virtual", "--width", "640", "--height", "480", "--no-lockscreen",
             "--no-global-shortcuts", "--no-kactivities", "--socket", "wayland-kwin"]
        }
        let environment = userEnvironment + [
            "WLR_BACKENDS=headless", "WLR_LIBINPUT_NO_DEVICES=1", "WLR_RENDERER=pixman", "WLR_HEADLESS_OUTPUTS=1",
        ] + (compositor == .kwin ? ["QT_QPA_PLATFORM=offscreen"] : [])
        let log = open(runtimeDir + "/compositor.log", O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        defer { Glibc.close(log) }
        process = try ChildProcess(asUser(command), environmentEntries: environment, stdout: log, stderr: log)

        // Generous: beside the parallel tests' compositors KWin once took over 10 s.
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            // Ready once it announces a seat (clients need one; phoc adds it after its socket).
            if let name = listeningSocket(), offersSeat(name) {
                socketName = name
                return
            }
            guard process?.isRunning == true else {
                process = nil
                throw TestFailure("\(compositor) exited at start: \(self.log())")
            }
            usleep(20_000)
        }
        throw TestFailure("\(compositor) opened no Wayland socket within 30 s: \(self.log())")
    }

    /// What `wayland-info` (read independently of the code under test) lists.
    func globals(socket: String? = nil) throws -> String {
        try output(of: ["/usr/bin/wayland-info"],
                   environment: ["WAYLAND_DISPLAY": socket ?? socketName, "XDG_RUNTIME_DIR": runtimeDir], timeout: 5)
    }

    private func offersSeat(_ socket: String) -> Bool {
        (try? globals(socket: socket))?.contains("'wl_seat'") == true
    }

    private func kwinCopy() throws -> String {
        let copy = runtimeDir + "/kwin/kwin_wayland"
        if access(copy, X_OK) == 0 { return copy }
        mkdir(runtimeDir + "/kwin", 0o755)
        // Copied by cp, not by this process: a write descriptor of ours would be
        // inherited by a child another test forks meanwhile, and exec of the copy
        // then fails with ETXTBSY ("Text file busy", seen in CI).
        let copied = try run(["/bin/cp", "/usr/bin/kwin_wayland", copy])
        guard copied.status == 0 else { throw TestFailure("cp kwin_wayland: \(copied.stderr)") }
        return copy
    }

    /// `setpriv` to the test user, started in the runtime dir (the checkout may be unreadable for that user).
    private func asUser(_ command: [String]) -> [String] {
        ["/usr/bin/setpriv", "--reuid=\(uid)", "--regid=\(gid)", "--init-groups", "--",
         "/usr/bin/env", "-C", runtimeDir] + command
    }

    private func listeningSocket() -> String? {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: runtimeDir)) ?? []
        for name in names.sorted() where name.hasPrefix("wayland-") && !name.hasSuffix(".lock") {
            if let fd = try? SwayTestSocket.connect(runtimeDir + "/" + name) {
                Glibc.close(fd)
                return name
            }
        }
        return nil
    }

    /// `foot --app-id=APP --title=TITLE`, running `script` (sh) or sleeping.
    @discardableResult
    func openFoot(appID: String, title: String, script: String = "exec sleep infinity") throws -> ChildProcess {
        let environment = userEnvironment + ["WAYLAND_DISPLAY=\(socketName)"]
        let log = open(runtimeDir + "/clients.log", O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        defer { Glibc.close(log) }
        let client = try ChildProcess(asUser(["/usr/bin/foot", "--app-id=\(appID)", "--title=\(title)", "/bin/sh", "-c", script]),
                                      environmentEntries: environment, stdout: log, stderr: log)
        clients.append(client)
        return client
    }

    /// SIGTERM (or `signal`) to the compositor, waited for; then whatever it left.
    func stop(signal: Int32 = SIGTERM) {
        let pid = process?.pid
        process?.stop(signal: signal)
        process = nil
        clients.forEach { $0.stop() }
        clients = []
        killMarkedProcesses()
        if let pid { removeXLocks(of: pid) }
    }

    /// phoc's wlroots leaves the X display it opened for Xwayland
    /// (`/tmp/.X<n>-lock` holding its pid, `/tmp/.X11-unix/X<n>`): only those
    /// whose lock names this compositor's pid are removed.
    private func removeXLocks(of pid: pid_t) {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/tmp")) ?? []
        for name in entries where name.hasPrefix(".X") && name.hasSuffix("-lock") {
            let path = "/tmp/" + name
            guard let text = try? String(contentsOfFile: path, encoding: .utf8),
                  pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines.union(CharacterSet(charactersIn: "\0")))) == pid
            else { continue }
            let display = name.dropFirst(2).dropLast(5)
            unlink("/tmp/.X11-unix/X\(display)")
            unlink(path)
        }
    }

    func close() {
        guard !closed else { return }
        closed = true
        stop()
    }

    func log() -> String {
        let text = (try? String(contentsOfFile: runtimeDir + "/compositor.log", encoding: .utf8)) ?? ""
        let clients = (try? String(contentsOfFile: runtimeDir + "/clients.log", encoding: .utf8)) ?? ""
        return String(text.suffix(1500)) + (clients.isEmpty ? "" : "\nclients: " + String(clients.suffix(800)))
    }

    private static func testUser() throws -> passwd {
        if getpwnam(SwayHeadless.user) == nil {
            _ = try run(["/usr/sbin/useradd", "-m", "-s", "/usr/sbin/nologin", SwayHeadless.user])
        }
        guard let entry = getpwnam(SwayHeadless.user) else { throw TestFailure("cannot create the test user \(SwayHeadless.user)") }
        return entry.pointee
    }

    /// This run's processes (found by the marker, wherever they re-parented).
    func markedProcesses() -> [pid_t] { MarkedProcesses.find(marker) }

    private func killMarkedProcesses() { MarkedProcesses.kill(marker) }
}
