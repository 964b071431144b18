/// Programs that lock the screen and own `org.freedesktop.ScreenSaver`: a
/// lock they report is honoured as it is, when the owner runs from where a
/// user cannot write. Anything else owning the name (a script) only claims.
public enum ScreenLockers {
    public static let executables: Set<String> = [
        "gnome-shell", "gsd-screensaver-proxy", "gnome-screensaver", "ksmserver", "kscreenlocker_greet",
        "xfce4-screensaver", "mate-screensaver", "xscreensaver", "xscreensaver-systemd", "light-locker",
        "budgie-screensaver", "cinnamon-screensaver", "lxqt-powermanagement",
    ]
    /// Root-owned program directories.
    static let systemDirectories = ["/usr/bin/", "/usr/libexec/", "/usr/lib/", "/usr/sbin/", "/bin/", "/sbin/"]

    /// Whether the process whose `/proc/PID/exe` is `path`, a file owned by
    /// `ownerUID` with `mode`, vouches for its lock: a known locker, in a
    /// system directory, owned by root and writable by nobody else.
    public static func vouches(executablePath path: String, ownerUID: UInt32?, mode: UInt32?) -> Bool {
        guard systemDirectories.contains(where: path.hasPrefix), !path.contains("/../"),
              ownerUID == 0, let mode, mode & 0o022 == 0,
              let name = path.split(separator: "/").last else { return false }
        return executables.contains(String(name))
    }
}

/// Checks a screen lock nothing vouches for (`Reading.lockClaim`) against
/// what a locked screen cannot show: the window in front changing (another
/// app or process), or input going on well into the lock (a password is
/// typed in seconds, then the screen unlocks). A claim the evidence
/// contradicts is not honoured until it ends: the time is charged, and the
/// daemon records it. Pure: the daemon passes the readings and the clocks.
public struct LockClaimCheck: Sendable {
    /// Input after the lock began, at samples this far apart with no pause
    /// of `inputPauseMs` between them, contradicts it.
    public static let inputSpanMs: Milliseconds = 30_000
    /// Input this recent counts as going on.
    public static let inputRecentMs: Milliseconds = 5_000
    /// A pause this long ends a stretch of input.
    public static let inputPauseMs: Milliseconds = 10_000

    struct Claim: Sendable {
        var source: String
        var sinceMonotonic: MonotonicInstant
        var sinceWall: WallInstant
        var window: Window?
        /// When the current stretch of input while locked began.
        var inputSince: MonotonicInstant?
        /// Why it is not honoured; nil while it is.
        var contradiction: String?
    }

    public enum Event: Equatable, Sendable {
        /// The claim is not honoured from now on.
        case notHonoured(source: String, reason: String, sinceWall: WallInstant)
        /// A claim that was not honoured ended (the lock was lifted).
        case ended(sinceWall: WallInstant)
    }

    private var claim: Claim?

    public init() {}

    /// Whether a claim is being checked (the daemon samples every poll interval then).
    public var isChecking: Bool { claim != nil && claim?.contradiction == nil }
    /// Whether a claim is in force and not honoured.
    public var isOverruled: Bool { claim?.contradiction != nil }

    /// `reading` with its lock honoured or not, and what happened to the claim.
    public mutating func judge(_ reading: Reading, monotonic: MonotonicInstant, wall: WallInstant) -> (reading: Reading, event: Event?) {
        guard reading.locked, let source = reading.lockClaim else {
            defer { claim = nil }
            if let claim, claim.contradiction != nil { return (reading, .ended(sinceWall: claim.sinceWall)) }
            return (reading, nil)
        }
        var current = claim ?? Claim(source: source, sinceMonotonic: monotonic, sinceWall: wall, window: reading.window)
        var event: Event?
        if current.contradiction == nil, let reason = contradiction(&current, reading, monotonic: monotonic) {
            current.contradiction = reason
            event = .notHonoured(source: current.source, reason: reason, sinceWall: current.sinceWall)
        }
        claim = current
        var judged = reading
        judged.locked = current.contradiction == nil
        return (judged, event)
    }

    private func contradiction(_ claim: inout Claim, _ reading: Reading, monotonic: MonotonicInstant) -> String? {
        let before = claim.window, now = reading.window
        if before?.app != now?.app || before?.pid != now?.pid {
            return "the window in front changed (\(before?.app ?? "nothing") → \(now?.app ?? "nothing"))"
        }
        guard let idle = reading.idle else { return nil }
        let lockedFor = monotonic - claim.sinceMonotonic
        if idle < Self.inputRecentMs && idle < lockedFor {
            let since = claim.inputSince ?? monotonic
            claim.inputSince = since
            if monotonic - since >= Self.inputSpanMs {
                return "input went on for \(DurationText.format(monotonic - since)) while it said locked"
            }
        } else if idle >= Self.inputPauseMs {
            claim.inputSince = nil
        }
        return nil
    }
}
