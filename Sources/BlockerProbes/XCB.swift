import BlockerSystem
import CXCB
import Glibc

// The only file that touches libxcb: typed values in, typed values out; raw
// pointers and replies are freed before a function returns.

/// An X atom. The corresponding C type is `xcb_atom_t`.
struct XAtom: RawRepresentable, Hashable, Sendable {
    var rawValue: UInt32
    init(rawValue: UInt32) { self.rawValue = rawValue }

    /// "No atom"; as a requested type it means any type (`XCB_GET_PROPERTY_TYPE_ANY`).
    static let none = XAtom(rawValue: 0)
    static let anyPropertyType = XAtom(rawValue: 0)
    /// Predefined atoms (`XCB_ATOM_STRING`, `XCB_ATOM_WM_NAME`, `XCB_ATOM_WM_CLASS`).
    static let string = XAtom(rawValue: 31)
    static let wmName = XAtom(rawValue: 39)
    static let wmClass = XAtom(rawValue: 67)
}

/// A window id. The corresponding C type is `xcb_window_t`.
struct XWindow: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    var rawValue: UInt32
    init(rawValue: UInt32) { self.rawValue = rawValue }
    static let none = XWindow(rawValue: 0)
    var description: String { "0x" + String(rawValue, radix: 16) }
}

/// Events a client asks for on a window. The corresponding C type is `xcb_event_mask_t`.
struct XEventMask: OptionSet, Sendable {
    var rawValue: UInt32
    /// `XCB_EVENT_MASK_PROPERTY_CHANGE`
    static let propertyChange = XEventMask(rawValue: XCB_EVENT_MASK_PROPERTY_CHANGE.rawValue)
    /// `XCB_EVENT_MASK_STRUCTURE_NOTIFY`: among others, DestroyNotify.
    static let structureNotify = XEventMask(rawValue: XCB_EVENT_MASK_STRUCTURE_NOTIFY.rawValue)
}

/// A property value as the server stored it.
struct XProperty: Equatable, Sendable {
    var type: XAtom
    /// 8, 16 or 32 bits per item.
    var format: UInt8
    var bytes: [UInt8]

    /// The items of a 32-bit property (CARDINAL, WINDOW…), in host order.
    var uint32Values: [UInt32] {
        guard format == 32 else { return [] }
        return stride(from: 0, to: bytes.count - 3, by: 4).map { i in
            bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: i, as: UInt32.self) }
        }
    }
}

/// MIT-SCREEN-SAVER's view of the screen. The corresponding C type is
/// `xcb_screensaver_query_info_reply_t`.
struct XScreenSaverInfo: Equatable, Sendable {
    /// The corresponding C constants are `XCB_SCREENSAVER_STATE_*`.
    enum State: UInt8, Sendable { case off = 0, on = 1, cycle = 2, disabled = 3 }
    var state: State?
    var msSinceUserInput: UInt32
}

/// What arrived on the connection without being asked for.
enum XEvent: Equatable, Sendable {
    /// `XCB_PROPERTY_NOTIFY`: `atom` of `window` changed or was deleted, after
    /// the server had handled our requests up to `sequence` (its low 16 bits).
    case propertyNotify(window: XWindow, atom: XAtom, sequence: UInt16)
    /// `XCB_DESTROY_NOTIFY`: `window` is gone.
    case destroyNotify(window: XWindow)
    /// MIT-SCREEN-SAVER's notify event: the saver turned on or off.
    case screenSaverNotify(state: XScreenSaverInfo.State?)
    /// An error for a request whose reply nobody waits for (say, selecting
    /// input on a window that is already gone).
    case error(code: UInt8)
    case other(responseType: UInt8)
}

/// Why a connection is unusable. The corresponding C values are the
/// `XCB_CONN_*` codes of `xcb_connection_has_error`.
struct XConnectionError: Error, Equatable, Sendable, CustomStringConvertible {
    var code: Int32
    var description: String {
        switch code {
        case 1: "socket, pipe or stream error (no X server there, or it went away)"
        case 2: "an extension is not supported"
        case 3: "out of memory"
        case 4: "request too long"
        case 5: "cannot parse the display name"
        case 6: "no such screen"
        case 7: "file descriptor passing failed"
        default: "xcb error \(code)"
        }
    }
}

