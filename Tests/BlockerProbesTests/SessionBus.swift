import Foundation
import Glibc
import TestSupport

/// A private dbus-daemon (TestSupport's PrivateBus) plus the python-dbusmock
/// services a test starts on it; all stopped by PID on deinit.
final class SessionTestBus {
    private let bus: PrivateBus
    private var services: [ChildProcess] = []
    var directory: String { bus.directory.path }
    var address: String { bus.address }

    init() throws {
        bus = try PrivateBus()
    }

    deinit {
        for service in services.reversed() { service.stop() }
        bus.stop()
    }

    /// python3-dbusmock's logind template, on this bus as if it were the system bus.
    func startLogindMock() throws {
        var env = ProcessInfo.processInfo.environment
        env["DBUS_SYSTEM_BUS_ADDRESS"] = address
        // The distribution's python has dbusmock and gi; a pyenv one on PATH may not.
        services.append(try ChildProcess(["/usr/bin/python3", "-m", "dbusmock", "--template", "logind"], environment: env))
        try waitForName("org.freedesktop.login1")
    }

    /// A mock org.freedesktop.ScreenSaver whose GetActive returns its `Active` property.
    func startScreenSaverMock(active: Bool) throws {
        var env = ProcessInfo.processInfo.environment
        env["DBUS_SESSION_BUS_ADDRESS"] = address
        services.append(try ChildProcess(["/usr/bin/python3", "-m", "dbusmock", "--session",
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
        guard out.contains(path) else { throw TestFailure("AddSession answered \(out)") }
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
        try output(of: ["busctl", "--address=\(address)"] + arguments, timeout: 5)
    }

    private func waitForName(_ name: String) throws {
        try waitUntil("\(name) on \(address)") {
            ((try? self.busctl(["list", "--acquired"])) ?? "").contains(name)
        }
    }
}

/// CLOCK_MONOTONIC in µs, the clock of logind's `…Monotonic` properties.
func monotonicMicroseconds() -> UInt64 {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return UInt64(t.tv_sec) * 1_000_000 + UInt64(t.tv_nsec) / 1000
}
