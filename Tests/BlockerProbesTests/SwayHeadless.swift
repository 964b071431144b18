import Foundation
import Glibc
import TestSupport

/// A real headless sway for the probe tests (docs/ARCHITECTURE.md, "How the tests run real servers").
///
/// sway refuses to run as root, so it runs as the unprivileged user
/// `blocker-sway` (created on first use) with its own fresh XDG_RUNTIME_DIR;
/// root (the test) talks to its IPC socket with `swaymsg` and the probe.
/// Everything it starts carries a marker in its environment, so `close()`
/// stops exactly those processes — sway, Xwayland and the clients `swaymsg
/// exec` started in their own sessions — and nothing else.
final class SwayHeadless {
    static let user = "blocker-sway"

    private let runtime: TemporaryDirectory
    var runtimeDir: String { runtime.path }
    let uid: uid_t
    let gid: gid_t
    /// `BLOCKER_SWAY_RUN=<uuid>`, inherited by every process this sway starts.
    let marker: String
    /// A SWAYSOCK path handed to sway, or nil to let sway name it `sway-ipc.UID.PID.sock`.
    let fixedSocketPath: String?
    private(set) var swayPID: pid_t = 0
    /// Where sway listens now.
    private(set) var socketPath = ""
    private let configPath: String
    private var closed = false

    struct SwayUnavailable: Error, CustomStringConvertible {
        var description: String
    }

    init(xwayland: Bool = false, fixedSocket: Bool = false) throws {
        (uid, gid) = try Self.testUser()
        runtime = try TemporaryDirectory()
        marker = "BLOCKER_SWAY_RUN=\(UUID().uuidString)"
        fixedSocketPath = fixedSocket ? runtime.path + "/sway.sock" : nil
        configPath = runtime.path + "/config"
        do {
            // sway checks that XDG_RUNTIME_DIR is its own and private.
            guard chown(runtimeDir, uid, gid) == 0, chmod(runtimeDir, 0o700) == 0 else {
                throw SwayUnavailable(description: "cannot hand \(runtimeDir) to \(Self.user)")
            }
            try "xwayland \(xwayland ? "enable" : "disable")\n".write(toFile: configPath, atomically: false, encoding: .utf8)
            chown(configPath, uid, gid)
            try start()
        } catch {
            close()
            throw error
        }
    }

    deinit { close() }

    /// Starts sway and waits until its IPC socket answers (sway is ready in well under a second).
    func start() throws {
        let environment = [
            "HOME=/home/\(Self.user)", "USER=\(Self.user)", "LOGNAME=\(Self.user)", "SHELL=/bin/sh",
            "PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8",
            "XDG_RUNTIME_DIR=\(runtimeDir)",
            "WLR_BACKENDS=headless", "WLR_LIBINPUT_NO_DEVICES=1", "WLR_RENDERER=pixman", "WLR_HEADLESS_OUTPUTS=1",
            marker,
        ] + (fixedSocketPath.map { ["SWAYSOCK=\($0)"] } ?? [])
        // Started in its runtime dir: the checkout may be unreadable for the
        // test user, and clients inherit sway's working directory.
        let arguments = ["/usr/bin/setpriv", "--reuid=\(uid)", "--regid=\(gid)", "--init-groups", "--",
                         "/usr/bin/env", "-C", runtimeDir, "/usr/bin/sway", "-c", configPath]
        swayPID = try Self.spawn(arguments, environment: environment, log: runtimeDir + "/sway.log")

        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline {
            if let path = listeningSocket(), (try? swaymsg(["-s", path, "-t", "get_version"])) != nil {
                socketPath = path
                return
            }
            var status: Int32 = 0
            if waitpid(swayPID, &status, WNOHANG) == swayPID {
                swayPID = 0
                throw SwayUnavailable(description: "sway exited at start: \(log())")
            }
            usleep(20_000)
        }
        throw SwayUnavailable(description: "sway did not open its IPC socket within 5 s: \(log())")
    }

    /// The socket sway created: SWAYSOCK if it took it, else the one named for its pid.
    private func listeningSocket() -> String? {
        let named = "\(runtimeDir)/sway-ipc.\(uid).\(swayPID).sock"
        for path in [fixedSocketPath, named].compactMap({ $0 }) {
            var info = stat()
            if lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFSOCK {
                // A file left by a killed sway is not this sway's.
                if let fd = try? SwayTestSocket.connect(path) { Glibc.close(fd); return path }
            }
        }
        return nil
    }

    /// Stops sway with `signal` and waits for it; then whatever it left (clients, Xwayland).
    func stop(signal: Int32 = SIGTERM) {
        guard swayPID > 0 else { return }
        kill(swayPID, signal)
        if !reap(swayPID, withinMs: 3000) {
            kill(swayPID, SIGKILL)
            _ = reap(swayPID, withinMs: 3000)
        }
        swayPID = 0
        killMarkedProcesses()
    }

    /// SIGSTOP / SIGCONT, to freeze sway.
    func signal(_ signal: Int32) {
        if swayPID > 0 { kill(swayPID, signal) }
    }

