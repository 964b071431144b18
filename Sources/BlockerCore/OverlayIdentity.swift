/// Who the overlay is. Its program name is its Wayland app id, its X11
/// WM_CLASS, its layer-shell namespace, its unit and its log tag. None of
/// these tells the cover apart: any app can be started with `--class
/// blocker-overlay`. The cover is known by its process instead (`CoverProgram`,
/// `OverlayFilter`).
public enum OverlayIdentity {
    public static let name = "blocker-overlay"
    /// Its user unit, which blockerd asks the user manager to start when no cover is drawn.
    public static let unit = name + ".service"
}

/// Which program a cover client (a caller of `CoverShown`, the owner of
/// `io.github.blockerd.Cover`) runs, judged by its executable, never by a
/// name it chose.
public enum CoverProgram: Equatable, Sendable {
    /// blocker-overlay: the file installed beside blockerd.
    case overlay
    /// A desktop shell that draws blocker's cover itself through its plugin
    /// (GNOME Shell's extension): its binary, installed by root.
    case shell(String)
    /// Anything else (a script, another program): its path.
    case unexpected(String)

    /// The shells whose plugins may draw the cover.
    public static let shellNames: Set<String> = ["gnome-shell", "kwin_wayland", "kwin_x11"]

    /// `path`, `ownerUID`, `mode`: the process's executable (`/proc/PID/exe`
    /// and its stat). `overlayPath`: the blocker-overlay blockerd expects.
    /// A shell must be a root-owned file no one else may write: a user can
    /// name a copy of any interpreter `gnome-shell`, but cannot make it root's
    /// (symlinks resolve to their target; hard links to another's file are
    /// refused by `fs.protected_hardlinks`).
    public static func classify(path: String?, ownerUID: UInt32?, mode: UInt32?, overlayPath: String?) -> CoverProgram {
        guard let path else { return .unexpected("an unreadable executable") }
        if let overlayPath, path == overlayPath { return .overlay }
        let name = path.split(separator: "/").last.map(String.init) ?? path
        if shellNames.contains(name), ownerUID == 0, let mode, mode & 0o022 == 0 { return .shell(name) }
        return .unexpected(path)
    }
}

/// The rule "the overlay is not the foreground": while our cover holds the
/// focus, the app beneath it is what is in front, so it keeps being charged
/// and stays covered. blockerd feeds every probe's answer through one filter;
/// the cover is the window whose process is a cover client blockerd has
/// checked (`coverPIDs`), whatever its names.
public struct OverlayFilter: Sendable, Equatable {
    /// What the display server says has the focus.
    public enum Focus: Sendable, Equatable {
        case nothing
        case overlay
        case window(Window)

        /// Classifies by the window's process: a window without a pid
        /// (wlr-foreign-toplevel gives none) is never the cover.
        public init(_ window: Window?, coverPIDs: Set<Int32>) {
            guard let window else {
                self = .nothing
                return
            }
            if let pid = window.pid, coverPIDs.contains(pid) {
                self = .overlay
            } else {
                self = .window(window)
            }
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

    public mutating func foreground(_ focused: Window?, coverPIDs: Set<Int32>) -> Window? {
        foreground(Focus(focused, coverPIDs: coverPIDs))
    }
}
