import CGtk

/// A plain titled toplevel, the window manager's own kind: decorated,
/// movable, in the taskbar, no keep-above, no fullscreen, no layer-shell, no
/// grab. Sized to its content and not resizable, which also makes tiling
/// compositors (sway) float it rather than stretch it over the output.
/// Escape or closing it calls `onClose`.
final class PlainWindow {
    private let window: Widget
    var onClose: (() -> Void)?

    /// `icon`: a name from the icon theme.
    init(title: String, icon: String, style: String, content: Widget) {
        window = Widget(gtk_window_new(GTK_WINDOW_TOPLEVEL))
        let gtkWindow: UnsafeMutablePointer<GtkWindow> = window.cast()
        gtk_window_set_title(gtkWindow, title)
        gtk_window_set_icon_name(gtkWindow, icon)
        gtk_window_set_resizable(gtkWindow, 0)
        gtk_window_set_position(gtkWindow, GTK_WIN_POS_CENTER)
        window.addStyleClass(style)
        gtk_container_add(UnsafeMutableRawPointer(window.raw).assumingMemoryBound(to: GtkContainer.self), content.raw)
        connect(window.raw, "delete-event", withArgument: { [unowned self] _ in
            self.onClose?()
            return true
        })
        connect(window.raw, "key-press-event", withArgument: { [unowned self] event in
            guard let event else { return false }
            let key = UnsafeMutableRawPointer(event).assumingMemoryBound(to: GdkEventKey.self).pointee
            guard key.keyval == guint(GDK_KEY_Escape) else { return false }
            self.onClose?()
            return true
        })
    }

    deinit { gtk_widget_destroy(window.raw) }

    /// Maps it and asks the window manager to give it the focus.
    func show() {
        gtk_widget_show_all(window.raw)
        gtk_window_present(window.cast())
    }
}