    /// Stops everything this sway started (its runtime directory goes when this is released).
    func close() {
        guard !closed else { return }
        closed = true
        if swayPID > 0 { kill(swayPID, SIGCONT) }
        stop()
        killMarkedProcesses()
    }

    // MARK: swaymsg

    /// Runs swaymsg (as root, on sway's socket); throws with its output when it fails.
    @discardableResult
    func swaymsg(_ arguments: [String]) throws -> String {
        let finished = try run(["/usr/bin/swaymsg"] + (arguments.first == "-s" ? arguments : ["-s", socketPath] + arguments))
        guard finished.status == 0 else {
            throw SwayUnavailable(description: "swaymsg \(arguments.joined(separator: " ")) failed (\(finished.status)): \(finished.stdout)\(finished.stderr)")
        }
        return finished.stdout
    }

    /// Starts a client inside sway, as sway's user.
    func exec(_ command: String) throws {
        try swaymsg(["exec", command])
    }

    /// A window as `swaymsg -t get_tree` shows it (read independently of the probe).
    struct View: Equatable {
        var id: Int
        var appID: String?
        var wmClass: String?
        var wmInstance: String?
        var name: String
        var pid: Int32
        var focused: Bool
    }

    func views() throws -> [View] {
        let tree = try JSONSerialization.jsonObject(with: Data(try swaymsg(["-t", "get_tree"]).utf8))
        var found: [View] = []
        func walk(_ node: [String: Any]) {
            if node["shell"] != nil {
                let properties = node["window_properties"] as? [String: Any]
                found.append(View(id: node["id"] as? Int ?? -1, appID: node["app_id"] as? String,
                                  wmClass: properties?["class"] as? String, wmInstance: properties?["instance"] as? String,
                                  name: node["name"] as? String ?? "", pid: Int32(node["pid"] as? Int ?? 0),
                                  focused: node["focused"] as? Bool ?? false))
            }
            for key in ["nodes", "floating_nodes"] {
                for child in node[key] as? [[String: Any]] ?? [] { walk(child) }
            }
        }
        if let root = tree as? [String: Any] { walk(root) }
        return found
    }

    /// Waits until a window matching `predicate` is mapped (foot and xterm take a few hundred ms).
    func waitForView(timeout: TimeInterval = 10, _ what: String, where predicate: (View) -> Bool) throws -> View {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let view = try views().first(where: predicate) { return view }
            usleep(30_000)
        }
        throw SwayUnavailable(description: "no \(what) window within \(timeout) s; windows: \(try views()); sway log: \(log())")
    }

    /// `foot --app-id=APP --title=TITLE`, waited for.
    func openFoot(appID: String, title: String) throws -> View {
        try exec("foot --app-id=\(appID) --title='\(title)' sleep infinity")
        return try waitForView("foot \(appID)") { $0.appID == appID }
    }

    func log() -> String {
        let text = (try? String(contentsOfFile: runtimeDir + "/sway.log", encoding: .utf8)) ?? ""
        return String(text.suffix(1500))
    }

    // MARK: processes

    private static func testUser() throws -> (uid_t, gid_t) {
        if getpwnam(user) == nil {
            _ = try run(["/usr/sbin/useradd", "-m", "-s", "/usr/sbin/nologin", user])
        }
        guard let entry = getpwnam(user) else { throw SwayUnavailable(description: "cannot create the test user \(user)") }
        return (entry.pointee.pw_uid, entry.pointee.pw_gid)
    }

    /// posix_spawn in a new process group, stdout/stderr to `log`.
    private static func spawn(_ arguments: [String], environment: [String], log: String) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK))
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, arguments[0], &actions, &attributes, argv, envp)
        guard result == 0 else { throw SwayUnavailable(description: "cannot start \(arguments[0]): \(String(cString: strerror(result)))") }
        return pid
    }

    private func reap(_ pid: pid_t, withinMs: Int) -> Bool {
        var status: Int32 = 0
        for _ in 0..<(withinMs / 10) {
            let r = waitpid(pid, &status, WNOHANG)
            if r == pid || (r < 0 && errno == ECHILD) { return true }
            usleep(10_000)
        }
        return false
    }

    /// This run's processes (found by the marker, wherever they re-parented).
    func markedProcesses() -> [pid_t] { MarkedProcesses.find(marker) }

    private func killMarkedProcesses() { MarkedProcesses.kill(marker) }
}

/// The test's own tiny connect, so waiting for sway does not lean on the code under test.
enum SwayTestSocket {
    static func connect(_ path: String) throws -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes.prefix(raw.count - 1))
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard result == 0 else { Glibc.close(fd); throw SwayHeadless.SwayUnavailable(description: "connect \(path): \(String(cString: strerror(errno)))") }
        return fd
    }
}

/// Whether `fd` becomes readable within `timeoutMs`.
func swayTestReadable(_ fd: Int32?, timeoutMs: Int32) -> Bool {
    guard let fd else { return false }
    var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    return poll(&pfd, 1, timeoutMs) > 0
}
