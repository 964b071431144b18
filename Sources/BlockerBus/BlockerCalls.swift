import BlockerCore

// The two sides of io.github.blockerd.Blocker1: what a client calls
// (`BlockerCalls`, `BlockerSignalSource`; `BlockerClient` implements them)
// and what blockerd does for each method (`BlockerMethods`).

/// blockerd as its clients see it. `BlockerClient` implements it over the session bus.
public protocol BlockerCalls {
    func status() throws(BusFailure) -> StatusReport
    func earn(exercise: String, reps: UInt32) throws(BusFailure) -> (earnedMs: Milliseconds, balanceMs: Milliseconds)
    /// `Earn` that a retry with the same `requestID` cannot credit twice
    /// (an older blockerd lacks EarnOnce: then `Earn`).
    func earnOnce(requestID: String, exercise: String, reps: UInt32) throws(BusFailure) -> (earnedMs: Milliseconds, balanceMs: Milliseconds)
    func blockFor(target: String, seconds: UInt64) throws(BusFailure) -> WallInstant
    func unblock(target: String) throws(BusFailure)
    func history(days: UInt32) throws(BusFailure) -> [HistoryRow]
    func reload() throws(BusFailure)
    func pendingChanges() throws(BusFailure) -> [PendingChange]
    func cancelPending() throws(BusFailure) -> UInt32
    func gaps(days: UInt32) throws(BusFailure) -> [Gap]
    /// `Gaps` with each gap's unguarded part (an older blockerd lacks GapsEx).
    func gapsEx(days: UInt32) throws(BusFailure) -> [Gap]
    /// What blockerd recorded as a possible way around it (an older blockerd lacks Notes).
    func notes(days: UInt32) throws(BusFailure) -> [IntegrityNote]
    /// An emergency pass for `group`; its end.
    func usePass(group: String) throws(BusFailure) -> WallInstant
    /// The answer to the pause before `group` opens.
    func answerPause(group: String, open: Bool, reason: String) throws(BusFailure)
    /// Opens, pauses and passes per local day and group over the last `days` days.
    func opens(days: UInt32) throws(BusFailure) -> [OpenDaySummary]
}

/// What blockerd does for each method. `BlockerExport` has already checked
/// the caller's uid and the declaration's bounds.
public protocol BlockerMethods: AnyObject {
    func status() throws(MethodError) -> StatusReport
    /// `exercise` may be "" (the only one configured). Committed before it returns.
    func earn(exercise: String, reps: UInt32) throws(MethodError) -> (earnedMs: Milliseconds, balanceMs: Milliseconds)
    /// `earn`, unless `requestID` was credited before: then what that earning
    /// earned and the balance now (a client's retry after a timeout).
    func earnOnce(requestID: String, exercise: String, reps: UInt32) throws(MethodError) -> (earnedMs: Milliseconds, balanceMs: Milliseconds)
    /// Returns the block's end.
    func blockFor(target: String, seconds: UInt64) throws(MethodError) -> WallInstant
    func unblock(target: String) throws(MethodError)
    func history(days: UInt32) throws(MethodError) -> [HistoryRow]
    func reload() throws(MethodError)
    /// Strict mode's waiting config changes, soonest first.
    func pendingChanges() throws(MethodError) -> [PendingChange]
    /// Drops them (their loosenings never apply); returns how many versions.
    func cancelPending() throws(MethodError) -> UInt32
    /// The stretches blockerd did not run in the last `days` local days.
    func gaps(days: UInt32) throws(MethodError) -> [Gap]
    /// `caller`: the call's sender, its unique name on the bus, whose process
    /// blockerd checks is blocker-overlay.
    func coverShown(_ shown: Bool, caller: String) throws(MethodError)
    /// The integrity notes overlapping the last `days` local days, oldest first.
    func notes(days: UInt32) throws(MethodError) -> [IntegrityNote]
    /// Uses one of this week's passes on `group`; returns when it ends.
    func usePass(group: String) throws(MethodError) -> WallInstant
    /// "Open" (`open`) or "Not now" on the pause before `group` opens.
    func answerPause(group: String, open: Bool, reason: String) throws(MethodError)
    /// The last `days` local days' opens, oldest first.
    func opens(days: UInt32) throws(MethodError) -> [OpenDaySummary]
    /// The browser extension's word on the active tab, from the native host
    /// `caller` (its unique name: blockerd checks its process and takes its parent for the browser).
    func reportTab(_ tab: BrowserTab, focused: Bool, caller: String) throws(MethodError)
}

