/// What a completed tick tells the service manager (sd_notify), decided
/// apart from sending it.
///
/// - WATCHDOG=1 only after a completed tick, at most once per half
///   WatchdogSec (a ping a tick was most of an idle tick's syscalls). Unless
///   the loop polls, a tick that runs anyway within a tenth of WatchdogSec of
///   the ping pings early: while focus moves the ping costs no wake-up of its own.
/// - STATUS= when its text changed. A change of only the balance or the
///   window in front (`DaemonSnapshot.statusIsRoutine`) is worded and sent
///   with the next ping, half a WatchdogSec later at most: a message at every
///   focus change was a tenth of its CPU. A shield or a problem goes at once,
///   and everything does without a watchdog.
struct ServiceNotes {
    /// WatchdogSec in µs; nil when systemd expects no pings.
    let watchdogUs: UInt64?
    /// When WATCHDOG=1 went out last (CLOCK_MONOTONIC µs).
    private(set) var lastPingUs: UInt64?
    /// The STATUS= line last sent, and whether it was routine.
    private var lastStatus = (line: "", routine: false)
    /// The daemon's state version last seen, and whether STATUS= is yet to follow it.
    private var stateVersion = -1
    private var statusStale = false

    init(watchdogUs: UInt64?) { self.watchdogUs = watchdogUs }

    /// The message for a tick completed at `nowUs` (nil: nothing to say).
    /// `polling`: the loop ticks on a timer anyway, the ping waits for its time.
    mutating func afterTick(nowUs: UInt64, polling: Bool, stateVersion: Int, state: DaemonSnapshot) -> String? {
        var lines: [String] = []
        let ping = watchdogUs.map { watchdogUs in
            lastPingUs.map { nowUs &- $0 >= watchdogUs / 2 - (polling ? 0 : watchdogUs / 10) } ?? true
        } ?? false
        if ping {
            lines.append("WATCHDOG=1")
            lastPingUs = nowUs
        }
        if stateVersion != self.stateVersion {
            self.stateVersion = stateVersion
            statusStale = true
        }
        let routine = state.statusIsRoutine
        if statusStale, ping || watchdogUs == nil || !routine || !lastStatus.routine {
            statusStale = false
            let status = state.statusLine
            if status != lastStatus.line { lines.append("STATUS=\(status)") }
            lastStatus = (status, routine)
        }
        return lines.isEmpty ? nil : lines.joined(separator: "\n")
    }

    /// Half a WatchdogSec after the last ping, so pings stay at most half the
    /// watchdog apart however the ticks fell.
    var nextPingUs: UInt64? {
        guard let watchdogUs, let lastPingUs else { return nil }
        return lastPingUs + watchdogUs / 2
    }
}
