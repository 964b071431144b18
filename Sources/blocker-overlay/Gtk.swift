import CGtk

// The overlay's thin toolkit over GTK, GDK, GLib and gtk-layer-shell: each C
// object is held by a small Swift class that owns one reference. Signals and
// main-loop sources call Swift closures through boxes that GLib releases when
// it drops the closure or source. Only this file and the two windows built on
// it (`CoverWindow.swift`, `PlainWindow.swift`) touch GTK; the raw pointers
// they share (`Widget.raw`, `Monitor.raw`, the display's seat) go no further.

/// GTK itself: start-up, the main loop, the style sheet.
enum Gtk {
    /// Names the program (WM_CLASS instance and class, Wayland app id) and
    /// opens the display. False when there is no display to open.
    static func start(programName: String) -> Bool {
        g_set_prgname(programName)
        // Parsing sets GDK's default class, the name capitalised ("Blocker-overlay");
        // ours must replace it before the display opens (its leader window takes the class then).
        guard gtk_parse_args(nil, nil) != 0 else { return false }
        gdk_set_program_class(programName)
        guard gtk_init_check(nil, nil) != 0 else { return false }
        // A steady caret: the reps field is the one thing to look at, and
        // screenshots of the cover come out the same each time.
        setBooleanSetting("gtk-cursor-blink", false)
        return true
    }

    private static func setBooleanSetting(_ name: String, _ on: Bool) {
        guard let settings = gtk_settings_get_default() else { return }
        var value = GValue()
        g_value_init(&value, g_type_from_name("gboolean"))
        g_value_set_boolean(&value, on ? 1 : 0)
        g_object_set_property(UnsafeMutableRawPointer(settings).assumingMemoryBound(to: GObject.self), name, &value)
        g_value_unset(&value)
    }

    /// Runs the main loop until `quit()`.
    static func run() { gtk_main() }

    static func quit() { gtk_main_quit() }

    /// Loads `css` for every widget on the default screen, above the theme.
    static func applyStyleSheet(_ css: String) throws(GtkError) {
        guard let provider = gtk_css_provider_new(), let screen = gdk_screen_get_default() else {
            throw GtkError(message: "no screen to style")
        }
        defer { g_object_unref(provider) }
        var error: UnsafeMutablePointer<GError>?
        if gtk_css_provider_load_from_data(provider, css, -1, &error) == 0 {
            throw GtkError(taking: error, or: "the style sheet does not parse")
        }
        gtk_style_context_add_provider_for_screen(
            screen, OpaquePointer(provider), guint(GTK_STYLE_PROVIDER_PRIORITY_APPLICATION))
    }
}

/// A GLib or GTK failure, with GLib's message.
struct GtkError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }

    init(message: String) { self.message = message }

    /// Takes ownership of `error` (frees it).
    fileprivate init(taking error: UnsafeMutablePointer<GError>?, or fallback: String) {
        if let error {
            message = error.pointee.message.map { String(cString: $0) } ?? fallback
            g_error_free(error)
        } else {
            message = fallback
        }
    }
}

// MARK: - main loop sources

/// A source on GLib's default main loop: an fd watch or a timer. It stays
/// until its handler returns false or `cancel()` is called.
final class LoopSource {
    private var id: guint = 0
    /// Cleared by GLib's destroy notify, so a finished source is never removed twice.
    private var attached = false
    private let handler: () -> Bool

    private init(handler: @escaping () -> Bool) { self.handler = handler }

    /// Calls `handler` whenever `fd` is readable (or writable, with `forWriting`), or on hang-up.
    static func watch(fd: Int32, forWriting: Bool = false, _ handler: @escaping () -> Bool) -> LoopSource {
        let source = LoopSource(handler: handler)
        let wanted = (forWriting ? G_IO_OUT.rawValue : G_IO_IN.rawValue) | G_IO_HUP.rawValue | G_IO_ERR.rawValue
        let channel = g_io_channel_unix_new(fd)
        defer { g_io_channel_unref(channel) }
        source.attached = true
        source.id = g_io_add_watch_full(channel, G_PRIORITY_DEFAULT, GIOCondition(rawValue: wanted), { _, _, data in
            Unmanaged<LoopSource>.fromOpaque(data!).takeUnretainedValue().fire()
        }, Unmanaged.passRetained(source).toOpaque(), LoopSource.release)
        return source
    }

