import BlockerCore

/// Asks the display server which window is in front.
///
/// One file per backend; `ProbeSelection` picks one. A probe never throws past
/// `sample()`: failures are values, so the daemon can debit nothing and log
/// them once per streak.
public protocol ForegroundProbe: AnyObject {
    /// `x11`, `sway`, `hyprland`, `command`: shown in status and logs.
    var name: String { get }
    /// What is in front now, or why that could not be told.
    func sample() -> Result<Reading, ProbeFailure>
    /// A descriptor that becomes readable when the foreground may have changed,
    /// for event-driven backends; nil when polling is all there is.
    var eventDescriptor: Int32? { get }
    /// Bumped on every (re)connection, so the daemon re-registers even when a
    /// new connection got the old fd number (epoll forgets closed fds).
    var eventGeneration: Int { get }
    /// Reads whatever made `eventDescriptor` readable (so it stops being
    /// readable). A dead connection must make `eventDescriptor` nil here, or
    /// the loop would spin on a hung-up fd.
    func drainEvents()
    /// `drainEvents`, saying whether what arrived may have changed the answer:
    /// the loop skips the tick when it cannot (a property nobody reads changed).
    func drainEventsMayHaveChanged() -> Bool
    /// How long one change's burst of events lasts, in µs: the loop stops
    /// watching `eventDescriptor` at the first event and reads them all this
    /// long after it, one wake-up and one sample for the burst. 0: each event
    /// is read when it arrives (it carries the whole change).
    var eventBurstUs: UInt64 { get }
    /// Ends whatever the probe runs on its own (a streaming program): blockerd
    /// calls it when it stops, since an exiting process runs no deinit.
    func shutdown()
    /// A monotonic instant at which the loop calls `check()` even if no
    /// event came (the kde probe asks KWin then whether its script still
    /// runs); nil: events and the poll are enough.
    var nextCheck: MonotonicInstant? { get }
    /// Asks what `nextCheck` is due for, without waiting and without a
    /// sample: the answer arrives as an event, and ticks only if it changes something.
    func check()
    /// Why this backend never knows a window's pid (wlroots: the protocol has
    /// none), for `blockerctl probe`; nil when it gives one where it can.
    var pidUnavailable: String? { get }
    /// Time since the last input, as the display server counts it, asked
    /// now (X11: MIT-SCREEN-SAVER); nil where the backend cannot tell. Used
    /// as evidence against a screen lock nothing vouches for.
    func inputIdle() -> Milliseconds?
    /// Hides `window` for "Not now": minimizes it where the desktop can
    /// (reversible, nothing lost, unlike closing), else its nearest
    /// equivalent (sway's scratchpad, a Hyprland special workspace). `window`
    /// is one this probe reported: its `handle` says which. The answer in
    /// front changes; the caller samples again after it.
    func hide(_ window: Window) -> HideResult
    /// The windows (nil: nothing) it heard in front since the last sample,
    /// before the one `sample()` gives, oldest first; taken once. A shell's
    /// reports come in bursts (a switch, then its plugin giving the focus
    /// back to blocker's cover): the window switched to must not be lost.
    func takeSkippedFocus() -> [Window?]
}

extension ForegroundProbe {
    public var eventDescriptor: Int32? { nil }
    public var eventGeneration: Int { 0 }
    public func drainEvents() {}
    public func drainEventsMayHaveChanged() -> Bool {
        drainEvents()
        return true
    }
    public func shutdown() {}
    public var pidUnavailable: String? { nil }
    public func inputIdle() -> Milliseconds? { nil }
    public var eventBurstUs: UInt64 { 0 }
    public var nextCheck: MonotonicInstant? { nil }
    public func check() {}
    public func hide(_ window: Window) -> HideResult { .unsupported("this probe cannot hide windows") }
    public func takeSkippedFocus() -> [Window?] { [] }
}

/// What came of asking a probe to hide a window (`ForegroundProbe.hide`).
public enum HideResult: Equatable, Sendable, CustomStringConvertible {
    /// The desktop hid it.
    case hidden
    /// This desktop, or this probe, has no way to hide a window: why.
    case unsupported(String)
    /// It has one, and it did not work this time: why.
    case failed(String)

    public var description: String {
        switch self {
        case .hidden: "hidden"
        case let .unsupported(why): "cannot hide windows here: \(why)"
        case let .failed(why): "could not hide the window: \(why)"
        }
    }
}

/// Why a backend cannot run here ("sway: SWAYSOCK is not set"): logged once
/// and shown by `blockerctl probe` and `doctor`.
public struct ProbeUnavailable: Error, Equatable, Sendable, CustomStringConvertible {
    public var probe: String
    public var reason: String
    public init(probe: String, reason: String) {
        self.probe = probe
        self.reason = reason
    }
    public var description: String { "\(probe): \(reason)" }
}
