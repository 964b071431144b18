import CGtk

/// One full-screen cover on one monitor, made as `CoverPolicy` says for the display.
final class CoverWindow {
    let monitor: Monitor
    private let window: Widget
    private let display: Display
    private let policy: CoverPolicy
    private var takesKeyboard = false
    private var grabbed = false
    private var grabRetry: LoopSource?
    private var keyboardReclaim: LoopSource?
    private var waitingForFirstFrame = false
    /// After the first frame of each showing is drawn: the cover is on screen.
    var onFirstFrame: (() -> Void)?

    init(display: Display, monitor: Monitor, content: Widget) {
        self.display = display
        self.monitor = monitor
        policy = CoverPolicy(for: display.kind)
        g_object_ref(UnsafeMutableRawPointer(monitor.raw))
        window = Widget(gtk_window_new(GTK_WINDOW_TOPLEVEL))
        let gtkWindow: UnsafeMutablePointer<GtkWindow> = window.cast()
        gtk_window_set_title(gtkWindow, "blocker")
        gtk_window_set_decorated(gtkWindow, 0)
        window.addStyleClass("blocker-cover")

        // The default (opaque) visual on X11: with no alpha channel, no
        // compositor can show the app beneath through the cover.

        switch policy.surface {
        case let .layerShell(namespace):
            gtk_layer_init_for_window(gtkWindow)
            gtk_layer_set_namespace(gtkWindow, namespace)
            gtk_layer_set_layer(gtkWindow, GTK_LAYER_SHELL_LAYER_OVERLAY)
            for edge in [GTK_LAYER_SHELL_EDGE_LEFT, GTK_LAYER_SHELL_EDGE_RIGHT, GTK_LAYER_SHELL_EDGE_TOP,
                         GTK_LAYER_SHELL_EDGE_BOTTOM] {
                gtk_layer_set_anchor(gtkWindow, edge, 1)
            }
            gtk_layer_set_exclusive_zone(gtkWindow, -1)
            gtk_layer_set_monitor(gtkWindow, monitor.raw)
            gtk_layer_set_keyboard_mode(gtkWindow, GTK_LAYER_SHELL_KEYBOARD_MODE_NONE)
        case .fullscreenWindow:
            placeOnMonitor()
        }

        gtk_container_add(UnsafeMutableRawPointer(window.raw).assumingMemoryBound(to: GtkContainer.self), content.raw)
        gtk_widget_show_all(content.raw)

        // The cover is not closed by Alt+F4 or a window menu: only the shield lifts it.
        connect(window.raw, "delete-event", withArgument: { _ in true })
        connect(window.raw, "map-event", withArgument: { [unowned self] _ in
            self.mapped()
            return false
        })
        connect(window.raw, "focus-out-event", withArgument: { [unowned self] _ in
            self.keyboardTaken()
            return false
        })
        connect(window.raw, "draw", after: true, withArgument: { [unowned self] _ in
            if self.waitingForFirstFrame {
                self.waitingForFirstFrame = false
                self.onFirstFrame?()
            }
            return false
        })
    }

    deinit {
        keyboardReclaim?.cancel()
        grabRetry?.cancel()
        releaseKeyboard()
        gtk_widget_destroy(window.raw)
        g_object_unref(UnsafeMutableRawPointer(monitor.raw))
    }

    /// Whether this cover holds the form and so takes the keyboard.
    func setTakesKeyboard(_ takes: Bool) {
        guard takes != takesKeyboard else { return }
        takesKeyboard = takes
        if policy.keyboard == .layerShellExclusive {
            gtk_layer_set_keyboard_mode(window.cast(), takes ? GTK_LAYER_SHELL_KEYBOARD_MODE_EXCLUSIVE
                                                             : GTK_LAYER_SHELL_KEYBOARD_MODE_NONE)
        } else if isShown {
            takes ? present() : releaseKeyboard()
        }
    }

    var isShown: Bool { window.isVisible }

    func show() {
        guard !isShown else { return }
        waitingForFirstFrame = true
        if policy.placedAtEachShowing { placeOnMonitor() }
        gtk_widget_show(window.raw)
        present()
    }

    func hide() {
        guard isShown else { return }
        grabRetry?.cancel()
        grabRetry = nil
        releaseKeyboard()
        waitingForFirstFrame = false
        gtk_widget_hide(window.raw)
    }

