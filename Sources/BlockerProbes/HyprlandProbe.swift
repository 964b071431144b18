import BlockerCore
import BlockerJSON
import BlockerSystem
import Glibc

/// `probe = "hyprland"`: the active window, over Hyprland's two sockets in
/// `$XDG_RUNTIME_DIR/hypr/$HYPRLAND_INSTANCE_SIGNATURE/` (`/tmp/hypr/…` before
/// Hyprland 0.40).
///
/// `.socket.sock` answers one request per connection (`j/activewindow`, the
/// JSON of `hyprctl activewindow -j`; `{}` when nothing is in front) and is
/// closed at once: Hyprland serves it synchronously and freezes while a
/// client holds it open. `.socket2.sock` streams `EVENT>>DATA` lines
/// (`activewindow>>class,title`, `activewindowv2>>address`, …); the probe stays
/// connected, and its descriptor wakes the daemon. An answer is kept until an
/// event line arrives: while the event socket is up, a sample with nothing
/// changed sends no request. Our overlay is reported as any window: blockerd's
/// `OverlayFilter` knows it by its process.
public final class HyprlandProbe: ForegroundProbe {
    private let executables = ExecutableNameCache()
    public let name = "hyprland"

    /// The instance directory holding `.socket.sock` and `.socket2.sock`.
    public let socketDirectory: String
    public var eventGeneration: Int { link.generation }
    public var eventDescriptor: Int32? { events?.rawValue }

    /// How long one request may take before the sample fails.
    let timeoutMs: Milliseconds
    /// The event socket.
    private let link = Reconnecting<UnixSocket>(initial: 100, cap: 2_000)
    private var events: UnixSocket? { link.connection }
    private var eventLines = HyprlandEventLines()
    /// Event lines read by `drainEvents`, newest last (a few are kept for tests and `--watch`).
    private(set) var recentEvents: [String] = []
    /// Event-socket connections tried so far: tests check that a missing Hyprland costs no spin.
    var connectionAttempts: Int { link.attempts }
    /// The last answer, while the event socket is up and has said nothing since.
    private var cached: Reading?

    var requestSocketPath: String { socketDirectory + "/.socket.sock" }
    var eventSocketPath: String { socketDirectory + "/.socket2.sock" }

    init(socketDirectory: String, timeoutMs: Milliseconds) {
        self.socketDirectory = socketDirectory
        self.timeoutMs = timeoutMs
    }

    /// The probe for the Hyprland instance of this session, connected to its
    /// event socket, or why there is none.
    public static func open(environment: [String: String], timeoutMs: Milliseconds = 1000) -> Result<HyprlandProbe, ProbeUnavailable> {
        guard let signature = environment["HYPRLAND_INSTANCE_SIGNATURE"], !signature.isEmpty else {
            return .failure(ProbeUnavailable(probe: "hyprland", reason: "HYPRLAND_INSTANCE_SIGNATURE is not set"))
        }
        let directories = instanceDirectories(signature: signature, runtimeDirectory: environment["XDG_RUNTIME_DIR"])
        guard let directory = directories.first(where: { isSocket($0 + "/.socket.sock") }) else {
            return .failure(ProbeUnavailable(probe: "hyprland", reason:
                "no Hyprland socket at \(directories.map { $0 + "/.socket.sock" }.joined(separator: " or "))"))
        }
        let probe = HyprlandProbe(socketDirectory: directory, timeoutMs: timeoutMs)
        if let failure = probe.connectIfDue() {
            return .failure(ProbeUnavailable(probe: "hyprland", reason: failure.message))
        }
        return .success(probe)
    }

    /// Where an instance's sockets may be, in the order Hyprland versions used them.
    static func instanceDirectories(signature: String, runtimeDirectory: String?) -> [String] {
        var directories: [String] = []
        if let runtimeDirectory, !runtimeDirectory.isEmpty { directories.append("\(runtimeDirectory)/hypr/\(signature)") }
        directories.append("/tmp/hypr/\(signature)")
        return directories
    }

