/// The window in front, as a probe saw it.
public struct Window: Equatable, Sendable {
    /// Wayland app id (sway, Hyprland), when there is one.
    public var appID: String?
    /// X11 WM_CLASS instance and class (also XWayland windows).
    public var wmInstance: String?
    public var wmClass: String?
    /// Basename of /proc/PID/exe, when readable.
    public var exe: String?
    public var title: String
    public var pid: Int32?
    /// Which window it is to the display server, where the probe knows
    /// (X11, sway, Hyprland): what `ForegroundProbe.hide` acts on.
    public var handle: WindowHandle?
    /// A browser window's active tab as blocker's extension tells it (never
    /// from a probe): the site its page is on, nil for a page with none
    /// (`about:`, `file:`, the new tab page) or a browser without the extension.
    public var tab: BrowserTab?

    public init(appID: String? = nil, wmInstance: String? = nil, wmClass: String? = nil,
                exe: String? = nil, title: String = "", pid: Int32? = nil, handle: WindowHandle? = nil,
                tab: BrowserTab? = nil) {
        self.appID = appID.nonEmpty
        self.wmInstance = wmInstance.nonEmpty
        self.wmClass = wmClass.nonEmpty
        self.exe = exe.nonEmpty
        self.title = title
        self.pid = pid
        self.handle = handle
        self.tab = tab
    }

    /// The name people see (`foreground.app`): the Wayland app id, else the
    /// WM_CLASS class, else its instance, else the executable.
    public var app: String { appID ?? wmClass ?? wmInstance ?? exe ?? "unknown" }

    /// Every name a group's `apps` entry may match, lowercased.
    public var identifiers: Set<String> {
        Set([appID, wmInstance, wmClass, exe].compactMap { $0?.lowercased() })
    }
}

/// One answer of a probe: what is in front, and whether anyone is looking.
public struct Reading: Equatable, Sendable {
    /// nil: nothing in front (empty desktop).
    public var window: Window?
    /// Locked screen or active screensaver.
    public var locked: Bool
    /// Time since the last keyboard or mouse input, where the probe knows it.
    public var idle: Milliseconds?
    /// Set when `locked` rests only on a source that does not vouch for
    /// itself (logind's LockedHint, which any session process may set; a
    /// screen saver service no known locker owns): its name. The daemon
    /// checks such a claim against the evidence (`LockClaimCheck`).
    public var lockClaim: String?

    public init(window: Window?, locked: Bool = false, idle: Milliseconds? = nil, lockClaim: String? = nil) {
        self.window = window
        self.locked = locked
        self.idle = idle
        self.lockClaim = lockClaim
    }

    /// Someone is looking at the window in front: the screen is not locked,
    /// and the input has not been idle for `idleAfter` (nil: never idle).
    public func isLooking(idleAfter: Milliseconds?) -> Bool {
        if locked { return false }
        if let idleAfter, let idle, idle >= idleAfter { return false }
        return true
    }
}

extension Optional where Wrapped == String {
    var nonEmpty: String? {
        guard let s = self, !s.isEmpty else { return nil }
        return s
    }
}
