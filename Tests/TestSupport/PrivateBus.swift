import Foundation
import Glibc

/// A private `dbus-daemon` of session type on a socket in its own temporary
/// directory, stopped by PID by `stop()` or when released.
///
/// It has no service directories: nothing is started on demand (a
/// notification server would answer for blockerd, a stopped service must stay
/// stopped, an a11y bus would linger). A missing dbus-daemon fails the test.
public final class PrivateBus {
    public let directory: TemporaryDirectory
    public let address: String
    public let pid: pid_t
    private var stopped = false

    /// `allowOtherUsers`: any uid may connect (EXTERNAL auth) and reach the
    /// socket, for tests of blocker's own uid check. Otherwise only this uid.
    /// `directoryPrefix`: see `TemporaryDirectory(prefix:)`.
    public init(allowOtherUsers: Bool = false, directoryPrefix: String = "blocker-test.") throws {
        let program: String
        do { program = try ChildProcess.resolve("dbus-daemon") } catch {
            throw TestFailure("dbus-daemon is not installed (apt-get install dbus-daemon, or scripts/deps.sh check): "
                + "the test needs a private session bus")
        }
        directory = try TemporaryDirectory(prefix: directoryPrefix)
        if allowOtherUsers { chmod(directory.path, 0o755) }
        let config = try directory.write("bus.conf", Self.configuration(socket: directory.file("bus"),
                                                                         allowOtherUsers: allowOtherUsers))
        // --fork: it answers once it listens, with its address and pid on stdout.
        let started = try run([program, "--config-file=\(config)", "--fork", "--print-address=1", "--print-pid=1"])
        let lines = started.stdout.split(separator: "\n")
        guard started.status == 0, lines.count == 2, lines[0].hasPrefix("unix:"), let pid = pid_t(lines[1]) else {
            if let pid = started.stdout.split(separator: "\n").last.flatMap({ pid_t($0) }) { kill(pid, SIGKILL) }
            throw TestFailure("dbus-daemon did not start (exit \(started.status)): \(started.stdout)\(started.stderr)")
        }
        address = String(lines[0])
        self.pid = pid
    }

    deinit { stop() }

    /// For `DBUS_SESSION_BUS_ADDRESS`.
    public var environment: [String: String] { ["DBUS_SESSION_BUS_ADDRESS": address] }

    /// Kills dbus-daemon by its PID and waits until it is gone; safe to call again.
    public func stop() {
        guard !stopped else { return }
        stopped = true
        kill(pid, SIGKILL)
        // It forked away, so it is not our child, unless this process is a subreaper.
        var status: Int32 = 0
        for _ in 0..<200 {
            _ = waitpid(pid, &status, WNOHANG)
            if !processIsAlive(pid) { return }
            usleep(10_000)
        }
    }

    private static func configuration(socket: String, allowOtherUsers: Bool) -> String {
        """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>session</type>
          <listen>unix:path=\(escapeAddressValue(socket))</listen>
          <auth>EXTERNAL</auth>
          <policy context="default">\(allowOtherUsers ? "\n    <allow user=\"*\"/>" : "")
            <allow send_destination="*" eavesdrop="true"/>
            <allow eavesdrop="true"/>
            <allow own="*"/>
          </policy>
        </busconfig>
        """
    }
}

/// Whether `pid` runs (a zombie does not).
public func processIsAlive(_ pid: pid_t) -> Bool {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
          let afterName = stat.lastIndex(of: ")") else { return false }
    let state = stat[afterName...].dropFirst().drop { $0 == " " }.first
    return state != nil && state != "Z"
}

/// D-Bus address values escape every byte outside [-0-9A-Za-z_/.\\*] as %XX
/// (written here again, so the tests do not trust the code they test).
public func escapeAddressValue(_ value: String) -> String {
    value.utf8.map { byte in
        let c = Character(Unicode.Scalar(byte))
        return c.isASCII && (c.isLetter || c.isNumber || "-_/.\\*".contains(c))
            ? String(c) : String(format: "%%%02X", byte)
    }.joined()
}
