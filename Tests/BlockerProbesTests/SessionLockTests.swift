import BlockerCore
import BlockerSystemd
import Foundation
import Glibc
import Testing
import TestSupport
@testable import BlockerProbes

/// logind and org.freedesktop.ScreenSaver simulated by python3-dbusmock on a
/// private dbus-daemon (there is no real logind here).
@Suite(.serialized) struct SessionLockTests {
    static let session = "org.freedesktop.login1.Session"

    /// A probe that always sees the same window: the X11 part is tested elsewhere.
    func commandProbe(idleMs: Int64? = nil) -> CommandProbe {
        let idle = idleMs.map { ",\"idle_ms\":\($0)" } ?? ""
        return CommandProbe(argv: ["/usr/bin/printf", "%s", "{\"app\":\"firefox\",\"title\":\"t\"\(idle)}"], timeoutMs: 2000)
    }

    @Test func logindLockedHintLocksTheProbe() throws {
        let bus = try SessionTestBus()
        try bus.startLogindMock()
        let path = try bus.addSession("c7")
        let lock = SessionLock(environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address, "XDG_SESSION_ID": "c7"])
        let probe = LockAwareProbe(commandProbe(), session: lock)

        let open = try probe.sample().get()
        #expect(!open.locked && open.window?.app == "firefox")
        #expect(lock.read().locked == false)

        try bus.update("org.freedesktop.login1", path, Self.session, [("LockedHint", "b", "true")])
        let locked = try probe.sample().get()
        #expect(locked.locked && locked.window?.app == "firefox")
        // Anyone in the session may set the hint: it is a claim, for the daemon to check.
        #expect(locked.lockClaim == "logind's LockedHint")
        #expect(probe.name == "command")

