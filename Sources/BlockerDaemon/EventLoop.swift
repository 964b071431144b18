import BlockerBus
import CSystemd
import Glibc

/// An error from a libsystemd call: the negative errno it returned.
public struct SystemdError: Error, CustomStringConvertible, Sendable {
    public let call: String
    public let errno: Int32
    public var description: String { "\(call): \(String(cString: strerror(errno)))" }

    /// libsystemd returns -errno on failure.
    @discardableResult
    static func check(_ result: Int32, _ call: String) throws(SystemdError) -> Int32 {
        if result < 0 { throw SystemdError(call: call, errno: -result) }
        return result
    }
}

/// The daemon's single thread: a thin wrapper over `sd_event`. Callbacks run
/// on the loop; raw pointers never leave this file.
public final class EventLoop {
    let event: OpaquePointer
    private var sources: [EventSource] = []

    public init() throws(SystemdError) {
        var e: OpaquePointer?
        try SystemdError.check(sd_event_new(&e), "sd_event_new")
        event = e!
    }

    deinit {
        for source in sources { source.release() }
        sd_event_unref(event)
    }

    /// Runs until `exit(code:)`; returns that code.
    public func run() throws(SystemdError) -> Int32 {
        try SystemdError.check(sd_event_loop(event), "sd_event_loop")
    }

    public func exit(code: Int32) {
        sd_event_exit(event, code)
    }

    /// Serves `server`'s bus connection from this loop (sd_bus_attach_event).
    public func attach(_ server: BlockerServer) throws(SystemdError) {
        do { try server.attach(toEvent: event) } catch { throw SystemdError(call: error.call, errno: error.errno) }
    }

    /// CLOCK_MONOTONIC now, in µs, as the loop sees it (cached per iteration).
    public var now: UInt64 {
        var usec: UInt64 = 0
        sd_event_now(event, CLOCK_MONOTONIC, &usec)
        return usec
    }

    /// A timer that fires once at each `arm`; re-arm it from its handler to repeat.
    public func timer(_ handler: @escaping () -> Void) throws(SystemdError) -> Timer {
        let timer = Timer(handler: handler)
        var source: OpaquePointer?
        try SystemdError.check(
            sd_event_add_time(event, &source, CLOCK_MONOTONIC, UInt64.max, 1000, { _, _, userdata in
                Unmanaged<Timer>.fromOpaque(userdata!).takeUnretainedValue().handler()
                return 0
            }, Unmanaged.passUnretained(timer).toOpaque()),
            "sd_event_add_time")
        timer.source = source
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
        let box = Callback(handler: handler)
        var source: OpaquePointer?
        try SystemdError.check(
            sd_event_add_signal(event, &source, signal, { _, _, userdata in
                Unmanaged<Callback>.fromOpaque(userdata!).takeUnretainedValue().handler()
                return 0
            }, Unmanaged.passUnretained(box).toOpaque()),
            "sd_event_add_signal")
        box.source = source
        sources.append(box)
    }

    /// Calls `handler` whenever `fd` is readable (or hung up). Returns a source
    /// that can be removed when the fd is closed.
    public func onReadable(_ fd: Int32, _ handler: @escaping () -> Void) throws(SystemdError) -> EventSource {
        let box = Callback(handler: handler)
        var source: OpaquePointer?
        try SystemdError.check(
            sd_event_add_io(event, &source, fd, UInt32(EPOLLIN.rawValue), { _, _, _, userdata in
                Unmanaged<Callback>.fromOpaque(userdata!).takeUnretainedValue().handler()
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

/// One registration in the loop.
public class EventSource {
    fileprivate var source: OpaquePointer?
    fileprivate func release() {
        if let source { sd_event_source_disable_unref(source) }
        source = nil
    }
}

private final class Callback: EventSource {
    let handler: () -> Void
    init(handler: @escaping () -> Void) { self.handler = handler }
}

/// A one-shot CLOCK_MONOTONIC timer.
public final class Timer: EventSource {
    fileprivate let handler: () -> Void
    fileprivate init(handler: @escaping () -> Void) { self.handler = handler }

    /// Fires once, `usec` µs after the loop's current time.
    public func arm(afterMicroseconds usec: UInt64) {
        sd_event_source_set_time_relative(source, usec)
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
}