/// Why one request got no answer.
enum XRequestFailure: Error, Equatable, Sendable {
    /// The server answered with an X error (`BadWindow` = 3: the window is gone).
    case protocolError(code: UInt8)
    /// No answer before the deadline: a stopped or overloaded server.
    case timedOut
    /// The connection broke; `XConnection.error` says how.
    case connectionLost

    static let badWindow: UInt8 = 3
}

/// A request sent and not yet answered: holds only its sequence number and
/// how to read its reply.
struct XCookie<Value> {
    fileprivate let sequence: UInt32
    fileprivate let decode: (UnsafeMutableRawPointer) -> Value

    /// Whether an event stamped `eventSequence` was generated before the
    /// server handled this request: what this request reads already shows it.
    /// (Events carry the low 16 bits of the last request handled; a window of
    /// 32,767 requests either way is far more than one look sends.)
    func wasHandledAfter(eventSequence: UInt16) -> Bool {
        Self.request(sequence, wasHandledAfter: eventSequence)
    }

    static func request(_ request: UInt32, wasHandledAfter eventSequence: UInt16) -> Bool {
        Int16(bitPattern: UInt16(truncatingIfNeeded: request) &- eventSequence) > 0
    }
}

/// One connection to an X server (`xcb_connection_t`), closed on deinit.
final class XConnection {
    private let connection: OpaquePointer
    let root: XWindow
    /// The first event code of MIT-SCREEN-SAVER, nil when the server lacks it.
    let screenSaverEventBase: UInt8?
    let hasResourceExtension: Bool
    /// Requests with replies sent so far: tests check that a sample with
    /// nothing changed sends none.
    private(set) var requestsSent = 0

    private init(connection: OpaquePointer, root: XWindow, screenSaverEventBase: UInt8?, hasResourceExtension: Bool) {
        self.connection = connection
        self.root = root
        self.screenSaverEventBase = screenSaverEventBase
        self.hasResourceExtension = hasResourceExtension
    }

    deinit { xcb_disconnect(connection) }

    /// Connects to `display` (`:0`), or `$DISPLAY` when nil.
    static func open(display: String?) -> Result<XConnection, XConnectionError> {
        var screenNumber: Int32 = 0
        // xcb_connect never returns NULL: a failed connection is an object in an error state.
        guard let c = xcb_connect(display, &screenNumber) else { return .failure(XConnectionError(code: 3)) }
        let code = xcb_connection_has_error(c)
        guard code == 0 else {
            xcb_disconnect(c)
            return .failure(XConnectionError(code: code))
        }
        var screens = xcb_setup_roots_iterator(xcb_get_setup(c))
        var index: Int32 = 0
        while screens.rem > 0 && index < screenNumber {
            xcb_screen_next(&screens)
            index += 1
        }
        guard screens.rem > 0, let screen = screens.data else {
            xcb_disconnect(c)
            return .failure(XConnectionError(code: 6))
        }
        let root = XWindow(rawValue: screen.pointee.root)
        // Both queries go out together; a request for an absent extension
        // would close the connection, so they are asked about first.
        cxcb_prefetch_extensions(c)
        let saver = cxcb_screensaver_extension(c)
        let res = cxcb_res_extension(c)
        let saverBase: UInt8? = (saver?.pointee.present ?? 0) != 0 ? saver!.pointee.first_event : nil
        let hasRes = (res?.pointee.present ?? 0) != 0
        let errorAfterSetup = xcb_connection_has_error(c)
        guard errorAfterSetup == 0 else {
            xcb_disconnect(c)
            return .failure(XConnectionError(code: errorAfterSetup))
        }
        return .success(XConnection(connection: c, root: root, screenSaverEventBase: saverBase, hasResourceExtension: hasRes))
    }

    /// Why the connection is broken, or nil while it works.
    var error: XConnectionError? {
        let code = xcb_connection_has_error(connection)
        return code == 0 ? nil : XConnectionError(code: code)
    }

    /// Readable when events or replies arrive (or the server hangs up).
    var fileDescriptor: Int32 { xcb_get_file_descriptor(connection) }

    // MARK: Requests without replies

