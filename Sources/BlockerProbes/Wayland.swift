import BlockerSystem
import CWayland
import Glibc

// The only file that touches libwayland (through CWayland): typed values in,
// events out as values; proxies never leave `WaylandConnection`.

/// A toplevel on one connection: its object id. The corresponding C value is
/// `wl_proxy_get_id` of a `zwlr_foreign_toplevel_handle_v1`.
struct WaylandToplevelID: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    var rawValue: UInt32
    init(rawValue: UInt32) { self.rawValue = rawValue }
    var description: String { "toplevel \(rawValue)" }
}

/// What the compositor sent, in order. The corresponding C values are
/// `enum cwl_event_kind` (cwayland.h).
enum WaylandEvent: Equatable, Sendable {
    /// `wl_registry.global`
    case global(name: UInt32, interface: String, version: UInt32)
    /// `wl_registry.global_remove`
    case globalRemoved(name: UInt32)
    /// `zwlr_foreign_toplevel_manager_v1.toplevel`
    case toplevelAdded(WaylandToplevelID)
    /// `zwlr_foreign_toplevel_handle_v1.title` / `.app_id` / `.state` (only
    /// `activated` is kept) / `.done` / `.closed`
    case title(WaylandToplevelID, String)
    case appID(WaylandToplevelID, String)
    case state(WaylandToplevelID, activated: Bool)
    case done(WaylandToplevelID)
    case closed(WaylandToplevelID)
    /// `zwlr_foreign_toplevel_manager_v1.finished`: no more toplevels will come.
    case managerFinished
    /// `wl_callback.done` of a `sync()`.
    case syncDone(UInt32)
}

/// Why a connection is unusable.
enum WaylandFailure: Error, Equatable, Sendable, CustomStringConvertible {
    /// The connection broke (`wl_display_get_error`): EPIPE when the compositor went away.
    case connectionLost(Errno)
    /// The compositor reported a protocol error about one of our objects.
    case protocolError(interface: String, code: UInt32)
    /// No answer before the deadline.
    case timedOut(ms: Milliseconds)
    /// libwayland could not set up a client object (out of memory).
    case setup(String)

    var description: String {
        switch self {
        case let .connectionLost(code) where code.rawValue == EPIPE: "the compositor closed the connection"
        case let .connectionLost(code): "connection lost: \(code)"
        case let .protocolError(interface, code): "protocol error \(code) on \(interface)"
        case let .timedOut(ms): "no answer within \(ms) ms"
        case let .setup(what): "cannot set up \(what)"
        }
    }
}

/// One client connection (`wl_display`). Not thread-safe: one owner calls it.
final class WaylandConnection {
    private let display: OpaquePointer
    /// Receives the C listeners' events; its context is `inbox`.
    private let sink: OpaquePointer
    private let inbox: Inbox
    private var registry: OpaquePointer?
    private var manager: OpaquePointer?
    private var seat: OpaquePointer?
    private var toplevels: [WaylandToplevelID: OpaquePointer] = [:]
    /// The socket libwayland reads (`wl_display_get_fd`).
    let fileDescriptor: Int32

    /// Collects events while libwayland dispatches (a class: C keeps its address).
    private final class Inbox {
        var events: [WaylandEvent] = []
        /// Handles announced since the last `takeEvents`, to be kept for `activate` and destroyed.
        var newHandles: [(WaylandToplevelID, OpaquePointer)] = []
    }

    private init(display: OpaquePointer, sink: OpaquePointer, inbox: Inbox) {
        self.display = display
        self.sink = sink
        self.inbox = inbox
        fileDescriptor = wl_display_get_fd(display)
    }

    /// Takes over `socket` (connected to a compositor); closed with the connection.
    static func adopt(_ socket: UnixSocket) throws(WaylandFailure) -> WaylandConnection {
        let inbox = Inbox()
        let context = Unmanaged.passUnretained(inbox).toOpaque()
        guard let sink = cwl_sink_new(deliver, context) else {
            socket.close()
            throw .setup("an event sink")
        }
        guard let display = wl_display_connect_to_fd(socket.rawValue) else {
            cwl_sink_free(sink)
            throw .setup("a display on fd \(socket.rawValue)")
        }
        return WaylandConnection(display: display, sink: sink, inbox: inbox)
    }

    deinit {
        for handle in toplevels.values { zwlr_foreign_toplevel_handle_v1_destroy(handle) }
        if let manager { zwlr_foreign_toplevel_manager_v1_destroy(manager) }
        if let seat { wl_seat_destroy(seat) }
        if let registry { wl_registry_destroy(registry) }
        wl_display_disconnect(display)          // closes the socket
        cwl_sink_free(sink)                     // after: nothing can dispatch into it now
    }

    // MARK: requests (buffered until `flush` or the next read)

    /// Asks for the globals: `.global` events follow.
    func listenToRegistry() throws(WaylandFailure) {
        guard registry == nil else { return }
        guard let created = cwl_registry(display, sink) else { throw .setup("the registry") }
        registry = created
    }

    /// Binds the foreign-toplevel manager announced as `name`; every toplevel follows.
    func bindToplevelManager(name: UInt32, version: UInt32) throws(WaylandFailure) {
        guard let registry, manager == nil else { return }
        guard let bound = cwl_bind_toplevel_manager(registry, name, version, sink) else {
            throw .setup("zwlr_foreign_toplevel_manager_v1")
        }
        manager = bound
    }

