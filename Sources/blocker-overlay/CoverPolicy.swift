import BlockerCore

// What a cover is on each kind of display, decided apart from GTK; the
// CoverWindow in Gtk.swift carries it out.

/// How the display is driven, which decides how a cover is made.
enum DisplayKind: Equatable, CustomStringConvertible {
    /// A compositor with wlr-layer-shell (sway, Hyprland…).
    case layerShell
    case x11
    /// Wayland without layer-shell (GNOME): a plain fullscreen window, best effort.
    case otherWayland
    case other

    var description: String {
        switch self {
        case .layerShell: "Wayland with layer-shell"
        case .x11: "X11"
        case .otherWayland: "Wayland without layer-shell (fullscreen window, best effort)"
        case .other: "an unknown GDK backend (fullscreen window, best effort)"
        }
    }
}

/// The window kind and keyboard handling of one full-screen cover on one monitor.
struct CoverPolicy: Equatable {
    enum Surface: Equatable {
        /// A wlr-layer-shell surface on the OVERLAY layer, anchored to every
        /// edge, exclusive zone −1 (nothing moves to make room), on its monitor.
        case layerShell(namespace: String)
        /// An undecorated toplevel, fullscreen on its monitor, keep-above,
        /// sticky, out of taskbar and pager. A window manager forgets a
        /// withdrawn window's state, so it is placed again at each showing.
        case fullscreenWindow
    }

    /// How the cover holding the form keeps typing from the app beneath.
    enum Keyboard: Equatable {
        /// The compositor gives the surface the keyboard: keyboard mode
        /// EXCLUSIVE while it holds the form, NONE otherwise.
        case layerShellExclusive
        /// Ask the window manager for focus (the entry shows its caret), then
        /// grab the keyboard once mapped: the grab, not focus, keeps keys from
        /// the app. X11 refuses a grab while another client holds one (a menu,
        /// the window manager mid-move) or before the window is viewable: retry
        /// every `retryMs` until it takes. `serverTimestamp`: present with the X
        /// server's time (a window manager may refuse focus to an old request).
        case grab(serverTimestamp: Bool, retryMs: UInt32)
    }

    var surface: Surface
    var keyboard: Keyboard

    init(for kind: DisplayKind) {
        switch kind {
        case .layerShell:
            surface = .layerShell(namespace: OverlayIdentity.name)
            keyboard = .layerShellExclusive
        case .x11:
            surface = .fullscreenWindow
            keyboard = .grab(serverTimestamp: true, retryMs: 20)
        case .otherWayland, .other:
            // Best effort: GDK grabs where the compositor lets it.
            surface = .fullscreenWindow
            keyboard = .grab(serverTimestamp: false, retryMs: 20)
        }
    }

    var placedAtEachShowing: Bool { surface == .fullscreenWindow }

    var grabsKeyboard: Bool {
        if case .grab = keyboard { return true }
        return false
    }
}