    /// Replaces this client's event mask on `window` (other clients' masks are their own).
    func selectInput(_ window: XWindow, _ mask: XEventMask) {
        var values: [UInt32] = [mask.rawValue]
        xcb_change_window_attributes(connection, window.rawValue, XCB_CW_EVENT_MASK.rawValue, &values)
    }

    /// Asks for MIT-SCREEN-SAVER notify events (saver on/off) on `window`'s screen.
    func selectScreenSaverNotify(_ window: XWindow) {
        guard screenSaverEventBase != nil else { return }
        xcb_screensaver_select_input(connection, window.rawValue, XCB_SCREENSAVER_EVENT_NOTIFY_MASK.rawValue)
    }

    /// Sends a 32-bit ClientMessage about `window` to the root, as a client
    /// asks the window manager for something (ICCCM, EWMH): the window
    /// manager selects SubstructureRedirect there. `data`: at most 5 items.
    func sendToWindowManager(about window: XWindow, type: XAtom, data: [UInt32]) {
        let d = data + Array(repeating: 0, count: max(0, 5 - data.count))
        var event = xcb_client_message_event_t()
        event.response_type = UInt8(XCB_CLIENT_MESSAGE)
        event.format = 32
        event.window = window.rawValue
        event.type = type.rawValue
        event.data.data32 = (d[0], d[1], d[2], d[3], d[4])
        let mask = XCB_EVENT_MASK_SUBSTRUCTURE_REDIRECT.rawValue | XCB_EVENT_MASK_SUBSTRUCTURE_NOTIFY.rawValue
        withUnsafeBytes(of: &event) { raw in
            _ = xcb_send_event(connection, 0, root.rawValue, mask, raw.baseAddress!.assumingMemoryBound(to: CChar.self))
        }
    }

    /// Sends buffered requests; false when the connection is broken.
    @discardableResult
    func flush() -> Bool { xcb_flush(connection) > 0 }

    // MARK: Requests with replies (send several, then wait: one round trip)

    func requestAtom(_ name: String) -> XCookie<XAtom> {
        let cookie = name.withCString { xcb_intern_atom(connection, 0, UInt16(strlen($0)), $0) }
        requestsSent += 1
        return XCookie(sequence: cookie.sequence) { raw in
            XAtom(rawValue: raw.assumingMemoryBound(to: xcb_intern_atom_reply_t.self).pointee.atom)
        }
    }

    /// Up to `maxBytes` of `atom` on `window`, of any type unless `type` says;
    /// nil when the window has no such property.
    func requestProperty(_ window: XWindow, _ atom: XAtom, type: XAtom = .anyPropertyType,
                         maxBytes: UInt32 = 4096) -> XCookie<XProperty?> {
        let cookie = xcb_get_property(connection, 0, window.rawValue, atom.rawValue, type.rawValue, 0, (maxBytes + 3) / 4)
        requestsSent += 1
        return XCookie(sequence: cookie.sequence) { raw in
            let reply = raw.assumingMemoryBound(to: xcb_get_property_reply_t.self)
            guard reply.pointee.type != 0 else { return nil }       // no such property
            let length = Int(xcb_get_property_value_length(reply))
            var bytes = [UInt8](repeating: 0, count: length)
            if length > 0, let value = xcb_get_property_value(reply) {
                bytes.withUnsafeMutableBytes { $0.copyMemory(from: UnsafeRawBufferPointer(start: value, count: length)) }
            }
            return XProperty(type: XAtom(rawValue: reply.pointee.type), format: reply.pointee.format, bytes: bytes)
        }
    }

    /// The pid of the client that created `window`, from X-Resource
    /// (`LOCAL_CLIENT_PID`): works for windows without `_NET_WM_PID`, for
    /// clients on this machine. nil when the server does not know.
    func requestClientPID(_ window: XWindow) -> XCookie<Int32?>? {
        guard hasResourceExtension else { return nil }
        var spec = xcb_res_client_id_spec_t(client: window.rawValue, mask: XCB_RES_CLIENT_ID_MASK_LOCAL_CLIENT_PID.rawValue)
        let cookie = xcb_res_query_client_ids(connection, 1, &spec)
        requestsSent += 1
        return XCookie(sequence: cookie.sequence) { raw in
            let reply = raw.assumingMemoryBound(to: xcb_res_query_client_ids_reply_t.self)
            var ids = xcb_res_query_client_ids_ids_iterator(reply)
            while ids.rem > 0, let id = ids.data {
                if id.pointee.spec.mask & XCB_RES_CLIENT_ID_MASK_LOCAL_CLIENT_PID.rawValue != 0,
                   xcb_res_client_id_value_value_length(id) >= 1,
                   let value = xcb_res_client_id_value_value(id) {
                    return Int32(bitPattern: value.pointee)
                }
                xcb_res_client_id_value_next(&ids)
            }
            return nil
        }
    }