extension BlockerMethods {
    /// `GapsEx`: the same rows as `Gaps`, which carries `unguardedSince` too.
    public func gapsEx(days: UInt32) throws(MethodError) -> [Gap] { try gaps(days: days) }
}

extension BlockerClient: BlockerCalls {
    public func status() throws(BusFailure) -> StatusReport { try call(BlockerInterface.status, ()) }
    public func earn(exercise: String, reps: UInt32) throws(BusFailure) -> (earnedMs: Milliseconds, balanceMs: Milliseconds) {
        try call(BlockerInterface.earn, (exercise, reps))
    }
    public func earnOnce(requestID: String, exercise: String, reps: UInt32) throws(BusFailure) -> (earnedMs: Milliseconds, balanceMs: Milliseconds) {
        do {
            return try call(BlockerInterface.earnOnce, (requestID, exercise, reps))
        } catch .refused(name: "org.freedesktop.DBus.Error.UnknownMethod", _) {
            return try earn(exercise: exercise, reps: reps)
        }
    }
    public func blockFor(target: String, seconds: UInt64) throws(BusFailure) -> WallInstant {
        try call(BlockerInterface.blockFor, (target, seconds))
    }
    public func unblock(target: String) throws(BusFailure) { try call(BlockerInterface.unblock, target) }
    public func history(days: UInt32) throws(BusFailure) -> [HistoryRow] { try call(BlockerInterface.history, days) }
    public func reload() throws(BusFailure) { try call(BlockerInterface.reload, ()) }
    public func pendingChanges() throws(BusFailure) -> [PendingChange] { try call(BlockerInterface.pendingChanges, ()) }
    public func cancelPending() throws(BusFailure) -> UInt32 { try call(BlockerInterface.cancelPending, ()) }
    public func gaps(days: UInt32) throws(BusFailure) -> [Gap] { try call(BlockerInterface.gaps, days) }
    public func gapsEx(days: UInt32) throws(BusFailure) -> [Gap] { try call(BlockerInterface.gapsEx, days) }
    public func notes(days: UInt32) throws(BusFailure) -> [IntegrityNote] { try call(BlockerInterface.notes, days) }
    public func usePass(group: String) throws(BusFailure) -> WallInstant { try call(BlockerInterface.usePass, group) }
    public func answerPause(group: String, open: Bool, reason: String) throws(BusFailure) {
        try call(BlockerInterface.answerPause, (group, open, reason))
    }
    public func opens(days: UInt32) throws(BusFailure) -> [OpenDaySummary] { try call(BlockerInterface.opens, days) }
}

extension BlockerClient {
    /// blocker-overlay only: its cover is drawn (true) or hidden (false). See `BlockerInterface.coverShown`.
    public func coverShown(_ shown: Bool) throws(BusFailure) { try call(BlockerInterface.coverShown, (shown, "")) }
    /// blocker's native messaging host only: the browser's active tab. See `BlockerInterface.reportTab`.
    public func reportTab(_ tab: BrowserTab, focused: Bool) throws(BusFailure) {
        try call(BlockerInterface.reportTab, (tab, focused, ""))
    }
}

/// blockerd's signals, for a program that follows them (`blockerctl status
/// --follow`): `BlockerClient` is one; a connection that cannot follow is not.
public protocol BlockerSignalSource {
    func onShieldChanged(_ handler: @escaping (ShieldState) -> Void) throws(BusFailure) -> BlockerSubscription
    func onBalanceChanged(_ handler: @escaping (Milliseconds) -> Void) throws(BusFailure) -> BlockerSubscription
    func onDaemonRunningChanged(_ handler: @escaping (Bool) -> Void) throws(BusFailure) -> BlockerSubscription
    /// Waits up to `microseconds` for bus traffic (`UInt64.max`: for ever), then runs the handlers.
    func waitAndDispatch(microseconds: UInt64) throws(BusFailure)
}

extension BlockerClient: BlockerSignalSource {}

/// A fresh id for `EarnOnce`: 128 random bits in hex.
public enum EarnRequestID {
    public static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        return [generator.next(), generator.next()].map { (half: UInt64) in
            let digits = String(half, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }.joined()
    }
}