    /// Calls `handler` after `milliseconds`, and again every `milliseconds` while it returns true.
    static func timer(milliseconds: UInt32, _ handler: @escaping () -> Bool) -> LoopSource {
        let source = LoopSource(handler: handler)
        source.attached = true
        source.id = g_timeout_add_full(G_PRIORITY_DEFAULT, milliseconds, { data in
            Unmanaged<LoopSource>.fromOpaque(data!).takeUnretainedValue().fire()
        }, Unmanaged.passRetained(source).toOpaque(), LoopSource.release)
        return source
    }

    private static let release: GDestroyNotify = { data in
        let source = Unmanaged<LoopSource>.fromOpaque(data!).takeRetainedValue()
        source.attached = false
    }

    private func fire() -> gboolean { handler() ? 1 : 0 }

    var isActive: Bool { attached }

    func cancel() {
        if attached { g_source_remove(id) }
    }
}

// MARK: - signals

/// Holds a Swift closure for the lifetime of a GObject signal connection.
private final class SignalHandler {
    let run: (OpaquePointer?) -> Bool
    init(_ run: @escaping (OpaquePointer?) -> Bool) { self.run = run }
}

private let releaseSignalHandler: GClosureNotify = { data, _ in
    Unmanaged<SignalHandler>.fromOpaque(data!).release()
}

/// For signals shaped `void (*)(GObject *self, gpointer data)`.
private typealias PlainSignal = @convention(c) (gpointer?, gpointer?) -> Void
/// For signals shaped `gboolean (*)(GObject *self, Arg *arg, gpointer data)` (or `void` with one argument).
private typealias ArgumentSignal = @convention(c) (gpointer?, gpointer?, gpointer?) -> gboolean

func connect(_ instance: gpointer, _ signal: String, _ handler: @escaping () -> Void) {
    let box = SignalHandler { _ in handler(); return false }
    let callback: PlainSignal = { _, data in
        _ = Unmanaged<SignalHandler>.fromOpaque(data!).takeUnretainedValue().run(nil)
    }
    g_signal_connect_data(instance, signal, unsafeBitCast(callback, to: GCallback.self),
                          Unmanaged.passRetained(box).toOpaque(), releaseSignalHandler, GConnectFlags(rawValue: 0))
}

/// `handler` gets the signal's one argument; returning true stops other handlers (for events).
func connect(_ instance: gpointer, _ signal: String, after: Bool = false,
                     withArgument handler: @escaping (OpaquePointer?) -> Bool) {
    let box = SignalHandler(handler)
    let callback: ArgumentSignal = { _, argument, data in
        Unmanaged<SignalHandler>.fromOpaque(data!).takeUnretainedValue().run(OpaquePointer(argument)) ? 1 : 0
    }
    g_signal_connect_data(instance, signal, unsafeBitCast(callback, to: GCallback.self),
                          Unmanaged.passRetained(box).toOpaque(), releaseSignalHandler,
                          after ? G_CONNECT_AFTER : GConnectFlags(rawValue: 0))
}

// MARK: - widgets

/// A GtkWidget this object holds one reference to.
class Widget {
    let raw: UnsafeMutablePointer<GtkWidget>

    init(_ raw: UnsafeMutablePointer<GtkWidget>) {
        self.raw = raw
        g_object_ref_sink(raw)
    }

    deinit { g_object_unref(raw) }

    func cast<T>(_: T.Type = T.self) -> UnsafeMutablePointer<T> {
        UnsafeMutableRawPointer(raw).assumingMemoryBound(to: T.self)
    }

    /// A CSS class from the overlay's style sheet.
    func addStyleClass(_ name: String) {
        gtk_style_context_add_class(gtk_widget_get_style_context(raw), name)
    }

    func removeStyleClass(_ name: String) {
        gtk_style_context_remove_class(gtk_widget_get_style_context(raw), name)
    }

