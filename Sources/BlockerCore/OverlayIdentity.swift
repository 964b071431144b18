/// Who the overlay is. Its program name is its Wayland app id, its X11
/// WM_CLASS (instance and class), its layer-shell namespace, its unit and its
/// log tag; the probes recognise the cover by it. One constant, so the overlay
/// and the probes cannot drift apart.
public enum OverlayIdentity {
    public static let name = "blocker-overlay"

    /// Whether any of a window's names (app id, WM_CLASS instance or class)
    /// is the overlay's. Case-insensitive: GTK capitalises the X11 class
    /// ("Blocker-overlay") unless told otherwise, and XWayland keeps that.
    public static func isOverlay(names: [String?]) -> Bool {
        names.contains { $0?.lowercased() == name }
    }

    public static func isOverlay(_ window: Window) -> Bool {
        isOverlay(names: [window.appID, window.wmInstance, window.wmClass])
    }
}

/// The rule "the overlay is not the foreground": while our cover holds the
/// focus, the app beneath it is what is in front, so it keeps being charged
/// and stays covered. The X11 and Hyprland probes feed every focused window
/// through one filter; sway's tree keeps the focus history itself, so its
/// walk asks only `OverlayIdentity.isOverlay` which windows to pass over.
public struct OverlayFilter: Sendable, Equatable {
    /// What the display server says has the focus.
    public enum Focus: Sendable, Equatable {
        case nothing
        case overlay
        case window(Window)

        /// Classifies by the window's names.
        public init(_ window: Window?) {
            guard let window else {
                self = .nothing
                return
            }
            self = OverlayIdentity.isOverlay(window) ? .overlay : .window(window)
        }
    }

    /// The last focused window that was not the overlay; nil once nothing had the focus.
    public private(set) var lastRealWindow: Window?

    public init() {}

    /// What is in front, given what has the focus. The overlay coming up over
    /// an empty desktop covers nothing: nothing is in front.
    public mutating func foreground(_ focus: Focus) -> Window? {
        switch focus {
        case .nothing: lastRealWindow = nil
        case .overlay: break
        case let .window(window): lastRealWindow = window
        }
        return lastRealWindow
    }

    public mutating func foreground(_ focused: Window?) -> Window? {
        foreground(Focus(focused))
    }
}
