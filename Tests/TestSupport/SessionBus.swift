import Foundation
import Glibc

/// A private dbus-daemon (TestSupport's PrivateBus) plus the python-dbusmock
/// services a test starts on it; all stopped by PID on deinit.
public final class SessionTestBus {
    private let bus: PrivateBus
    private var services: [ChildProcess] = []
    private var logind: ChildProcess?
    public var directory: String { bus.directory.path }
    public var address: String { bus.address }

    /// `prefix`: the temporary directory's name before its random part; one
    /// with a space or comma needs escaping in a D-Bus address.
    public init(prefix: String = "blocker-bus-") throws {
        bus = try PrivateBus(directoryPrefix: prefix)
    }

    deinit {
        logind?.stop()
        for service in services.reversed() { service.stop() }
        bus.stop()
    }

    /// D-Bus address escaping, as the tests write it themselves.
    public static func escape(_ value: String) -> String { escapeAddressValue(value) }

    /// python3-dbusmock's logind template, on this bus as if it were the system
    /// bus; every call it answers is logged to `logindLog`.
    public func startLogindMock() throws {
        var env = ProcessInfo.processInfo.environment
        env["DBUS_SYSTEM_BUS_ADDRESS"] = address
        // The distribution's python has dbusmock and gi; a pyenv one on PATH may not.
        logind = try ChildProcess(["/usr/bin/python3", "-m", "dbusmock", "--template", "logind", "-l", logindLog],
                                  environment: env)
        try waitForName("org.freedesktop.login1")
    }

    /// Stops the logind mock (its objects go with it), as when logind restarts.
    public func stopLogindMock() throws {
        logind?.stop()
        logind = nil
        try waitUntil("org.freedesktop.login1 to leave \(address)") {
            !((try? self.busctl(["list", "--acquired"])) ?? "").contains("org.freedesktop.login1")
        }
    }

    public var logindLog: String { directory + "/logind.log" }

