import BlockerCore
import BlockerJSON
import BlockerSystem
import BlockerSystemd
import Glibc

/// `probe = "kde"`: KWin (Plasma 5.27 and 6, Wayland or X11) with blocker's
/// KWin script (`extensions/kwin/`), which reports every activation and
/// caption change over `io.github.blockerd.Focus1`. A KWin script cannot be
/// asked anything, so on (re)connecting the probe reloads it through
/// `org.kde.kwin.Scripting`, and a freshly loaded script reports at once.
public struct KWinShell: ReportingShell {
    public static let scriptName = "blocker"
    static let loadAttempts = 10
    static let loadRetryMicroseconds: UInt32 = 20_000
    public let probeName = "kde"
    public let displayName = "KWin"
    public let busName = "org.kde.KWin"
    /// A script enabled later (System Settings, `make install`) is run by KWin
    /// and reports at once: blockerd follows it without a restart.
    public let opensWithoutPlugin = true
    /// Where the script's main.js may be, first found wins.
    let scriptCandidates: [String]
    /// KWin says nothing when a script is unloaded (System Settings, a
    /// `qdbus` call): the probe asks this often whether it still runs.
    public let pluginCheckEveryMs: Milliseconds?

    /// Where "Not now"'s one-shot script is written (nil: no $XDG_RUNTIME_DIR).
    let hideScriptPath: String?

    public init(environment: [String: String], scriptCheckEveryMs: Milliseconds = 3_000) {
        let data = XDGPaths(environment: environment)
        scriptCandidates = data.dataSearchPath.map { $0 + "/kwin/scripts/\(Self.scriptName)/contents/code/main.js" }
        pluginCheckEveryMs = scriptCheckEveryMs
        hideScriptPath = data.runtimeDirectory.map { $0 + "/blocker-kwin-hide.js" }
    }

    /// Every problem `pluginProblem` names starts with this (doctor gives its fix).
    public static let scriptProblemMarker = "the blocker KWin script is not"

    public func pluginProblem(on connection: BusConnection) -> String? {
        guard scriptPath != nil else {
            return "\(Self.scriptProblemMarker) installed (looked in \(scriptCandidates.joined(separator: ", "))): "
                + "run `make install` (or install the package)"
        }
        do throws(BusCallError) {
            // KWin unloads it again at once when kwinrc says it is disabled.
            return try scripting(on: connection, "isScriptLoaded", Self.scriptName).readBoolOrThrow() ? nil : Self.notLoaded
        } catch {
            return "cannot ask KWin about its scripts: \(error)"
        }
    }

    static let notLoaded = "\(scriptProblemMarker) loaded: enable it in System Settings → Window Management → "
        + "KWin Scripts, or run `make install` again (it sets [Plugins] blockerEnabled=true in kwinrc and loads it)"

    /// `isScriptLoaded`, without waiting: the answer comes while the probe's connection is processed.
    public func askPlugin(on connection: BusConnection, answer: @escaping (PluginState) -> Void) {
        do throws(BusCallError) {
            let call = try scriptingCall(on: connection, "isScriptLoaded", [Self.scriptName])
            do throws(SystemdError) {
                try connection.callAsync(call, timeoutMicroseconds: 2_000_000) { reply in
                    // A KWin that cannot answer says nothing about the script.
                    guard let loaded = try? reply.get().readBool() else { return answer(.unknown) }
                    answer(loaded ? .running : .stopped(Self.notLoaded))
                }
            } catch { throw .system(error) }
        } catch {
            answer(.unknown)
        }
    }

    /// Unloads and loads the script again: it reports the active window as it starts.
    public func requestReport(on connection: BusConnection) {
        guard let scriptPath else { return }
        do throws(BusCallError) {
            _ = try scripting(on: connection, "unloadScript", Self.scriptName)
            // KWin deletes an unloaded script later, from its event loop: until
            // then the name is taken and loadScript answers -1.
            for attempt in 0..<Self.loadAttempts {
                if attempt > 0 { usleep(Self.loadRetryMicroseconds) }
                if try scripting(on: connection, "loadScript", scriptPath, Self.scriptName).readInt32OrThrow() >= 0 { break }
            }
            // Then `start`, not `run` on the script's object: KWin 5.27 numbers a new
            // script by how many are loaded, so after an unload its `/<id>` may be
            // another script's. `start` (what System Settings calls) reads kwinrc,
            // unloads the script again if the user disabled it there (then
            // `pluginProblem` says so, and it never ran), and runs every loaded
            // script that is not running yet: ours, if the loads above lost the
            // race with the unload, loaded from kwinrc.
            _ = try scripting(on: connection, "start")
        } catch {
            // Not fatal: the script also reports at the next activation.
        }
    }