        try bus.update("org.freedesktop.login1", path, Self.session, [("LockedHint", "b", "false")])
        #expect(try !probe.sample().get().locked)
        // No session bus was given: the screen saver part is unknown, and says why.
        #expect(lock.unavailableReason == "screensaver: no session bus (DBUS_SESSION_BUS_ADDRESS is not set)")
    }

    @Test func theSessionIsTheOneNamedByXDGSessionID() throws {
        let bus = try SessionTestBus()
        try bus.startLogindMock()
        let mine = try bus.addSession("c1")
        try bus.addSession("c2")
        try bus.update("org.freedesktop.login1", mine, Self.session, [("LockedHint", "b", "true")])
        #expect(SessionLock(environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address, "XDG_SESSION_ID": "c1"]).read().locked == true)
        #expect(SessionLock(environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address, "XDG_SESSION_ID": "c2"]).read().locked == false)
    }

    @Test func idleHintGivesIdleTimeAndTheSmallerIdleWins() throws {
        let bus = try SessionTestBus()
        try bus.startLogindMock()
        let path = try bus.addSession("c3")
        let lock = SessionLock(environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address, "XDG_SESSION_ID": "c3"])
        #expect(lock.read().idle == nil)                        // IdleHint false: not idle as far as logind knows

        let since = monotonicMicroseconds() - 90_000_000        // idle for 90 s
        try bus.update("org.freedesktop.login1", path, Self.session,
                       [("IdleHint", "b", "true"), ("IdleSinceHintMonotonic", "t", String(since))])
        let idle = try #require(lock.read().idle)
        #expect(idle >= 90_000 && idle < 95_000)

        let sooner = try LockAwareProbe(commandProbe(idleMs: 30_000), session: lock).sample().get()
        #expect(sooner.idle == 30_000)
        let later = try #require(try LockAwareProbe(commandProbe(idleMs: 600_000), session: lock).sample().get().idle)
        #expect(later >= 90_000 && later < 95_000)
        let onlyLogind = try #require(try LockAwareProbe(commandProbe(), session: lock).sample().get().idle)
        #expect(onlyLogind >= 90_000)
    }

    @Test func screenSaverGetActiveLocks() throws {
        let bus = try SessionTestBus()
        try bus.startScreenSaverMock(active: false)
        let other = try SessionTestBus()                   // a system bus without logind
        let lock = SessionLock(environment: ["DBUS_SYSTEM_BUS_ADDRESS": other.address,
                                             "DBUS_SESSION_BUS_ADDRESS": bus.address])
        #expect(lock.read().locked == false)
        try bus.setScreenSaverActive(true)                // Active = true, and ActiveChanged(true)
        #expect(lock.read().locked == true)
        #expect(try LockAwareProbe(commandProbe(), session: lock).sample().get().locked)
        // python3-dbusmock owns the name: no known screen locker, so only a claim.
        #expect(lock.read().lockClaim?.hasPrefix("org.freedesktop.ScreenSaver (owned by /usr/bin/python3") == true,
                "\(String(describing: lock.read().lockClaim))")
        let reason = try #require(lock.unavailableReason)
        #expect(reason.hasPrefix("logind: ") && reason.contains("org.freedesktop.login1"))
    }

    @Test func missingServicesAreUnknownNotErrors() throws {
        let empty = try SessionTestBus()                   // a bus where nobody provides anything
        let lock = SessionLock(environment: ["DBUS_SYSTEM_BUS_ADDRESS": empty.address, "XDG_SESSION_ID": "c1",
                                             "DBUS_SESSION_BUS_ADDRESS": empty.address])
        let probe = LockAwareProbe(commandProbe(idleMs: 1234), session: lock)
        let reading = try probe.sample().get()
        #expect(!reading.locked && reading.idle == 1234 && reading.window?.app == "firefox")
        let reason = try #require(lock.unavailableReason)
        #expect(reason.contains("logind: cannot find session c1"))
        #expect(reason.contains("ServiceUnknown"))
        #expect(reason.contains("screensaver: org.freedesktop.ScreenSaver.GetActive failed"))

        let nowhere = SessionLock(environment: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=\(empty.directory)/nothing-here"])
        #expect(nowhere.read() == SessionState(locked: nil, idle: nil))
        #expect(nowhere.unavailableReason?.contains("logind: cannot connect to the system bus at unix:path=\(empty.directory)/nothing-here") == true)
    }

    @Test func anUnknownSessionIsUnknown() throws {
        let bus = try SessionTestBus()
        try bus.startLogindMock()
        // The mock's GetSession answers any id with a path; reading that path fails.
        let lock = SessionLock(environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address, "XDG_SESSION_ID": "nosuch"])
        #expect(lock.read().locked == nil)
        #expect(lock.unavailableReason?.contains("/org/freedesktop/login1/session/nosuch") == true)
    }

    // MARK: cached answers, kept by signals

    @Test func afterTheFirstReadLogindIsNotAskedAgainAndItsSignalsAreFollowed() throws {
        let bus = try SessionTestBus()
        try bus.startLogindMock()
        let path = try bus.addSession("c7")
        let lock = SessionLock(environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address, "XDG_SESSION_ID": "c7"])
        #expect(lock.read().locked == false)
        let first = bus.logindCalls().count
        #expect(bus.logindCalls().contains { $0.contains("GetSession") })
        for _ in 0..<20 { #expect(lock.read().locked == false) }
        #expect(bus.logindCalls().count == first, "reads after the first must not call logind")

        // logind's own way: a method on the session that emits PropertiesChanged.
        try bus.busctl(["call", "org.freedesktop.login1", path, Self.session, "SetLockedHint", "b", "true"])
        #expect(lock.read().locked == true)
        try bus.busctl(["call", "org.freedesktop.login1", path, Self.session, "SetLockedHint", "b", "false"])
        #expect(lock.read().locked == false)

        let since = monotonicMicroseconds() - 60_000_000
        try bus.update("org.freedesktop.login1", path, Self.session,
                       [("IdleHint", "b", "true"), ("IdleSinceHintMonotonic", "t", String(since))])
        let idle = try #require(lock.read().idle)
        #expect(idle >= 60_000 && idle < 65_000)
        #expect(bus.logindCalls().count == first, "changes arrive as signals, not answers")
    }

    @Test func invalidatedPropertiesAreReadAgain() throws {
        let bus = try SessionTestBus()
        try bus.startLogindMock()
        let path = try bus.addSession("c4")
        // Changes LockedHint without a signal, so only the invalidation says so.
        let mock = ["org.freedesktop.login1", path, "org.freedesktop.DBus.Mock"]
        try bus.busctl(["call"] + mock + ["AddMethod", "sssss", Self.session, "SetLockedQuietly", "b", "",
                                          "self.props['\(Self.session)']['LockedHint'] = args[0]"])
        let lock = SessionLock(environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address, "XDG_SESSION_ID": "c4"])
        #expect(lock.read().locked == false)
        let before = bus.logindCalls().count

        try bus.busctl(["call", "org.freedesktop.login1", path, Self.session, "SetLockedQuietly", "b", "true"])
        try bus.busctl(["call"] + mock + ["EmitSignal", "sssav", "org.freedesktop.DBus.Properties", "PropertiesChanged",
                                          "sa{sv}as", "3", "s", Self.session, "a{sv}", "0", "as", "1", "LockedHint"])
        #expect(lock.read().locked == true)
        #expect(bus.logindCalls().count == before + 1, "one GetAll for the invalidated property")
        #expect(lock.read().locked == true)
        #expect(bus.logindCalls().count == before + 1)
    }

    @Test func logindRestartingMakesItFindTheSessionAgain() throws {
        let bus = try SessionTestBus()
        try bus.startLogindMock()
        try bus.addSession("c5")
        let lock = SessionLock(environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address, "XDG_SESSION_ID": "c5"])
        #expect(lock.read().locked == false)

        try bus.stopLogindMock()
        #expect(lock.read().locked == nil)
        #expect(lock.unavailableReason?.hasPrefix("logind: ") == true)

        // Back within the 10 s retry: its NameOwnerChanged makes the next read look again.
        try bus.startLogindMock()
        let path = try bus.addSession("c5")
        try bus.update("org.freedesktop.login1", path, Self.session, [("LockedHint", "b", "true")])
        #expect(lock.read().locked == true)
        #expect(lock.unavailableReason == "screensaver: no session bus (DBUS_SESSION_BUS_ADDRESS is not set)")
    }

    @Test func attachedToALoopTheLoopKeepsTheAnswersAndALockChangeIsReported() throws {
        let bus = try SessionTestBus()
        try bus.startLogindMock()
        let path = try bus.addSession("c8")
        let lock = SessionLock(environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address, "XDG_SESSION_ID": "c8"])
        let loop = try EventLoop()
        try lock.attach(to: loop)
        var changes = 0
        lock.onChange = {
            changes += 1
            loop.exit(code: 0)
        }
        #expect(lock.read().locked == false)

        try bus.busctl(["call", "org.freedesktop.login1", path, Self.session, "SetLockedHint", "b", "true"])
        // The loop processes the connection, not read(): until it runs, the old answer stands.
        #expect(lock.read().locked == false)
        let timeout = try loop.timer { loop.exit(code: 1) }
        timeout.arm(afterMicroseconds: 5_000_000)
        #expect(try loop.run() == 0, "no lock change within 5 s")
        #expect(changes == 1)
        #expect(lock.read().locked == true)
    }

    @Test func screenSaverIsAskedOnceThenFollowedByActiveChanged() throws {
        let bus = try SessionTestBus()
        try bus.startScreenSaverMock(active: false)
        let other = try SessionTestBus()                   // a system bus without logind
        let lock = SessionLock(environment: ["DBUS_SYSTEM_BUS_ADDRESS": other.address,
                                             "DBUS_SESSION_BUS_ADDRESS": bus.address])
        let saver = ("org.freedesktop.ScreenSaver", "/org/freedesktop/ScreenSaver")
        #expect(lock.read().locked == false)
        for _ in 0..<10 { #expect(lock.read().locked == false) }
        #expect(try bus.methodCalls(saver.0, saver.1, "GetActive") == 1)

        try bus.setScreenSaverActive(true)
        #expect(lock.read().locked == true)
        try bus.setScreenSaverActive(false)
        #expect(lock.read().locked == false)
        #expect(try bus.methodCalls(saver.0, saver.1, "GetActive") == 1)
    }

    /// Most desktops have no screen saver service. Before, every sample
    /// after the retry interval asked for it again (a blocking call every
    /// 10 s while anything was charged); now its owner watch says when one comes.
    @Test func aMissingScreenSaverIsNotAskedAgainUntilOneAppears() throws {
        let bus = try SessionTestBus()
        let other = try SessionTestBus()                   // a system bus without logind
        let lock = SessionLock(environment: ["DBUS_SYSTEM_BUS_ADDRESS": other.address,
                                             "DBUS_SESSION_BUS_ADDRESS": bus.address], retryAfterNs: 1_000_000)
        #expect(lock.read().locked == nil)
        #expect(lock.unavailableReason?.contains("ServiceUnknown") == true)
        for _ in 0..<5 {
            Thread.sleep(forTimeInterval: 0.005)          // five retry intervals
            #expect(lock.read().locked == nil)
        }
        #expect(lock.screenSaverQueries == 1)

        try bus.startScreenSaverMock(active: true)
        let until = Date().addingTimeInterval(5)
        while lock.read().locked != true && Date() < until { Thread.sleep(forTimeInterval: 0.02) }
        #expect(lock.read().locked == true, "the screen saver that appeared was not asked")
        #expect(lock.screenSaverQueries == 2)
    }

    @Test func theRuntimeDirectoryBusIsFoundEvenWhenItsPathNeedsEscaping() throws {
        // $XDG_RUNTIME_DIR/bus with a space and a comma, which a D-Bus address must escape.
        let bus = try SessionTestBus(prefix: "blocker run, ")
        try bus.startScreenSaverMock(active: true)
        let other = try SessionTestBus()
        let lock = SessionLock(environment: ["DBUS_SYSTEM_BUS_ADDRESS": other.address, "XDG_RUNTIME_DIR": bus.directory])
        #expect(lock.read().locked == true)
        #expect(lock.unavailableReason?.contains("screensaver") == false)
    }

    @Test func mergeRules() {
        let window = Window(appID: "x")
        let base = Reading(window: window, locked: false, idle: 5000)
        #expect(LockAwareProbe.merge(base, SessionState()) == base)
        #expect(LockAwareProbe.merge(base, SessionState(locked: true)).locked)
        #expect(LockAwareProbe.merge(Reading(window: window, locked: true), SessionState(locked: false)).locked)
        #expect(LockAwareProbe.merge(base, SessionState(locked: true, lockClaim: "logind's LockedHint")).lockClaim == "logind's LockedHint")
        // The probe's own lock needs no check; no lock, no claim.
        #expect(LockAwareProbe.merge(Reading(window: window, locked: true), SessionState(locked: true, lockClaim: "x")).lockClaim == nil)
        #expect(LockAwareProbe.merge(base, SessionState(locked: false, lockClaim: nil)).lockClaim == nil)
        #expect(LockAwareProbe.merge(base, SessionState(idle: 200)).idle == 200)
        #expect(LockAwareProbe.merge(base, SessionState(idle: 9000)).idle == 5000)
        #expect(LockAwareProbe.merge(Reading(window: nil), SessionState(idle: 9000)).idle == 9000)
    }
}