    /// The calls a session lock makes of logind that the mock logged:
    /// GetSession/GetSessionByPID, and Get/GetAll on a session object (the
    /// mock's own Get/GetAll on seats and users while adding a session are not counted).
    public func logindCalls() -> [String] {
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
    public func methodCalls(_ service: String, _ path: String, _ method: String) throws -> Int {
        let out = try busctl(["call", service, path, "org.freedesktop.DBus.Mock", "GetMethodCalls", "s", method])
        // "a(tav) N …"
        let words = out.split(separator: " ")
        guard words.count >= 2, let count = Int(words[1].trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw TestFailure("GetMethodCalls answered \(out)")
        }
        return count
    }

    /// A mock org.freedesktop.ScreenSaver whose GetActive returns its `Active` property.
    public func startScreenSaverMock(active: Bool) throws {
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
    /// `state` for blocker's extension (nil: not installed), `setExtensionState`
    /// changes it and emits `ExtensionStateChanged` as the shell does, and
    /// `sendReport` makes the shell's own connection call `Report(a{sv})` as the
    /// extension does.
    public func startFakeGnomeShell(extensionState: Double?) throws {
        let mock = try startFakeShell("org.gnome.Shell", path: "/org/gnome/Shell", interface: "org.gnome.Shell.Extensions")
        try busctl(["call"] + mock + ["AddMethod", "sssss", "org.gnome.Shell.Extensions", "GetExtensionInfo", "s", "a{sv}",
                                      "s = getattr(self, 'blocker_state', None)\n"
                                          + "ret = dbus.Dictionary({'state': dbus.Double(s)} if s is not None and args[0] == "
                                          + "'blocker@blockerd.github.io' else {}, signature='sv')"])
        try busctl(["call"] + mock + ["AddMethod", "sssss", Self.fakeShellInterface, "SetExtensionState", "d", "",
                                      "self.blocker_state = args[0]\n"
                                          + "self.EmitSignal('org.gnome.Shell.Extensions', 'ExtensionStateChanged', 'sa{sv}', "
                                          + "['blocker@blockerd.github.io', {'state': dbus.Double(args[0])}])"])
        if let extensionState { try setExtensionState(extensionState) }
    }

    /// Sets blocker's extension's state in the fake GNOME Shell and emits
    /// `ExtensionStateChanged` (1: enabled, 2: disabled), as `gnome-extensions enable/disable` do.
    public func setExtensionState(_ state: Double) throws {
        try busctl(["call", "org.gnome.Shell", "/org/gnome/Shell", Self.fakeShellInterface, "SetExtensionState", "d",
                    String(state)])
    }

    /// A fake KWin (python3-dbusmock owning `org.kde.KWin`; the real one is
    /// tested in scripts/itest-kde.sh): `org.kde.kwin.Scripting` at `/Scripting`
    /// with `isScriptLoaded`, `loadScript` (path, name), `unloadScript` and
    /// `start`, keeping which scripts are loaded; `sendReport(…, from: "org.kde.KWin")`
    /// reports as the script does. `scriptLoaded`: whether `blocker` starts loaded.
    public func startFakeKWin(scriptLoaded: Bool) throws {
        let mock = try startFakeShell("org.kde.KWin", path: "/Scripting", interface: "org.kde.kwin.Scripting")
        let scripting = "org.kde.kwin.Scripting"
        let methods: [(String, String, String, String)] = [
            ("isScriptLoaded", "s", "b", "ret = args[0] in getattr(self, 'scripts', set())"),
            ("loadScript", "ss", "i", "self.scripts = getattr(self, 'scripts', set()) | {args[1]}\nret = 0"),
            ("unloadScript", "s", "b", "ret = args[0] in getattr(self, 'scripts', set())\n"
                + "self.scripts = getattr(self, 'scripts', set()) - {args[0]}"),
            ("start", "", "", ""),
        ]
        for (name, inSignature, outSignature, code) in methods {
            try busctl(["call"] + mock + ["AddMethod", "sssss", scripting, name, inSignature, outSignature, code])
        }
        if scriptLoaded { try busctl(["call", "org.kde.KWin", "/Scripting", scripting, "loadScript", "ss", "", "blocker"]) }
    }

    /// The fake shells' own test methods live here (not on the shell's interfaces).
    static let fakeShellInterface = "io.github.blockerd.Test.FakeShell"

    /// python3-dbusmock owning `name` with `path`, and `SendReport(a{sv})`: the
    /// shell's own connection calls `Report(a{sv})` as its plugin does, without
    /// waiting for the answer; errors land in `reportErrors`. Returns the
    /// `busctl call` words of its Mock interface.
    private func startFakeShell(_ name: String, path: String, interface: String) throws -> [String] {
        var env = ProcessInfo.processInfo.environment
        env["DBUS_SESSION_BUS_ADDRESS"] = address
        services.append(try ChildProcess(["/usr/bin/python3", "-m", "dbusmock", "--session", name, path, interface],
                                         environment: env))
        try waitForName(name)
        let mock = [name, path, "org.freedesktop.DBus.Mock"]
        let send = "self.connection.call_async('io.github.blockerd.Focus', '/io/github/blockerd/Focus', "
            + "'io.github.blockerd.Focus1', 'Report', 'a{sv}', [args[0]], None, "
            + "lambda e: open('\(reportErrors)', 'a').write(e.get_dbus_name() + ': ' + e.get_dbus_message() + '\\n'))"
        try busctl(["call"] + mock + ["AddMethod", "sssss", Self.fakeShellInterface, "SendReport", "a{sv}", "", send])
        return mock
    }

    public var reportErrors: String { directory + "/report-errors.log" }

    /// Stops the mock services started so far (not logind's), as when the desktop's shell exits.
    public func stopServices() {
        for service in services.reversed() { service.stop() }
        services = []
    }

    /// Makes the fake shell report `entries` (busctl's `a{sv}` words: count, then name type value…).
    public func sendReport(_ entries: [String], from shell: String = "org.gnome.Shell") throws {
        let path = shell == "org.kde.KWin" ? "/Scripting" : "/org/gnome/Shell"
        try busctl(["call", shell, path, Self.fakeShellInterface, "SendReport", "a{sv}"] + entries)
    }

    /// Sets the screen saver's `Active` and emits `ActiveChanged(b)`, as a desktop's screen saver does.
    public func setScreenSaverActive(_ active: Bool) throws {
        let object = ["org.freedesktop.ScreenSaver", "/org/freedesktop/ScreenSaver"]
        try update(object[0], object[1], "org.freedesktop.ScreenSaver", [("Active", "b", String(active))])
        try busctl(["call"] + object + ["org.freedesktop.DBus.Mock", "EmitSignal", "sssav", "org.freedesktop.ScreenSaver",
                                        "ActiveChanged", "b", "1", "b", String(active)])
    }

    /// `AddSession` of the logind mock; the session's object path.
    @discardableResult
    public func addSession(_ id: String) throws -> String {
        let out = try busctl(["call", "org.freedesktop.login1", "/org/freedesktop/login1", "org.freedesktop.DBus.Mock",
                              "AddSession", "ssusb", id, "seat0", String(getuid()), "tester", "true"])
        let path = "/org/freedesktop/login1/session/\(id)"
        guard out.contains(path) else { throw TestFailure("AddSession answered \(out)") }
        return path
    }

    /// Sets properties of a mock object through org.freedesktop.DBus.Mock.UpdateProperties.
    /// `values`: (name, D-Bus type, value as busctl writes it).
    public func update(_ service: String, _ path: String, _ interface: String, _ values: [(String, String, String)]) throws {
        var args = ["call", service, path, "org.freedesktop.DBus.Mock", "UpdateProperties", "sa{sv}", interface, String(values.count)]
        for (name, type, value) in values { args += [name, type, value] }
        try busctl(args)
    }

    @discardableResult
    public func busctl(_ arguments: [String]) throws -> String {
        try output(of: ["busctl", "--address=\(address)"] + arguments, timeout: 5)
    }

    private func waitForName(_ name: String) throws {
        try waitUntil("\(name) on \(address)") {
            ((try? self.busctl(["list", "--acquired"])) ?? "").contains(name)
        }
    }
}

/// CLOCK_MONOTONIC in µs, the clock of logind's `…Monotonic` properties.
public func monotonicMicroseconds() -> UInt64 {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return UInt64(t.tv_sec) * 1_000_000 + UInt64(t.tv_nsec) / 1000
}