    public func sample() -> Result<Reading, ProbeFailure> {
        // The event socket is a wake-up only: without it, samples still work
        // (polling), and it is retried with backoff.
        _ = connectIfDue()
        drainEvents()
        if let cached, events != nil { return .success(cached) }
        let reading = fetchReading()
        // Kept only with the event socket up: without it nothing would say the answer changed.
        cached = events != nil ? try? reading.get() : nil
        return reading
    }

    private func fetchReading() -> Result<Reading, ProbeFailure> {
        let answer: [UInt8]
        do { answer = try request("j/activewindow") } catch {
            return .failure(ProbeFailure("Hyprland at \(requestSocketPath): \(error)"))
        }
        switch Self.parseActiveWindow(answer) {
        case let .failure(failure):
            return .failure(failure)
        case .success(nil):
            return .success(Reading(window: nil))
        case let .success(active?):
            return .success(Reading(window: Self.window(of: active, executables: executables)))
        }
    }

    public func drainEvents() {
        guard let socket = events else { return }
        while true {
            let available: UnixSocket.Available
            do { available = try socket.readAvailable() } catch {
                disconnect(because: "reading events: \(error)")
                return
            }
            switch available {
            case let .bytes(bytes):
                eventLines.append(bytes)
                cached = nil
            case .nothing:
                // The lines only say "look again"; the next sample asks for the window.
                recentEvents = Array((recentEvents + eventLines.takeLines()).suffix(16))
                return
            case .closed:
                // Hyprland exited: forget the fd now, or the loop would spin on its hang-up.
                disconnect(because: "Hyprland closed the event socket")
                return
            }
        }
    }

    /// Where `hide` puts a window: a special workspace, shown only when the
    /// user toggles it (`hyprctl dispatch togglespecialworkspace blocker`).
    static let hiddenWorkspace = "special:blocker"

    /// Hyprland has no minimizing: the window moves to `hiddenWorkspace`,
    /// silently (the focus stays on this workspace).
    public func hide(_ window: Window) -> HideResult {
        guard case let .hyprland(address)? = window.handle else {
            return .failed("\(window.app) was not read from Hyprland (it has no window address)")
        }
        // It goes into a command line: only what Hyprland writes (`0x` and hex digits).
        guard address.hasPrefix("0x"), address.count > 2, address.dropFirst(2).allSatisfy(\.isHexDigit) else {
            return .failed("\(window.app)'s Hyprland address \"\(address)\" is not 0x and hex digits")
        }
        let answer: [UInt8]
        do { answer = try request("/dispatch movetoworkspacesilent \(Self.hiddenWorkspace),address:\(address)") } catch {
            return .failed("Hyprland at \(requestSocketPath): \(error)")
        }
        let text = String(decoding: answer, as: UTF8.self).filter { !$0.isWhitespace }
        guard text == "ok" else {
            let shown = String(decoding: answer.prefix(200), as: UTF8.self)
            return .failed("Hyprland did not move \(window.app) to \(Self.hiddenWorkspace): \(shown)")
        }
        cached = nil                           // its event line may not have come yet
        return .hidden
    }

    // MARK: connection

    /// One request on a fresh connection, read to its end, closed at once.
    func request(_ command: String) throws(UnixSocket.Failure) -> [UInt8] {
        let deadline = Deadline.after(timeoutMs)
        let socket = try UnixSocket.connect(to: requestSocketPath)
        defer { socket.close() }
        try socket.writeAll(Array(command.utf8), deadline: deadline)
        return try socket.readToEnd(limit: 1 << 20, deadline: deadline)
    }

    private func connectIfDue() -> ProbeFailure? {
        switch link.connectIfDue(now: MonotonicClock.now, { () throws(UnixSocket.Failure) -> UnixSocket in
            let socket = try UnixSocket.connect(to: eventSocketPath)
            eventLines = HyprlandEventLines()
            return socket
        }) {
        case .connected: return nil
        case let .waiting(ms):
            return ProbeFailure("cannot connect to Hyprland at \(eventSocketPath): \(link.downBecause) (next try in \(ms) ms)")
        case let .failed(error):
            return ProbeFailure("cannot connect to Hyprland at \(eventSocketPath): \(error)")
        }
    }