    var isVisible: Bool {
        get { gtk_widget_get_visible(raw) != 0 }
        set { gtk_widget_set_visible(raw, newValue ? 1 : 0) }
    }

    /// Whether it takes input (greyed out when not).
    var isSensitive: Bool {
        get { gtk_widget_get_sensitive(raw) != 0 }
        set { gtk_widget_set_sensitive(raw, newValue ? 1 : 0) }
    }

    func grabFocus() { gtk_widget_grab_focus(raw) }

    /// Leaves its window with no widget focused: keys go nowhere, Tab goes to the first one.
    func clearWindowFocus() {
        guard let top = gtk_widget_get_toplevel(raw), gtk_widget_is_toplevel(top) != 0 else { return }
        gtk_window_set_focus(UnsafeMutableRawPointer(top).assumingMemoryBound(to: GtkWindow.self), nil)
    }

    var hasFocus: Bool { gtk_widget_has_focus(raw) != 0 }

    /// Centered, not stretched, both ways.
    func center() {
        gtk_widget_set_halign(raw, GTK_ALIGN_CENTER)
        gtk_widget_set_valign(raw, GTK_ALIGN_CENTER)
    }

    func setMinimumSize(width: Int32, height: Int32) {
        gtk_widget_set_size_request(raw, width, height)
    }
}

final class Label: Widget {
    init(_ text: String = "", style: String) {
        super.init(gtk_label_new(text))
        gtk_label_set_line_wrap(cast(), 1)
        gtk_label_set_justify(cast(), GTK_JUSTIFY_CENTER)
        gtk_label_set_max_width_chars(cast(), 48)
        addStyleClass(style)
    }

    var text: String {
        get { String(cString: gtk_label_get_text(cast())) }
        set { gtk_label_set_text(cast(), newValue) }
    }
}

/// A one-line text field.
final class Entry: Widget {
    /// What is typed: a count (centered, digits offered) or a line of words.
    enum Purpose { case digits, words }

    init(placeholder: String, widthInCharacters: Int32, purpose: Purpose = .digits) {
        super.init(gtk_entry_new())
        gtk_entry_set_placeholder_text(cast(), placeholder)
        gtk_entry_set_width_chars(cast(), widthInCharacters)
        switch purpose {
        case .digits:
            gtk_entry_set_alignment(cast(), 0.5)
            // On-screen keyboards offer digits; typing anything else is still possible (and refused on Enter).
            gtk_entry_set_input_purpose(cast(), GTK_INPUT_PURPOSE_DIGITS)
        case .words:
            gtk_entry_set_input_purpose(cast(), GTK_INPUT_PURPOSE_FREE_FORM)
        }
    }

    var text: String {
        get { String(cString: gtk_entry_get_text(cast())) }
        set { gtk_entry_set_text(cast(), newValue) }
    }

    /// Selects the whole text, so what is typed next replaces it.
    func selectAll() {
        gtk_editable_select_region(OpaquePointer(raw), 0, -1)
    }

    /// Enter (Return, keypad Enter, ISO Enter) in the field. Matched on the
    /// key's value, not through GTK's key bindings: those go by keycode and miss
    /// Enter from a keyboard whose keymap changed since they were built (virtual
    /// keyboards, as `wtype` makes, bring a new keymap each time).
    func onEnter(_ handler: @escaping () -> Void) {
        connect(raw, "key-press-event", withArgument: { event in
            guard let event else { return false }
            let key = UnsafeMutableRawPointer(event).assumingMemoryBound(to: GdkEventKey.self).pointee
            guard [guint(GDK_KEY_Return), guint(GDK_KEY_KP_Enter), guint(GDK_KEY_ISO_Enter)].contains(key.keyval) else {
                return false
            }
            handler()
            return true
        })
    }
    func onChanged(_ handler: @escaping () -> Void) { connect(raw, "changed", handler) }
}

/// A drop-down of texts, each with an id.
final class Choice: Widget {
    init() {
        super.init(gtk_combo_box_text_new())
    }