    /// Binds the seat announced as `name` (what `activate` names).
    func bindSeat(name: UInt32) throws(WaylandFailure) {
        guard let registry, seat == nil else { return }
        guard let bound = cwl_bind_seat(registry, name) else { throw .setup("wl_seat") }
        seat = bound
    }

    /// `wl_display.sync`: `.syncDone(id)` comes once the compositor handled everything before it.
    func sync() throws(WaylandFailure) -> UInt32 {
        let id = cwl_sync(display, sink)
        guard id != 0 else { throw .setup("wl_display.sync") }
        return id
    }

    /// `zwlr_foreign_toplevel_handle_v1.activate(seat)`: asks the compositor to
    /// focus `toplevel` (tests and the bench switch focus with it). False when
    /// the toplevel or the seat is unknown.
    func activate(_ toplevel: WaylandToplevelID) -> Bool {
        guard let handle = toplevels[toplevel], let seat else { return false }
        zwlr_foreign_toplevel_handle_v1_activate(handle, seat)
        return true
    }

    // MARK: I/O, never blocking

    /// Sends the buffered requests. A full socket buffer is not an error: the rest goes with the next flush.
    func flush() throws(WaylandFailure) {
        if wl_display_flush(display) < 0 && errno != EAGAIN { try checkError() }
    }

    /// Reads what has arrived and dispatches it, without waiting: the events, in order.
    func readEvents() throws(WaylandFailure) -> [WaylandEvent] {
        // Events already queued must be dispatched before libwayland lets us read.
        while wl_display_prepare_read(display) != 0 {
            if wl_display_dispatch_pending(display) < 0 { try failed() }
        }
        try flush()
        var pfd = pollfd(fd: fileDescriptor, events: Int16(POLLIN), revents: 0)
        if poll(&pfd, 1, 0) > 0 {
            if wl_display_read_events(display) < 0 { try failed() }   // EOF is EPIPE here
        } else {
            wl_display_cancel_read(display)
        }
        if wl_display_dispatch_pending(display) < 0 { try failed() }
        try checkError()
        return takeEvents()
    }

    /// Reads until `.syncDone` of a fresh sync arrives (everything requested so far
    /// has been answered), waiting at most `timeoutMs` in all: the events, in order.
    func roundTrip(timeoutMs: Milliseconds) throws(WaylandFailure) -> [WaylandEvent] {
        let id = try sync()
        let deadline = Deadline.after(timeoutMs)
        var events: [WaylandEvent] = []
        while true {
            let read = try readEvents()
            events += read
            if read.contains(.syncDone(id)) { return events.filter { $0 != .syncDone(id) } }
            // A poll error is left to the next read, which says what it is.
            guard (try? deadline.wait(for: fileDescriptor)) != false else { throw .timedOut(ms: timeoutMs) }
        }
    }

    private func takeEvents() -> [WaylandEvent] {
        let events = inbox.events
        inbox.events.removeAll(keepingCapacity: true)
        for (id, handle) in inbox.newHandles { toplevels[id] = handle }
        inbox.newHandles.removeAll()
        for event in events {
            // A closed toplevel's handle is ours to destroy (the protocol says so).
            if case let .closed(id) = event, let handle = toplevels.removeValue(forKey: id) {
                zwlr_foreign_toplevel_handle_v1_destroy(handle)
            }
        }
        return events
    }

    /// After a call returned -1: the display's error, or errno when it has none.
    private func failed() throws(WaylandFailure) -> Never {
        let code = Errno.current
        try checkError()
        throw .connectionLost(code)
    }

    private func checkError() throws(WaylandFailure) {
        let code = wl_display_get_error(display)
        guard code != 0 else { return }
        if code == EPROTO {
            var interface: UnsafePointer<wl_interface>?
            var id: UInt32 = 0
            let protocolCode = wl_display_get_protocol_error(display, &interface, &id)
            let name = interface.map { String(cString: $0.pointee.name) } ?? "the display"
            throw .protocolError(interface: name, code: protocolCode)
        }
        throw .connectionLost(Errno(rawValue: code))
    }

    /// Called by the C listeners (through the sink) while libwayland dispatches.
    private static let deliver: cwl_event_handler = { context, event in
        guard let context, let event = event?.pointee else { return }
        let inbox = Unmanaged<Inbox>.fromOpaque(context).takeUnretainedValue()
        let text = event.text.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: strlen($0)), as: UTF8.self) } ?? ""
        let toplevel = WaylandToplevelID(rawValue: event.id)
        switch event.kind {
        case CWL_GLOBAL: inbox.events.append(.global(name: event.name, interface: text, version: event.version))
        case CWL_GLOBAL_REMOVE: inbox.events.append(.globalRemoved(name: event.name))
        case CWL_TOPLEVEL_NEW:
            inbox.events.append(.toplevelAdded(toplevel))
            if let handle = event.toplevel { inbox.newHandles.append((toplevel, handle)) }
        case CWL_TOPLEVEL_TITLE: inbox.events.append(.title(toplevel, text))
        case CWL_TOPLEVEL_APP_ID: inbox.events.append(.appID(toplevel, text))
        case CWL_TOPLEVEL_STATE: inbox.events.append(.state(toplevel, activated: event.activated != 0))
        case CWL_TOPLEVEL_DONE: inbox.events.append(.done(toplevel))
        case CWL_TOPLEVEL_CLOSED: inbox.events.append(.closed(toplevel))
        case CWL_MANAGER_FINISHED: inbox.events.append(.managerFinished)
        case CWL_SYNC_DONE: inbox.events.append(.syncDone(event.id))
        default: break
        }
    }
}