    private func disconnect(because reason: String) {
        cached = nil
        link.drop(because: reason)?.close()
    }

    private static func isSocket(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFSOCK
    }

    // MARK: pure

    /// `hyprctl activewindow -j`: the fields the probe reads.
    struct ActiveWindow: Equatable {
        var address: String?
        var wmClass: String?
        var initialClass: String?
        var title: String?
        var initialTitle: String?
        var pid: Int32?
        var xwayland: Bool?

        /// nil when a field the probe reads has the wrong type; absent and null fields are nil.
        init?(_ object: JSONValue) {
            func field<T>(_ key: String, _ read: (JSONValue) -> T?) -> T?? {
                guard let value = object[key], !value.isNull else { return .some(nil) }
                return read(value).map { .some($0) }
            }
            guard let address = field("address", \.string), let wmClass = field("class", \.string),
                  let initialClass = field("initialClass", \.string), let title = field("title", \.string),
                  let initialTitle = field("initialTitle", \.string),
                  let pid = field("pid", { $0.integer.flatMap { Int32(exactly: $0) } }),
                  let xwayland = field("xwayland", \.bool) else { return nil }
            (self.address, self.wmClass, self.initialClass, self.title) = (address, wmClass, initialClass, title)
            (self.initialTitle, self.pid, self.xwayland) = (initialTitle, pid, xwayland)
        }

        /// The class now, else the one the window was created with.
        var effectiveClass: String? { [wmClass, initialClass].compactMap { $0 }.first { !$0.isEmpty } }
    }

    /// nil: nothing in front (`{}`). Anything that is not a JSON object
    /// (Hyprland answers "unknown request" as text) is a failure.
    static func parseActiveWindow(_ bytes: [UInt8]) -> Result<ActiveWindow?, ProbeFailure> {
        guard let object = try? JSONReader.value(bytes), object.members != nil, let active = ActiveWindow(object) else {
            let text = String(decoding: bytes, as: UTF8.self)
            let shown = text.count > 80 ? String(text.prefix(80)) + "…" : text
            return .failure(ProbeFailure("Hyprland answered j/activewindow with something that is not a JSON object: \(shown)"))
        }
        if active.address == nil && active.effectiveClass == nil && active.title == nil { return .success(nil) }
        return .success(active)
    }

    /// Wayland windows' class is their app id; XWayland windows' is WM_CLASS's class.
    static func window(of active: ActiveWindow, executables: ExecutableNameCache = ExecutableNameCache()) -> Window {
        let pid = active.pid.flatMap { $0 > 0 ? $0 : nil }
        let isX11 = active.xwayland ?? false
        return Window(appID: isX11 ? nil : active.effectiveClass,
                      wmClass: isX11 ? active.effectiveClass : nil,
                      exe: pid.flatMap(executables.name(pid:)),
                      title: active.title ?? active.initialTitle ?? "", pid: pid,
                      handle: active.address.flatMap { $0.isEmpty ? nil : .hyprland(address: $0) })
    }
}

/// Splits Hyprland's event stream into `EVENT>>DATA` lines, keeping a
/// partial line for the next read.
struct HyprlandEventLines {
    private var pending: [UInt8] = []

    mutating func append(_ bytes: [UInt8]) {
        pending += bytes
        // A line longer than any event (a title is short) means garbage: keep memory bounded.
        if pending.count > 1 << 20 { pending.removeAll() }
    }

    mutating func takeLines() -> [String] {
        guard let lastNewline = pending.lastIndex(of: UInt8(ascii: "\n")) else { return [] }
        let complete = pending[...lastNewline]
        pending.removeFirst(lastNewline + 1)
        return complete.split(separator: UInt8(ascii: "\n")).map { String(decoding: $0, as: UTF8.self) }
    }
}