    /// Screen saver state and time since the last input on `root`'s screen.
    func requestScreenSaverInfo() -> XCookie<XScreenSaverInfo>? {
        guard screenSaverEventBase != nil else { return nil }
        let cookie = xcb_screensaver_query_info(connection, root.rawValue)
        requestsSent += 1
        return XCookie(sequence: cookie.sequence) { raw in
            let reply = raw.assumingMemoryBound(to: xcb_screensaver_query_info_reply_t.self).pointee
            return XScreenSaverInfo(state: XScreenSaverInfo.State(rawValue: reply.state),
                                    msSinceUserInput: reply.ms_since_user_input)
        }
    }

    /// Waits for `cookie`'s reply until `deadline`, sleeping in poll(2),
    /// never spinning. A reply that comes too late is discarded.
    func reply<Value>(_ cookie: XCookie<Value>, deadline: Deadline) -> Result<Value, XRequestFailure> {
        guard flush() else { return .failure(.connectionLost) }
        while true {
            var reply: UnsafeMutableRawPointer?
            var error: UnsafeMutablePointer<xcb_generic_error_t>?
            if xcb_poll_for_reply(connection, cookie.sequence, &reply, &error) != 0 {
                if let reply {
                    defer { free(reply) }
                    return .success(cookie.decode(reply))
                }
                if let error {
                    defer { free(error) }
                    return .failure(.protocolError(code: error.pointee.error_code))
                }
                return .failure(.connectionLost)
            }
            if xcb_connection_has_error(connection) != 0 { return .failure(.connectionLost) }
            guard !deadline.hasPassed else {
                xcb_discard_reply(connection, cookie.sequence)
                return .failure(.timedOut)
            }
            // At most 1 s per wait, then xcb is asked again.
            _ = try? Deadline(atNs: min(deadline.atNs, MonotonicClock.nowNs + 1_000_000_000)).wait(for: fileDescriptor)
        }
    }

    /// Drops a reply nobody will read (so it does not pile up in xcb).
    func discard<Value>(_ cookie: XCookie<Value>) {
        xcb_discard_reply(connection, cookie.sequence)
    }

    // MARK: Events

    /// The next event, reading the socket without blocking; nil when none is waiting.
    func nextEvent() -> XEvent? {
        guard let event = xcb_poll_for_event(connection) else { return nil }
        defer { free(event) }
        return decode(UnsafeMutableRawPointer(event))
    }

    private func decode(_ raw: UnsafeMutableRawPointer) -> XEvent {
        let generic = raw.assumingMemoryBound(to: xcb_generic_event_t.self).pointee
        let type = generic.response_type & 0x7f            // the high bit marks SendEvent
        if type == 0 {
            return .error(code: raw.assumingMemoryBound(to: xcb_generic_error_t.self).pointee.error_code)
        }
        if Int32(type) == XCB_PROPERTY_NOTIFY {
            let notify = raw.assumingMemoryBound(to: xcb_property_notify_event_t.self).pointee
            return .propertyNotify(window: XWindow(rawValue: notify.window), atom: XAtom(rawValue: notify.atom),
                                   sequence: notify.sequence)
        }
        if Int32(type) == XCB_DESTROY_NOTIFY {
            return .destroyNotify(window: XWindow(rawValue: raw.assumingMemoryBound(to: xcb_destroy_notify_event_t.self).pointee.window))
        }
        if let base = screenSaverEventBase, type == base &+ UInt8(XCB_SCREENSAVER_NOTIFY) {
            let notify = raw.assumingMemoryBound(to: xcb_screensaver_notify_event_t.self).pointee
            return .screenSaverNotify(state: XScreenSaverInfo.State(rawValue: notify.state))
        }
        return .other(responseType: type)
    }
}