    var scriptPath: String? { scriptCandidates.first { FilePaths.isRegularFile($0) } }

    // MARK: "Not now"

    public static let hideScriptName = "blocker-hide"

    /// Blocker's own script only reports (KWin lets no program call into a
    /// script), so "Not now" loads a one-shot script that minimizes the window:
    /// what `kwin_wayland`'s own scripting allows any program of the session.
    public func hide(_ window: Window, on connection: BusConnection) -> HideResult {
        guard let hideScriptPath else { return .failed("$XDG_RUNTIME_DIR is not set: nowhere to write KWin a script") }
        guard window.pid != nil || window.wmClass != nil || window.wmInstance != nil else {
            return .failed("KWin named neither the window's process nor its class")
        }
        do throws(Errno) {
            try FileContents.replace(atPath: hideScriptPath, with: Array(Self.hideScript(for: window).utf8))
        } catch {
            return .failed("cannot write \(hideScriptPath): \(error)")
        }
        do throws(BusCallError) {
            _ = try scripting(on: connection, "unloadScript", Self.hideScriptName)
            var loaded = false
            for attempt in 0..<Self.loadAttempts where !loaded {
                if attempt > 0 { usleep(Self.loadRetryMicroseconds) }
                loaded = try scripting(on: connection, "loadScript", hideScriptPath, Self.hideScriptName)
                    .readInt32OrThrow() >= 0
            }
            guard loaded else { return .failed("KWin would not load \(hideScriptPath)") }
            _ = try scripting(on: connection, "start")
            return .hidden
        } catch {
            return .failed("KWin: \(error)")
        }
    }

    /// The one-shot script for `window`: the windows of its process with its
    /// class (and, when one has it, its title) are minimized. The strings are
    /// JSON, which is JavaScript: a title cannot break out of its literal.
    static func hideScript(for window: Window) -> String {
        let wanted = JSONValue.object([
            ("pid", window.pid.map { .integer(Int64($0)) } ?? .null),
            ("resourceClass", .optional(window.wmClass)),
            ("resourceName", .optional(window.wmInstance)),
            ("caption", .string(window.title)),
        ])
        return """
            // Written by blockerd for one "Not now" (blocker's KWin probe): minimizes the paused window.
            "use strict";
            const wanted = \(wanted.rendered);
            const all = workspace.windowList ? workspace.windowList() : workspace.clientList();
            function text(value) { return value === undefined || value === null ? "" : String(value); }
            function same(window) {
                return window.normalWindow && !window.minimized
                    && (wanted.pid === null || window.pid === wanted.pid)
                    && (wanted.resourceClass === null || text(window.resourceClass) === wanted.resourceClass)
                    && (wanted.resourceName === null || text(window.resourceName) === wanted.resourceName);
            }
            const candidates = all.filter(same);
            const titled = candidates.filter(function (window) { return text(window.caption) === wanted.caption; });
            (titled.length > 0 ? titled : candidates).forEach(function (window) { window.minimized = true; });

            """
    }

    private func scripting(on connection: BusConnection, _ member: String, _ arguments: String...) throws(BusCallError)
        -> BusMessage {
        try connection.call(try scriptingCall(on: connection, member, arguments), timeoutMicroseconds: 2_000_000)
    }

    private func scriptingCall(on connection: BusConnection, _ member: String, _ arguments: [String])
        throws(BusCallError) -> BusMessage {
        let call = try connection.methodCall(destination: busName, path: "/Scripting",
                                             interface: "org.kde.kwin.Scripting", member: member)
        for argument in arguments {
            do throws(SystemdError) { try call.append(argument) } catch { throw .system(error) }
        }
        return call
    }
}

extension BusMessage {
    fileprivate func readBoolOrThrow() throws(BusCallError) -> Bool {
        do throws(SystemdError) { return try readBool() } catch { throw .system(error) }
    }

    fileprivate func readInt32OrThrow() throws(BusCallError) -> Int32 {
        do throws(SystemdError) { return try readInt32() } catch { throw .system(error) }
    }
}
