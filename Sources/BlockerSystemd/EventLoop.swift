import CSystemd
import Glibc

/// One thread's event loop: a thin wrapper over `sd_event`. Callbacks run on
/// the loop; bus connections join it with `BusConnection.attach(to:)`.
///
/// The loop keeps every source it made until `remove(_:)` or its own end, so
/// a callback never runs for a source that is gone.
public final class EventLoop {
    /// Internal: `BusConnection` attaches to it; nothing outside this module sees it.
    let event: OpaquePointer
    private var sources: [EventSource] = []

    public init() throws(SystemdError) {
        var created: OpaquePointer?
        try SystemdError.check(sd_event_new(&created), "sd_event_new")
        event = created!
    }

    deinit {
        for source in sources { source.release() }
        sd_event_unref(event)
    }

    /// Runs until `exit(code:)`; returns that code.
    public func run() throws(SystemdError) -> Int32 {
        try SystemdError.check(sd_event_loop(event), "sd_event_loop")
    }

    /// Makes `run()` return `code` once the current callback is done.
    public func exit(code: Int32) {
        sd_event_exit(event, code)
    }

    /// CLOCK_MONOTONIC now, in µs, as the loop sees it (cached per iteration).
    public var now: UInt64 {
        var usec: UInt64 = 0
        sd_event_now(event, CLOCK_MONOTONIC, &usec)
        return usec
    }

    /// A timer, off until armed, that fires once per `arm`; re-arm it from
    /// its handler to repeat.
    public func timer(_ handler: @escaping () -> Void) throws(SystemdError) -> EventTimer {
        let timer = EventTimer(handler: handler)
        var source: OpaquePointer?
        // 1 ms accuracy: sd-event may coalesce wake-ups within it.
        try SystemdError.check(
            sd_event_add_time(event, &source, CLOCK_MONOTONIC, UInt64.max, 1000, { _, _, userdata in
                Unmanaged<EventTimer>.fromOpaque(userdata!).takeUnretainedValue().handler()
                return 0
            }, Unmanaged.passUnretained(timer).toOpaque()),
            "sd_event_add_time")
        timer.source = source
        // The corresponding C constant is SD_EVENT_OFF.
        sd_event_source_set_enabled(source, Int32(SD_EVENT_OFF))
        sources.append(timer)
        return timer
    }

    /// Handles `signal` on the loop (it is blocked for the process first, as
    /// sd_event_add_signal requires).
    public func onSignal(_ signal: Int32, _ handler: @escaping () -> Void) throws(SystemdError) {
        var mask = sigset_t()
        sigemptyset(&mask)
        sigaddset(&mask, signal)
        pthread_sigmask(SIG_BLOCK, &mask, nil)
        let box = CallbackSource(handler: handler)
        var source: OpaquePointer?
        try SystemdError.check(
            sd_event_add_signal(event, &source, signal, { _, _, userdata in
                Unmanaged<CallbackSource>.fromOpaque(userdata!).takeUnretainedValue().handler()
                return 0
            }, Unmanaged.passUnretained(box).toOpaque()),
            "sd_event_add_signal")
        box.source = source
        sources.append(box)
    }

    /// Calls `handler` whenever `fd` is readable (or hung up). Returns a source
    /// to `remove` when the fd is closed.
    public func onReadable(_ fd: Int32, _ handler: @escaping () -> Void) throws(SystemdError) -> EventSource {
        let box = CallbackSource(handler: handler)
        var source: OpaquePointer?
        try SystemdError.check(
            sd_event_add_io(event, &source, fd, UInt32(EPOLLIN.rawValue), { _, _, _, userdata in
                Unmanaged<CallbackSource>.fromOpaque(userdata!).takeUnretainedValue().handler()
                return 0
            }, Unmanaged.passUnretained(box).toOpaque()),
            "sd_event_add_io")
        box.source = source
        sources.append(box)
        return box
    }

    /// Stops watching and forgets `source`.
    public func remove(_ source: EventSource) {
        source.release()
        sources.removeAll { $0 === source }
    }
}

/// One registration in the loop (an `sd_event_source`).
public class EventSource {
    fileprivate var source: OpaquePointer?

    fileprivate init() {}

    /// Whether the loop watches it. A disabled fd source lets its data wait
    /// (nobody is woken for it) until enabled again; setting the state it
    /// has already costs no syscall.
    public var isEnabled: Bool {
        get {
            var enabled: Int32 = 0
            sd_event_source_get_enabled(source, &enabled)
            return enabled != Int32(SD_EVENT_OFF)
        }
        set {
            // The corresponding C constants are SD_EVENT_ON and SD_EVENT_OFF.
            sd_event_source_set_enabled(source, Int32(newValue ? SD_EVENT_ON : SD_EVENT_OFF))
        }
    }

    fileprivate func release() {
        if let source { sd_event_source_disable_unref(source) }
        source = nil
    }
}

private final class CallbackSource: EventSource {
    let handler: () -> Void
    init(handler: @escaping () -> Void) { self.handler = handler }
}

/// A one-shot CLOCK_MONOTONIC timer; arm it again to fire again.
public final class EventTimer: EventSource {
    fileprivate let handler: () -> Void
    fileprivate init(handler: @escaping () -> Void) { self.handler = handler }

    /// Fires once, `usec` µs after the loop's current time.
    public func arm(afterMicroseconds usec: UInt64) {
        sd_event_source_set_time_relative(source, usec)
        // The corresponding C constant is SD_EVENT_ONESHOT.
        sd_event_source_set_enabled(source, Int32(SD_EVENT_ONESHOT))
    }

    /// Fires once at CLOCK_MONOTONIC `usec`.
    public func arm(atMicroseconds usec: UInt64) {
        sd_event_source_set_time(source, usec)
        sd_event_source_set_enabled(source, Int32(SD_EVENT_ONESHOT))
    }

    public func disarm() {
        sd_event_source_set_enabled(source, Int32(SD_EVENT_OFF))
    }

    /// Whether it will fire (armed and not fired yet).
    public var isArmed: Bool { isEnabled }
}