    /// Fullscreen on this monitor, above the others, on every desktop, in no taskbar or pager.
    private func placeOnMonitor() {
        let gtkWindow: UnsafeMutablePointer<GtkWindow> = window.cast()
        var area = GdkRectangle()
        gdk_monitor_get_geometry(monitor.raw, &area)
        gtk_window_move(gtkWindow, area.x, area.y)
        gtk_window_set_default_size(gtkWindow, area.width, area.height)
        gtk_window_set_keep_above(gtkWindow, 1)
        gtk_window_stick(gtkWindow)
        gtk_window_set_skip_taskbar_hint(gtkWindow, 1)
        gtk_window_set_skip_pager_hint(gtkWindow, 1)
        if let screen = display.screen, let index = display.index(of: monitor) {
            gtk_window_fullscreen_on_monitor(gtkWindow, screen, index)
        } else {
            gtk_window_fullscreen(gtkWindow)
        }
    }

    private func present() {
        guard takesKeyboard, case let .grab(serverTimestamp, _) = policy.keyboard else { return }
        let gdkWindow = gtk_widget_get_window(window.raw)
        let time = serverTimestamp && gdkWindow != nil ? gdk_x11_get_server_time(gdkWindow) : guint32(GDK_CURRENT_TIME)
        gtk_window_present_with_time(window.cast(), time)
        grabKeyboard()
    }

    private func mapped() {
        if takesKeyboard, policy.grabsKeyboard { present() }
    }

    /// Grabs, or retries later (see `CoverPolicy.Keyboard.grab`).
    private func grabKeyboard() {
        guard takesKeyboard, policy.grabsKeyboard, !grabbed, isShown,
              let seat = display.seat, let gdkWindow = gtk_widget_get_window(window.raw),
              gdk_window_is_viewable(gdkWindow) != 0 else {
            scheduleGrabRetry()
            return
        }
        if gdk_seat_grab(seat, gdkWindow, GDK_SEAT_CAPABILITY_KEYBOARD, 1, nil, nil, nil, nil) == GDK_GRAB_SUCCESS {
            grabbed = true
            grabRetry?.cancel()
            grabRetry = nil
        } else {
            scheduleGrabRetry()
        }
    }

    private func scheduleGrabRetry() {
        guard takesKeyboard, case let .grab(_, retryMs) = policy.keyboard, isShown, !grabbed,
              grabRetry?.isActive != true else { return }
        grabRetry = LoopSource.timer(milliseconds: retryMs) { [weak self] in
            guard let self else { return false }
            self.grabRetry = nil
            self.grabKeyboard()
            return false
        }
    }

    private func releaseKeyboard() {
        guard grabbed else { return }
        grabbed = false
        if let seat = display.seat { gdk_seat_ungrab(seat) }
    }

    /// KWin gives the keyboard to whatever window it activates (Alt+Tab's
    /// choice included), even past an exclusive layer-shell surface, but it
    /// activates a surface whose keyboard interactivity turns exclusive. So
    /// when the cover holding the form loses the keyboard: drop it and ask
    /// again, a few frames apart so the compositor sees the change, until the
    /// keyboard is back (the window's focus-in) or the cover goes.
    private func keyboardTaken() {
        guard takesKeyboard, isShown, policy.keyboard == .layerShellExclusive, keyboardReclaim?.isActive != true else {
            return
        }
        var dropped = false
        var attempts = 0
        keyboardReclaim = LoopSource.timer(milliseconds: Self.keyboardReclaimMs) { [weak self] in
            guard let self else { return false }
            let done = !self.takesKeyboard || !self.isShown || self.hasKeyboard
                || attempts >= Self.keyboardReclaimAttempts
            if dropped || done {
                // Never left without the keyboard it should hold, shown or not.
                if self.takesKeyboard {
                    gtk_layer_set_keyboard_mode(self.window.cast(), GTK_LAYER_SHELL_KEYBOARD_MODE_EXCLUSIVE)
                }
                dropped = false
                if done { self.keyboardReclaim = nil }
                return !done
            }
            gtk_layer_set_keyboard_mode(self.window.cast(), GTK_LAYER_SHELL_KEYBOARD_MODE_NONE)
            dropped = true
            attempts += 1
            return true
        }
    }

    /// Whether the compositor gave this window the keyboard (GTK's is-active).
    private var hasKeyboard: Bool { gtk_window_is_active(window.cast()) != 0 }

    private static let keyboardReclaimMs: UInt32 = 60
    private static let keyboardReclaimAttempts = 20

    /// Whether the keyboard grab is held (X11 only).
    var holdsKeyboardGrab: Bool { grabbed }
}
