import Foundation
import Glibc

/// A private dbus-daemon on a socket in a temporary directory, plus the
/// python-dbusmock services a test starts on it; all stopped by PID and the
/// directory removed on deinit.
final class SessionTestBus {
    let directory: String
    let address: String
    private var daemon: X11TestChild?
    private var services: [X11TestChild] = []

    init() throws {
        var template = Array((FileManager.default.temporaryDirectory.path + "/blocker-bus-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw X11TestError("mkdtemp failed") }
        directory = String(cString: made)
        address = "unix:path=\(directory)/bus"
        do {
            daemon = try X11TestChild(["dbus-daemon", "--session", "--nofork", "--nopidfile", "--address=\(address)"],
                                      environment: ProcessInfo.processInfo.environment)
            try waitFor("dbus-daemon at \(address)") { (try? self.busctl(["status"])) != nil }
        } catch {
            cleanUp()
            throw error
        }
    }

    deinit { cleanUp() }

    private func cleanUp() {
        for service in services.reversed() { service.stop() }
        services = []
        daemon?.stop()
        daemon = nil
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// python3-dbusmock's logind template, on this bus as if it were the system bus.
    func startLogindMock() throws {
        var env = ProcessInfo.processInfo.environment
        env["DBUS_SYSTEM_BUS_ADDRESS"] = address
        // The distribution's python has dbusmock and gi; a pyenv one on PATH may not.
        services.append(try X11TestChild(["/usr/bin/python3", "-m", "dbusmock", "--template", "logind"], environment: env))
        try waitForName("org.freedesktop.login1")
    }

    /// A mock org.freedesktop.ScreenSaver whose GetActive returns its `Active` property.
    func startScreenSaverMock(active: Bool) throws {
        var env = ProcessInfo.processInfo.environment
        env["DBUS_SESSION_BUS_ADDRESS"] = address
        services.append(try X11TestChild(["/usr/bin/python3", "-m", "dbusmock", "--session",
                                          "org.freedesktop.ScreenSaver", "/org/freedesktop/ScreenSaver",
                                          "org.freedesktop.ScreenSaver"], environment: env))
        try waitForName("org.freedesktop.ScreenSaver")
        let mock = ["org.freedesktop.ScreenSaver", "/org/freedesktop/ScreenSaver", "org.freedesktop.DBus.Mock"]
        try busctl(["call"] + mock + ["AddProperty", "ssv", "org.freedesktop.ScreenSaver", "Active", "b", String(active)])
        try busctl(["call"] + mock + ["AddMethod", "sssss", "org.freedesktop.ScreenSaver", "GetActive", "", "b",
                                      "ret = self.Get('org.freedesktop.ScreenSaver', 'Active')"])
    }

    /// `AddSession` of the logind mock; the session's object path.
    @discardableResult
    func addSession(_ id: String) throws -> String {
        let out = try busctl(["call", "org.freedesktop.login1", "/org/freedesktop/login1", "org.freedesktop.DBus.Mock",
                              "AddSession", "ssusb", id, "seat0", String(getuid()), "tester", "true"])
        let path = "/org/freedesktop/login1/session/\(id)"
        guard out.contains(path) else { throw X11TestError("AddSession answered \(out)") }
        return path
    }

    /// Sets properties of a mock object through org.freedesktop.DBus.Mock.UpdateProperties.
    /// `values`: (name, D-Bus type, value as busctl writes it).
    func update(_ service: String, _ path: String, _ interface: String, _ values: [(String, String, String)]) throws {
        var args = ["call", service, path, "org.freedesktop.DBus.Mock", "UpdateProperties", "sa{sv}", interface, String(values.count)]
        for (name, type, value) in values { args += [name, type, value] }
        try busctl(args)
    }

    @discardableResult
    func busctl(_ arguments: [String]) throws -> String {
        try X11TestChild.run(["busctl", "--address=\(address)"] + arguments,
                             environment: ProcessInfo.processInfo.environment, timeout: 5)
    }

    private func waitForName(_ name: String) throws {
        try waitFor("\(name) on \(address)") {
            ((try? self.busctl(["list", "--acquired"])) ?? "").contains(name)
        }
    }

    private func waitFor(_ what: String, timeout: TimeInterval = 10, _ condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try condition() { return }
            usleep(20_000)
        }
        throw X11TestError("timed out waiting for \(what)")
    }
}

/// CLOCK_MONOTONIC in µs, the clock of logind's `…Monotonic` properties.
func monotonicMicroseconds() -> UInt64 {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return UInt64(t.tv_sec) * 1_000_000 + UInt64(t.tv_nsec) / 1000
}
