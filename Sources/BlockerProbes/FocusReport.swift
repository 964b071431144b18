import BlockerCore
import BlockerSystemd

/// What a desktop's own plugin (the GNOME Shell extension, the KWin script)
/// tells blockerd about the window in front. On GNOME and KDE Wayland no
/// client may ask, so the shell pushes: `Report(a{sv} focus)` on
/// `io.github.blockerd.Focus1` at `/io/github/blockerd/Focus`, on the bus
/// name `io.github.blockerd.Focus`, once when that name appears and again on
/// every focus, title and lock change. Each report is the whole state.
///
/// Keys (all optional but `focused`):
/// - `focused` b: false when nothing is in front (then the others are ignored);
/// - `app-id` s: the Wayland/GTK application id; `sandboxed-app-id` s
///   (Flatpak, preferred); `desktop-file` s (KWin's `desktopFileName`);
/// - `wm-class` s, `wm-instance` s: WM_CLASS (KWin's `resourceClass`/`resourceName`);
/// - `title` s; `pid` any integer type or d (KWin's numbers are doubles);
/// - `locked` b: the shell shows its lock screen.
public enum FocusReport {
    public static let busName = "io.github.blockerd.Focus"
    /// In the failure of a probe that could not take `busName` because
    /// another holds it (a running blockerd's): `probe` and doctor ask blockerd then.
    public static let nameTaken = "\(busName) is already taken"
    public static let objectPath = "/io/github/blockerd/Focus"
    public static let interface = "io.github.blockerd.Focus1"
    public static let report = BusMethodSpec(member: "Report", signature: "a{sv}", parameterNames: "focus",
                                             result: "", resultNames: "")
    /// Titles are cut here: a title rule never needs more, and a shell plugin
    /// gone wrong must not grow blockerd.
    static let maxTextBytes = 4096

    /// Why a report was refused: sent back to the caller as InvalidArgs.
    public struct Invalid: Error, Equatable, CustomStringConvertible {
        public var description: String
    }

    /// The reading a report describes (pure).
    public static func reading(from entries: [String: BusValue]) -> Result<Reading, Invalid> {
        guard let focusedValue = entries["focused"] else {
            return .failure(Invalid(description: "the report has no 'focused' (b) entry"))
        }
        guard case let .bool(focused) = focusedValue else {
            return .failure(Invalid(description: "'focused' must be a boolean (b), not \(focusedValue.signature)"))
        }
        var locked = false
        if let value = entries["locked"] {
            guard case let .bool(flag) = value else {
                return .failure(Invalid(description: "'locked' must be a boolean (b), not \(value.signature)"))
            }
            locked = flag
        }
        guard focused else { return .success(Reading(window: nil, locked: locked)) }
        var text: [String: String] = [:]
        for key in ["app-id", "sandboxed-app-id", "desktop-file", "wm-class", "wm-instance", "title"] {
            guard let value = entries[key] else { continue }
            guard case let .string(string) = value else {
                return .failure(Invalid(description: "'\(key)' must be a string (s), not \(value.signature)"))
            }
            text[key] = bounded(string)
        }
        var pid: Int32?
        if let value = entries["pid"] {
            guard let number = processID(value) else {
                return .failure(Invalid(description: "'pid' must be a positive integer, not \(value)"))
            }
            pid = number
        }
        // The app id a user writes in `apps`: Flatpak's, else the application's
        // own, else its desktop file's (KWin gives no app id, only that).
        let appID = text["sandboxed-app-id"].nonEmpty ?? text["app-id"].nonEmpty ?? desktopFileID(text["desktop-file"])
        let window = Window(appID: appID, wmInstance: text["wm-instance"], wmClass: text["wm-class"],
                            exe: pid.flatMap(ProcFS.executableName(pid:)), title: text["title"] ?? "", pid: pid)
        return .success(Reading(window: window, locked: locked))
    }

    /// `org.kde.dolphin.desktop` and `org.kde.dolphin` both name `org.kde.dolphin`.
    static func desktopFileID(_ name: String?) -> String? {
        guard let name = name.nonEmpty else { return nil }
        return name.hasSuffix(".desktop") ? String(name.dropLast(8)).nonEmpty : name
    }

    private static func processID(_ value: BusValue) -> Int32? {
        let number: Int64?
        switch value {
        case let .int32(v): number = Int64(v)
        case let .uint32(v): number = Int64(v)
        case let .int64(v): number = v
        case let .uint64(v): number = v <= UInt64(Int32.max) ? Int64(v) : nil
        case let .double(v): number = v.isFinite && v == v.rounded() && abs(v) <= Double(Int32.max) ? Int64(v) : nil
        default: number = nil
        }
        guard let number, number > 0, number <= Int64(Int32.max) else { return nil }
        return Int32(number)
    }

    private static func bounded(_ text: String) -> String {
        guard text.utf8.count > maxTextBytes else { return text }
        var cut = ""
        for character in text {
            if cut.utf8.count + character.utf8.count > maxTextBytes { break }
            cut.append(character)
        }
        return cut
    }
}

extension Optional where Wrapped == String {
    fileprivate var nonEmpty: String? {
        guard let text = self, !text.isEmpty else { return nil }
        return text
    }
}

extension String {
    fileprivate var nonEmpty: String? { isEmpty ? nil : self }
}
