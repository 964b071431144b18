import CXCB
import Glibc
import TestSupport

/// A bare X client for tests that need windows with chosen ids and
/// properties (an xterm picks its own): creates unmapped windows, which the
/// window manager leaves alone, and sets the root's `_NET_ACTIVE_WINDOW`
/// itself, as a window manager would.
final class TestXClient {
    private let connection: OpaquePointer
    private let root: xcb_window_t

    init(display: String) throws {
        var screen: Int32 = 0
        guard let c = xcb_connect(display, &screen), xcb_connection_has_error(c) == 0 else {
            throw TestFailure("cannot connect to \(display)")
        }
        connection = c
        guard let first = xcb_setup_roots_iterator(xcb_get_setup(c)).data else { throw TestFailure("no screen on \(display)") }
        root = first.pointee.root
    }

    deinit { xcb_disconnect(connection) }

    /// A window id of this client's range; a destroyed window's id may be used again.
    func newId() -> xcb_window_t { xcb_generate_id(connection) }

    /// An unmapped window `id` with WM_CLASS `name` (instance and class) and `_NET_WM_PID`.
    func createWindow(_ id: xcb_window_t, wmClass name: String, pid: UInt32) {
        xcb_create_window(connection, UInt8(XCB_COPY_FROM_PARENT), id, root, 0, 0, 100, 100, 0,
                          UInt16(XCB_WINDOW_CLASS_INPUT_OUTPUT.rawValue), UInt32(XCB_COPY_FROM_PARENT), 0, nil)
        let wmClass = Array((name + "\0" + name + "\0").utf8)
        xcb_change_property(connection, UInt8(XCB_PROP_MODE_REPLACE.rawValue), id, XCB_ATOM_WM_CLASS.rawValue,
                            XCB_ATOM_STRING.rawValue, 8, UInt32(wmClass.count), wmClass)
        var value = pid
        xcb_change_property(connection, UInt8(XCB_PROP_MODE_REPLACE.rawValue), id, atom("_NET_WM_PID"),
                            XCB_ATOM_CARDINAL.rawValue, 32, 1, &value)
        xcb_flush(connection)
    }

    func destroyWindow(_ id: xcb_window_t) {
        xcb_destroy_window(connection, id)
        xcb_flush(connection)
    }

    /// Names `id` in the root's `_NET_ACTIVE_WINDOW`.
    func setActive(_ id: xcb_window_t) {
        var value = id
        xcb_change_property(connection, UInt8(XCB_PROP_MODE_REPLACE.rawValue), root, atom("_NET_ACTIVE_WINDOW"),
                            XCB_ATOM_WINDOW.rawValue, 32, 1, &value)
        xcb_flush(connection)
    }

    private func atom(_ name: String) -> xcb_atom_t {
        let cookie = xcb_intern_atom(connection, 0, UInt16(name.utf8.count), name)
        guard let reply = xcb_intern_atom_reply(connection, cookie, nil) else { return 0 }
        defer { free(reply) }
        return reply.pointee.atom
    }
}
