import BlockerCore
import Foundation
import Testing
import TestSupport
@testable import BlockerBus

/// Who owns io.github.blockerd.Blocker1? A python3-dbus program takes the
/// name first, as another uid (nobody) or as ours, and answers Earn and
/// Status with nonsense. Clients must not believe another user's process;
/// blockerd, finding the name taken, says whose it is.
@Suite(.serialized) struct ImpostorTests {
    static let nobody: UInt32 = 65534

    @Test func anotherUsersNameOwnerIsRefusedByClientsAndNamedByBlockerd() throws {
        let bus = try PrivateBus(allowOtherUsers: true)
        defer { bus.stop() }
        let impostor = try Impostor(on: bus, uid: Self.nobody)
        defer { impostor.stop() }
        let client = try bus.client()

        // The Swift client: refused before any call reaches it, naming the uid and pid.
        var failure: BusFailure?
        do throws(BusFailure) { _ = try client.earn(exercise: "pushups", reps: 3) } catch { failure = error }
        guard case let .untrustedOwner(why)? = failure else { Issue.record("\(String(describing: failure))"); return }
        #expect(why.contains("pid \(impostor.pid) running as uid \(Self.nobody)") && why.contains("you are uid \(getuid())"),
                "\(why)")

        // blockerctl: exit 1, says so, prints nothing the impostor would answer.
        let ctl = try run([builtProgram("blockerctl"), "earn", "3", "pushups"],
                          environment: bus.environment.merging(["PATH": "/usr/bin:/bin", "TZ": "UTC"]) { a, _ in a })
        #expect(ctl.status == 1 && ctl.stdout.isEmpty, "\(ctl)")
        #expect(ctl.stderr.contains("running as uid \(Self.nobody)") && ctl.stderr.contains("refusing to talk to it"),
                "\(ctl.stderr)")
        #expect(!ctl.stderr.contains("999"))

        // Signals from it are dropped too.
        var shields: [ShieldState] = []
        let subscription = try client.onShieldChanged { shields.append($0) }
        defer { subscription.cancel() }
        impostor.say("signal")
        try pump(client, seconds: 1)
        #expect(shields.isEmpty)

        // blockerd leaves (75), naming the owner as an impostor.
        let daemon = try Blockerd(on: bus)
        defer { daemon.stop() }
        try daemon.launch()
        #expect(try daemon.waitForExit() == 75)
        #expect(daemon.log.contains("taken on the session bus by pid \(impostor.pid) running as uid \(Self.nobody)"),
                "\(daemon.log)")
        #expect(daemon.log.contains("impostor"))
        #expect(!daemon.scratch.exists("state/blocker.db"))

        #expect(impostor.calls().isEmpty, "the impostor was called: \(impostor.calls())")
    }

    @Test func aNameOwnerOfOurOwnUidIsTrustedAsToday() throws {
        let bus = try PrivateBus(allowOtherUsers: true)
        defer { bus.stop() }
        let impostor = try Impostor(on: bus, uid: getuid())
        defer { impostor.stop() }
        let client = try bus.client()
        // Our own user's process is ours to trust: the call goes through.
        #expect(try client.earn(exercise: "pushups", reps: 3) == (999_000, 999_000))
        var shields: [ShieldState] = []
        let subscription = try client.onShieldChanged { shields.append($0) }
        defer { subscription.cancel() }
        impostor.say("signal")
        try pump(client, seconds: 3) { !shields.isEmpty }
        #expect(shields.first?.app == "impostor")
        #expect(impostor.calls() == ["Earn"])

        // blockerd finds the name held by its own user: "already running", as before.
        let daemon = try Blockerd(on: bus)
        defer { daemon.stop() }
        try daemon.launch()
        #expect(try daemon.waitForExit() == 75)
        #expect(daemon.log.contains("blockerd is already running (pid \(impostor.pid)) as your own user (uid \(getuid()))"),
                "\(daemon.log)")
    }
}

/// A python3-dbus process owning io.github.blockerd.Blocker1, run as `uid`:
/// Earn answers (999000, 999000), Status an empty dictionary; each call is
/// printed. A line on its stdin makes it send a ShieldChanged. Killed by pid.
final class Impostor {
    private let process = Process()
    private let output = Pipe()
    private let input = Pipe()
    private var seen = ""

    static let script = #"""
        import sys, dbus, dbus.service, dbus.mainloop.glib
        from gi.repository import GLib
        dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
        bus = dbus.bus.BusConnection(sys.argv[1])
        IFACE = "io.github.blockerd.Blocker1"
        class Impostor(dbus.service.Object):
            @dbus.service.method(IFACE, in_signature="su", out_signature="xx")
            def Earn(self, exercise, reps):
                print("call Earn", flush=True)
                return (999000, 999000)
            @dbus.service.method(IFACE, in_signature="", out_signature="a{sv}")
            def Status(self):
                print("call Status", flush=True)
                return dbus.Dictionary({}, signature="sv")
            @dbus.service.signal(IFACE, signature="a{sv}")
            def ShieldChanged(self, shield):
                pass
        name = dbus.service.BusName(IFACE, bus, do_not_queue=True)
        obj = Impostor(bus, "/io/github/blockerd/Blocker1")
        def on_stdin(source, condition):
            if not sys.stdin.readline():
                return False
            obj.ShieldChanged(dbus.Dictionary({"active": True, "app": "impostor", "until_ms": dbus.Int64(0),
                                               "balance_ms": dbus.Int64(0), "reason": "balance"}, signature="sv"))
            return True
        GLib.io_add_watch(sys.stdin, GLib.IO_IN | GLib.IO_HUP, on_stdin)
        print("ready", flush=True)
        GLib.MainLoop().run()
        """#

    init(on bus: PrivateBus, uid: UInt32) throws {
        let scriptPath = try bus.directory.write("impostor.py", Self.script, mode: 0o644)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = ["--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", "--",
                             "/usr/bin/python3", scriptPath, bus.address]
        process.environment = ["PATH": "/usr/bin:/bin", "HOME": "/", "LANG": "C.UTF-8"]
        process.standardOutput = output
        process.standardInput = input
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
        let deadline = Date().addingTimeInterval(10)
        while !seen.contains("ready\n") {
            guard process.isRunning, Date() < deadline else {
                stop()
                throw TestFailure("the python3-dbus impostor did not take the name (said: \(seen))")
            }
            read(waiting: true)
        }
    }

    deinit { stop() }

    var pid: Int32 { process.processIdentifier }

    /// Kills it by pid (idempotent).
    func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// Makes it send one ShieldChanged.
    func say(_ line: String) {
        input.fileHandleForWriting.write(Data((line + "\n").utf8))
    }

    /// The members it was called with so far.
    func calls() -> [String] {
        read(waiting: false)
        return seen.split(separator: "\n").filter { $0.hasPrefix("call ") }.map { String($0.dropFirst(5)) }
    }

    private func read(waiting: Bool) {
        let fd = output.fileHandleForReading.fileDescriptor
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, waiting ? 100 : 0) > 0 else { return }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = Glibc.read(fd, &buffer, buffer.count)
        if count > 0 { seen += String(decoding: buffer[0..<count], as: UTF8.self) }
    }
}
