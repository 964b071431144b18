import BlockerCore
import Foundation
import Glibc
import Testing
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
        try bus.update("org.freedesktop.ScreenSaver", "/org/freedesktop/ScreenSaver", "org.freedesktop.ScreenSaver",
                       [("Active", "b", "true")])
        #expect(lock.read().locked == true)
        #expect(try LockAwareProbe(commandProbe(), session: lock).sample().get().locked)
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

    @Test func mergeRules() {
        let window = Window(appID: "x")
        let base = Reading(window: window, locked: false, idle: 5000)
        #expect(LockAwareProbe.merge(base, SessionState()) == base)
        #expect(LockAwareProbe.merge(base, SessionState(locked: true)).locked)
        #expect(LockAwareProbe.merge(Reading(window: window, locked: true), SessionState(locked: false)).locked)
        #expect(LockAwareProbe.merge(base, SessionState(idle: 200)).idle == 200)
        #expect(LockAwareProbe.merge(base, SessionState(idle: 9000)).idle == 5000)
        #expect(LockAwareProbe.merge(Reading(window: nil), SessionState(idle: 9000)).idle == 9000)
    }
}
