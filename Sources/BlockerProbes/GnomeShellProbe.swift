import BlockerCore
import BlockerSystem
import BlockerSystemd

/// `probe = "gnome"`: GNOME Shell (Wayland or X11) with blocker's extension
/// (`extensions/gnome-shell/`), which reports every focus, title and lock
/// change over `io.github.blockerd.Focus1`. GNOME refuses to tell any client
/// which window is in front (`Eval` and `GetWindows` are closed since 41).
public struct GnomeShell: ReportingShell {
    public static let extensionUUID = "blocker@blockerd.github.io"
    public let probeName = "gnome"
    public let displayName = "GNOME Shell"
    public let busName = "org.gnome.Shell"
    /// Where the extension's metadata.json may be installed, first found wins
    /// (`make install` puts it under $XDG_DATA_HOME).
    let metadataCandidates: [String]

    public init(environment: [String: String]) {
        metadataCandidates = XDGPaths(environment: environment).dataSearchPath
            .map { $0 + "/gnome-shell/extensions/\(Self.extensionUUID)/metadata.json" }
    }

    /// The installed extension's directory, nil when it is nowhere on disk.
    var installedDirectory: String? {
        metadataCandidates.first { FilePaths.isRegularFile($0) }.map { String($0.dropLast("/metadata.json".count)) }
    }

    /// The extension draws blocker's pause itself and minimizes the window at
    /// its own "Not now"; it takes no calls from blockerd.
    public func hide(_ window: Window, on connection: BusConnection) -> HideResult {
        .unsupported("blocker's GNOME Shell extension takes no calls: its cover's \"Not now\" minimizes the window")
    }

    public func pluginProblem(on connection: BusConnection) -> String? {
        switch Self.extensionState(on: connection) {
        case .failure(let error):
            return "cannot ask GNOME Shell about its extensions: \(error)"
        case .success(nil):
            if let directory = installedDirectory {
                // Installed since this session started: on Wayland the shell
                // reads new extensions only at login.
                return "the blocker extension is installed (\(directory)) but GNOME Shell has not loaded it yet: "
                    + "log out and back in (GNOME Shell on Wayland loads a newly installed extension only at login)"
            }
            return "the blocker extension is not installed: run `make install` (or install the package), then "
                + "log out and back in"
        case .success(let state?) where state != Self.enabled:
            return Self.notEnabled(state)
        case .success:
            return nil
        }
    }

    /// Every problem of an installed extension that is not running starts with this (doctor gives its fix).
    public static let notEnabledMarker = "the blocker extension is not enabled"

    /// A loaded extension that is off: `gnome-extensions enable` turns it on at once, no new login.
    static func notEnabled(_ state: Double) -> String {
        "\(notEnabledMarker) (state \(stateName(state))): gnome-extensions enable \(extensionUUID)"
    }

    /// The extension watches `io.github.blockerd.Focus` and reports when it appears.
    public func requestReport(on connection: BusConnection) {}

    /// GNOME Shell signals every change of an extension's state; the match's
    /// sender is checked by the bus daemon, so only the shell's own signal counts.
    public func followPlugin(on connection: BusConnection, changed: @escaping (PluginState) -> Void)
        throws(SystemdError) -> BusSubscription? {
        try connection.matchSignal(sender: busName, path: "/org/gnome/Shell", interface: "org.gnome.Shell.Extensions",
                                   member: "ExtensionStateChanged") { message in
            guard (try? message.readString()) == Self.extensionUUID,
                  case let .double(state)? = (try? message.readDictionary())?["state"] else { return }
            changed(state == Self.enabled ? .running : .stopped(Self.notEnabled(state)))
        }
    }

    /// `ExtensionState.ENABLED` (43–44) and `ACTIVE` (45+) are both 1.
    static let enabled = 1.0

    /// The extension's `state` from `org.gnome.Shell.Extensions.GetExtensionInfo`,
    /// nil when the shell does not know the extension.
    static func extensionState(on connection: BusConnection) -> Result<Double?, BusCallError> {
        do throws(BusCallError) {
            let call = try connection.methodCall(destination: "org.gnome.Shell", path: "/org/gnome/Shell",
                                                 interface: "org.gnome.Shell.Extensions", member: "GetExtensionInfo")
            do throws(SystemdError) { try call.append(extensionUUID) } catch { throw .system(error) }
            let reply = try connection.call(call, timeoutMicroseconds: 2_000_000)
            let info: [String: BusValue]
            do throws(SystemdError) { info = try reply.readDictionary() } catch { throw .system(error) }
            guard case let .double(state)? = info["state"] else { return .success(nil) }
            return .success(state)
        } catch {
            return .failure(error)
        }
    }

    static func stateName(_ state: Double) -> String {
        switch state {
        case 2: "disabled"
        case 3: "error: see journalctl --user -b /usr/bin/gnome-shell"
        case 4: "out of date: this GNOME Shell version is not in its metadata.json"
        case 99: "uninstalled"
        default: "\(Int(state))"
        }
    }
}
