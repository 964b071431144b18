import Foundation
import Glibc
import TestSupport

/// A private dbus-daemon (TestSupport's PrivateBus) plus the python-dbusmock
/// services a test starts on it; all stopped by PID on deinit.
final class SessionTestBus {
    private let bus: PrivateBus
    private var services: [ChildProcess] = []
    private var logind: ChildProcess?
    var directory: String { bus.directory.path }
    var address: String { bus.address }

    /// `prefix`: the temporary directory's name before its random part; one
    /// with a space or comma needs escaping in a D-Bus address.
    init(prefix: String = "blocker-bus-") throws {
        bus = try PrivateBus(directoryPrefix: prefix)
    }

    deinit {
        logind?.stop()
        for service in services.reversed() { service.stop() }
        bus.stop()
    }

    /// D-Bus address escaping, as the tests write it themselves.
    static func escape(_ value: String) -> String { escapeAddressValue(value) }

    /// python3-dbusmock's logind template, on this bus as if it were the system
    /// bus; every call it answers is logged to `logindLog`.
    func startLogindMock() throws {
        var env = ProcessInfo.processInfo.environment
        env["DBUS_SYSTEM_BUS_ADDRESS"] = address
        // The distribution's python has dbusmock and gi; a pyenv one on PATH may not.
        logind = try ChildProcess(["/usr/bin/python3", "-m", "dbusmock", "--template", "logind", "-l", logindLog],
                                  environment: env)
        try waitForName("org.freedesktop.login1")
    }

    /// Stops the logind mock (its objects go with it), as when logind restarts.
    func stopLogindMock() throws {
        logind?.stop()
        logind = nil
        try waitUntil("org.freedesktop.login1 to leave \(address)") {
            !((try? self.busctl(["list", "--acquired"])) ?? "").contains("org.freedesktop.login1")
        }
    }

    var logindLog: String { directory + "/logind.log" }

    /// The calls a session lock makes of logind that the mock logged:
    /// GetSession/GetSessionByPID, and Get/GetAll on a session object (the
    /// mock's own Get/GetAll on seats and users while adding a session are not counted).
    func logindCalls() -> [String] {
        let text = (try? String(contentsOfFile: logindLog, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init).filter { line in
            let words = line.split(separator: " ")
            guard words.count >= 2 else { return false }
            switch words[1] {
            case "GetSession", "GetSessionByPID": return true
            case "Get", "GetAll": return words.count >= 3 && words[2].hasPrefix("/org/freedesktop/login1/session/")
            default: return false
            }
        }
    }

    /// How often the mock at `service` `path` was called with `method` (dbusmock's GetMethodCalls).
    func methodCalls(_ service: String, _ path: String, _ method: String) throws -> Int {
        let out = try busctl(["call", service, path, "org.freedesktop.DBus.Mock", "GetMethodCalls", "s", method])
        // "a(tav) N …"
        let words = out.split(separator: " ")
        guard words.count >= 2, let count = Int(words[1].trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw TestFailure("GetMethodCalls answered \(out)")
        }
        return count
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

    /// A fake GNOME Shell (python3-dbusmock owning `org.gnome.Shell`; the real
    /// shell is tested in scripts/itest-gnome.sh): `GetExtensionInfo` answers
    /// `state` for blocker's extension (nil: not installed), and `SendReport`
    /// makes the shell's own connection call `Report(a{sv})` as the extension
    /// does, without waiting for the answer; errors land in `reportErrors`.
    func startFakeGnomeShell(extensionState: Double?) throws {
        var env = ProcessInfo.processInfo.environment
        env["DBUS_SESSION_BUS_ADDRESS"] = address
        services.append(try ChildProcess(["/usr/bin/python3", "-m", "dbusmock", "--session", "org.gnome.Shell",
                                          "/org/gnome/Shell", "org.gnome.Shell.Extensions"], environment: env))
        try waitForName("org.gnome.Shell")
        let mock = ["org.gnome.Shell", "/org/gnome/Shell", "org.freedesktop.DBus.Mock"]
        let info = extensionState.map { "{'state': dbus.Double(\($0))} if args[0] == 'blocker@blockerd.github.io' else {}" } ?? "{}"
        try busctl(["call"] + mock + ["AddMethod", "sssss", "org.gnome.Shell.Extensions", "GetExtensionInfo", "s",
                                      "a{sv}", "ret = dbus.Dictionary(\(info), signature='sv')"])
        let send = "self.connection.call_async('io.github.blockerd.Focus', '/io/github/blockerd/Focus', "
            + "'io.github.blockerd.Focus1', 'Report', 'a{sv}', [args[0]], None, "
            + "lambda e: open('\(reportErrors)', 'a').write(e.get_dbus_name() + ': ' + e.get_dbus_message() + '\\n'))"
        try busctl(["call"] + mock + ["AddMethod", "sssss", "org.gnome.Shell.Extensions", "SendReport", "a{sv}", "",
                                      send])
    }

    var reportErrors: String { directory + "/report-errors.log" }

    /// Stops the mock services started so far (not logind's), as when the desktop's shell exits.
    func stopServices() {
        for service in services.reversed() { service.stop() }
        services = []
    }

    /// Makes the fake shell report `entries` (busctl's `a{sv}` words: count, then name type value…).
    func sendReport(_ entries: [String]) throws {
        try busctl(["call", "org.gnome.Shell", "/org/gnome/Shell", "org.gnome.Shell.Extensions", "SendReport",
                    "a{sv}"] + entries)
    }

    /// Sets the screen saver's `Active` and emits `ActiveChanged(b)`, as a desktop's screen saver does.
    func setScreenSaverActive(_ active: Bool) throws {
        let object = ["org.freedesktop.ScreenSaver", "/org/freedesktop/ScreenSaver"]
        try update(object[0], object[1], "org.freedesktop.ScreenSaver", [("Active", "b", String(active))])
        try busctl(["call"] + object + ["org.freedesktop.DBus.Mock", "EmitSignal", "sssav", "org.freedesktop.ScreenSaver",
                                        "ActiveChanged", "b", "1", "b", String(active)])
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