    /// Replaces the items; selects the first.
    func setItems(_ items: [(id: String, label: String)]) {
        gtk_combo_box_text_remove_all(cast())
        for item in items { gtk_combo_box_text_append(cast(), item.id, item.label) }
        gtk_combo_box_set_active(cast(), items.isEmpty ? -1 : 0)
    }

    var selectedID: String? {
        gtk_combo_box_get_active_id(cast()).map { String(cString: $0) }
    }

    /// Selects the item with `id`; false when there is none.
    @discardableResult
    func select(id: String) -> Bool {
        gtk_combo_box_set_active_id(cast(), id) != 0
    }

    func onChanged(_ handler: @escaping () -> Void) { connect(raw, "changed", handler) }
}

final class Button: Widget {
    init(label: String) {
        super.init(gtk_button_new_with_label(label))
    }

    var label: String {
        get { gtk_button_get_label(cast()).map { String(cString: $0) } ?? "" }
        set { gtk_button_set_label(cast(), newValue) }
    }

    func onClicked(_ handler: @escaping () -> Void) { connect(raw, "clicked", handler) }
}

/// Children in a row or a column.
final class Stack: Widget {
    enum Direction { case row, column }
    private var children: [Widget] = []

    init(_ direction: Direction, spacing: Int32, style: String? = nil) {
        super.init(gtk_box_new(direction == .row ? GTK_ORIENTATION_HORIZONTAL : GTK_ORIENTATION_VERTICAL, spacing))
        if let style { addStyleClass(style) }
    }

    func add(_ child: Widget, expand: Bool = false) {
        children.append(child)
        gtk_box_pack_start(cast(), child.raw, expand ? 1 : 0, expand ? 1 : 0, 0)
    }
}

// MARK: - display and monitors

/// A monitor of the display. Hashable by identity.
struct Monitor: Hashable, CustomStringConvertible {
    let raw: OpaquePointer

    /// "DP-1"-like names are not in GTK 3; the model and position say which one it is.
    var description: String {
        var area = GdkRectangle()
        gdk_monitor_get_geometry(raw, &area)
        let model = gdk_monitor_get_model(raw).map { String(cString: $0) } ?? "monitor"
        return "\(model) \(area.width)x\(area.height)+\(area.x)+\(area.y)"
    }
}

/// The default GdkDisplay.
final class Display {
    private let raw: OpaquePointer
    let kind: DisplayKind

    init?() {
        guard let display = gdk_display_get_default() else { return nil }
        raw = display
        let instance = UnsafeMutableRawPointer(display).assumingMemoryBound(to: GTypeInstance.self)
        if g_type_check_instance_is_a(instance, gdk_x11_display_get_type()) != 0 {
            kind = .x11
        } else if g_type_check_instance_is_a(instance, gdk_wayland_display_get_type()) != 0 {
            kind = gtk_layer_is_supported() != 0 ? .layerShell : .otherWayland
        } else {
            kind = .other
        }
    }

    var name: String { String(cString: gdk_display_get_name(raw)) }

    var monitors: [Monitor] {
        (0..<gdk_display_get_n_monitors(raw)).compactMap { gdk_display_get_monitor(raw, $0).map(Monitor.init) }
    }

    /// The primary monitor where the display names one (X11), else nil.
    var primaryMonitor: Monitor? {
        gdk_display_get_primary_monitor(raw).map(Monitor.init)
    }

    /// Called after a monitor is plugged in or removed.
    func onMonitorsChanged(_ handler: @escaping () -> Void) {
        let pointer = UnsafeMutableRawPointer(raw)
        connect(pointer, "monitor-added", withArgument: { _ in handler(); return false })
        connect(pointer, "monitor-removed", withArgument: { _ in handler(); return false })
    }

    var seat: UnsafeMutablePointer<GdkSeat>? { gdk_display_get_default_seat(raw) }
    var screen: OpaquePointer? { gdk_display_get_default_screen(raw) }

    func index(of monitor: Monitor) -> Int32? {
        (0..<gdk_display_get_n_monitors(raw)).first { gdk_display_get_monitor(raw, $0) == monitor.raw }
    }
}
