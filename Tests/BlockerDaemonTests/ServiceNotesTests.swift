@testable import BlockerCore
@testable import BlockerDaemon
import Testing

/// What the service manager hears after each tick: the ping at most every
/// half WatchdogSec, STATUS= at once for a shield or a problem and with the
/// ping for the balance and the window in front.
@Suite struct ServiceNotesTests {
    static let second: UInt64 = 1_000_000
    /// WatchdogSec=30s, as the unit sets it.
    static let watchdog = 30 * second

    func state(balance: Milliseconds, front app: String?, shield: Bool = false) -> DaemonSnapshot {
        var state = DaemonSnapshot.none
        state.balanceMs = balance
        state.front = app.map { Window(appID: $0) }
        if shield, let app { state.shield = Shield(reason: .balance, reasons: [.balance], app: app, group: nil, until: nil) }
        return state
    }

    @Test func aFocusChangeWaitsForThePingAShieldDoesNot() {
        var notes = ServiceNotes(watchdogUs: Self.watchdog)
        let t0: UInt64 = 1_000 * Self.second
        #expect(notes.afterTick(nowUs: t0, polling: false, stateVersion: 1, state: state(balance: 60_000, front: "notes"))
                == "WATCHDOG=1\nSTATUS=Balance 1m 00s · front: notes (no group)")
        // Before: STATUS= at every focus change.
        #expect(notes.afterTick(nowUs: t0 + 2 * Self.second, polling: false, stateVersion: 2,
                                state: state(balance: 60_000, front: "editor")) == nil)
        #expect(notes.afterTick(nowUs: t0 + 4 * Self.second, polling: false, stateVersion: 3,
                                state: state(balance: 60_000, front: "discord", shield: true))
                == "STATUS=Shield up: discord (balance)")
        // The shield lifting is said at once too.
        #expect(notes.afterTick(nowUs: t0 + 6 * Self.second, polling: false, stateVersion: 4,
                                state: state(balance: 60_000, front: "notes")) == "STATUS=Balance 1m 00s · front: notes (no group)")
        #expect(notes.afterTick(nowUs: t0 + 8 * Self.second, polling: false, stateVersion: 5,
                                state: state(balance: 60_000, front: "editor")) == nil)
        // A tick within a tenth of WatchdogSec of the ping pings early, with what waited.
        #expect(notes.afterTick(nowUs: t0 + 12 * Self.second, polling: false, stateVersion: 5,
                                state: state(balance: 60_000, front: "editor"))
                == "WATCHDOG=1\nSTATUS=Balance 1m 00s · front: editor (no group)")
        #expect(notes.nextPingUs == t0 + 27 * Self.second)
    }

    @Test func aPollingLoopPingsOnTime() {
        var notes = ServiceNotes(watchdogUs: Self.watchdog)
        let quiet = state(balance: 0, front: nil)
        #expect(notes.afterTick(nowUs: 0, polling: true, stateVersion: 1, state: quiet) == "WATCHDOG=1\nSTATUS=Balance 0s · nothing in front")
        #expect(notes.afterTick(nowUs: 14 * Self.second, polling: true, stateVersion: 1, state: quiet) == nil)
        #expect(notes.afterTick(nowUs: 15 * Self.second, polling: true, stateVersion: 1, state: quiet) == "WATCHDOG=1")
    }

    @Test func withoutAWatchdogEveryChangeIsSaidAtOnce() {
        var notes = ServiceNotes(watchdogUs: nil)
        #expect(notes.afterTick(nowUs: 0, polling: false, stateVersion: 1, state: state(balance: 0, front: "notes"))
                == "STATUS=Balance 0s · front: notes (no group)")
        #expect(notes.afterTick(nowUs: 1, polling: false, stateVersion: 2, state: state(balance: 0, front: "editor"))
                == "STATUS=Balance 0s · front: editor (no group)")
        #expect(notes.afterTick(nowUs: 2, polling: false, stateVersion: 3, state: state(balance: 0, front: "editor")) == nil)
        #expect(notes.nextPingUs == nil)
    }
}
