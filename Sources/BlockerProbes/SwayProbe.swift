import BlockerCore
import BlockerSystem
import FoundationEssentials
import Glibc

/// `probe = "sway"`: the focused container, over sway's IPC socket (i3 IPC).
///
/// Two connections: one answers GET_TREE for each sample; the other is
/// subscribed to `window` events, and its descriptor wakes the daemon on a
/// focus change. When our overlay holds the focus, the app beneath it is
/// reported (DESIGN: "The overlay is not the foreground"). When sway goes
/// away, samples fail with the reason and the probe reconnects with backoff,
/// also to the socket a restarted sway created under a new name.
public final class SwayProbe: ForegroundProbe {
    private let executables = ExecutableNameCache()
    public let name = "sway"
    /// The app id (Wayland) or WM_CLASS (XWayland) of our own overlay.
    public static let overlayAppID = "blocker-overlay"

    /// SWAYSOCK as the session gave it.
    public let configuredSocketPath: String
    /// Where sway answered last (differs from SWAYSOCK after a restart under a new pid).
    public private(set) var socketPath: String
    public private(set) var eventGeneration = 0
    public var eventDescriptor: Int32? { connection?.events.socket.rawValue }

    /// How long one exchange with sway may take before the sample fails.
    let timeoutMs: Int32
    private var connection: (commands: SwayIPCConnection, events: SwayIPCConnection)?
    private var eventBuffer = SwayIPC.MessageBuffer()
    private var backoff = ReconnectBackoff(initialMs: 100, capMs: 2_000)
    private var lastConnectError = ""
    /// Connections tried so far: tests check that a missing sway costs no spin.
    private(set) var connectionAttempts = 0
    /// Event messages read by `drainEvents`.
    private(set) var eventsReceived = 0

    init(socketPath: String, timeoutMs: Int32) {
        self.configuredSocketPath = socketPath
        self.socketPath = socketPath
        self.timeoutMs = timeoutMs
    }

    /// The probe for the sway at `SWAYSOCK`, connected, or why there is none.
    public static func open(environment: [String: String], timeoutMs: Int32 = 1000) -> Result<SwayProbe, ProbeUnavailable> {
        guard let path = environment["SWAYSOCK"], !path.isEmpty else {
            return .failure(ProbeUnavailable(probe: "sway", reason: "SWAYSOCK is not set"))
        }
        let probe = SwayProbe(socketPath: path, timeoutMs: timeoutMs)
        if let failure = probe.connectIfDue() {
            return .failure(ProbeUnavailable(probe: "sway", reason: failure.message))
        }
        return .success(probe)
    }

    public func sample() -> Result<Reading, ProbeFailure> {
        let wasConnected = connection != nil
        if let failure = connectIfDue() { return .failure(failure) }
        switch fetchReading() {
        case let .success(reading):
            return .success(reading)
        case let .failure(error):
            disconnect(because: "\(error)")
            // A connection that sway closed means sway restarted since the last
            // sample: one fresh try now. A timeout (sway frozen) is not retried,
            // so a sample never waits twice.
            guard wasConnected, error.isConnectionLoss else {
                return .failure(ProbeFailure("sway IPC at \(socketPath): \(error)"))
            }
            if let failure = connectIfDue() {
                return .failure(ProbeFailure("sway IPC at \(socketPath): \(error); \(failure.message)"))
            }
            return fetchReading().mapError { ProbeFailure("sway IPC at \(socketPath): \($0)") }
        }
    }

    public func drainEvents() {
        guard let events = connection?.events else { return }
        while true {
            let available: UnixSocket.Available
            do { available = try events.socket.readAvailable() } catch {
                disconnect(because: "reading events: \(error)")
                return
            }
            switch available {
            case let .bytes(bytes):
                eventBuffer.append(bytes)
            case .nothing:
                guard let messages = eventBuffer.takeMessages() else {
                    disconnect(because: "sway sent an event that is not i3 IPC")
                    return
                }
                // The payload is not needed: the next sample asks for the tree.
                eventsReceived += messages.count
                return
            case .closed:
                // sway exited: forget the fd now, or the loop would spin on its hang-up.
                disconnect(because: "sway closed the IPC connection")
                return
            }
        }
    }

    // MARK: connection

    /// Connects both connections unless connected, or says why not (also
    /// while the backoff after a failed attempt has not run out).
    private func connectIfDue() -> ProbeFailure? {
        if connection != nil { return nil }
        let now = MonotonicClock.nowMs
        let wait = backoff.waitMs(now: now)
        if wait > 0 {
            return ProbeFailure("cannot connect to sway at \(socketPath): \(lastConnectError) (next try in \(wait) ms)")
        }
        connectionAttempts += 1
        var errors: [String] = []
        for path in SwaySocketDiscovery.candidates(configured: configuredSocketPath, current: socketPath) {
            do {
                let commands = try SwayIPCConnection.connect(path: path, timeoutMs: timeoutMs)
                let events: SwayIPCConnection
                do {
                    events = try SwayIPCConnection.connect(path: path, timeoutMs: timeoutMs)
                    try events.subscribe(to: ["window"])
                } catch {
                    commands.close()
                    throw error
                }
                connection = (commands, events)
                socketPath = path
                eventBuffer = SwayIPC.MessageBuffer()
                backoff.succeeded()
                eventGeneration += 1
                return nil
            } catch {
                errors.append(path == configuredSocketPath ? "\(error)" : "\(path): \(error)")
            }
        }
        lastConnectError = errors.joined(separator: "; ")
        backoff.failed(now: MonotonicClock.nowMs)
        return ProbeFailure("cannot connect to sway at \(configuredSocketPath): \(lastConnectError)")
    }

    private func disconnect(because reason: String) {
        guard let connection else { return }
        connection.commands.close()
        connection.events.close()
        self.connection = nil
        lastConnectError = reason
    }

    private func fetchReading() -> Result<Reading, SwayIPCError> {
        guard let commands = connection?.commands else { return .failure(.socket(.closedByPeer)) }
        let payload: [UInt8]
        do { payload = try commands.request(.getTree) } catch { return .failure(error) }
        guard let root = try? JSONDecoder().decode(SwayNode.self, from: Data(payload)) else {
            return .failure(.outOfStep("GET_TREE answered something that is not a tree"))
        }
        let front = SwayTree.foreground(in: root, isOverlay: Self.isOverlay)
        return .success(Reading(window: front.map { Self.window(of: $0, executables: executables) }))
    }

    // MARK: pure

    static func isOverlay(_ node: SwayNode) -> Bool {
        // GTK on XWayland capitalises the class ("Blocker-overlay"); the instance stays as is.
        [node.appID, node.windowProperties?.wmClass, node.windowProperties?.instance]
            .contains { $0?.lowercased() == overlayAppID }
    }

    static func window(of node: SwayNode, executables: ExecutableNameCache = ExecutableNameCache()) -> Window {
        let pid = node.pid.flatMap { $0 > 0 ? $0 : nil }
        return Window(appID: node.appID, wmInstance: node.windowProperties?.instance,
                      wmClass: node.windowProperties?.wmClass,
                      exe: pid.flatMap(executables.name(pid:)),
                      title: node.name ?? node.windowProperties?.title ?? "", pid: pid)
    }
}

// MARK: - The tree

/// One node of sway's GET_TREE answer, with only the fields the probe reads.
struct SwayNode: Decodable {
    var id: Int
    var type: String
    var name: String?
    var appID: String?
    var pid: Int32?
    var shell: String?
    var focused: Bool
    /// Children ids, most recently focused first.
    var focus: [Int]
    var nodes: [SwayNode]
    var floatingNodes: [SwayNode]
    var windowProperties: WindowProperties?

    struct WindowProperties: Decodable {
        var wmClass: String?
        var instance: String?
        var title: String?
        enum CodingKeys: String, CodingKey { case wmClass = "class", instance, title }
    }

    enum CodingKeys: String, CodingKey {
        case id, type, name, appID = "app_id", pid, shell, focused, focus, nodes
        case floatingNodes = "floating_nodes", windowProperties = "window_properties"
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(Int.self, forKey: .id)
        type = try c.decode(String.self, forKey: .type)
        name = try c.decodeIfPresent(String.self, forKey: .name)
        appID = try c.decodeIfPresent(String.self, forKey: .appID)
        pid = try c.decodeIfPresent(Int32.self, forKey: .pid)
        shell = try c.decodeIfPresent(String.self, forKey: .shell)
        focused = try c.decodeIfPresent(Bool.self, forKey: .focused) ?? false
        focus = try c.decodeIfPresent([Int].self, forKey: .focus) ?? []
        nodes = try c.decodeIfPresent([SwayNode].self, forKey: .nodes) ?? []
        floatingNodes = try c.decodeIfPresent([SwayNode].self, forKey: .floatingNodes) ?? []
        windowProperties = try c.decodeIfPresent(WindowProperties.self, forKey: .windowProperties)
    }

    /// A window (as opposed to a split container, workspace or output):
    /// sway gives views a `shell` (xdg_shell, xwayland).
    var isView: Bool { shell != nil || appID != nil || windowProperties != nil }
}

enum SwayTree {
    /// The view in front: the focused one, or, when the overlay holds the
    /// focus, the most recently focused other view, found by following the
    /// `focus` lists (most recent first) down from the root — the same "last
    /// real window" the X11 and Hyprland probes keep.
    static func foreground(in root: SwayNode, isOverlay: (SwayNode) -> Bool) -> SwayNode? {
        guard let path = pathToFocused(from: root), let focused = path.last else {
            // A layer-shell surface holds the keyboard (our layer-shell overlay,
            // a launcher) and no node is focused: in front is what sway will
            // focus again, the current workspace's most recently focused view.
            return currentWorkspace(in: root).flatMap { frontView(under: $0, skipping: isOverlay) }
        }
        guard focused.isView, isOverlay(focused) else {
            // A focused workspace or split container: its most recently focused
            // view; an empty workspace: nothing in front.
            return frontView(under: focused, skipping: isOverlay)
        }
        return frontView(under: root, skipping: isOverlay)
    }

    /// The workspace reached by following the first `focus` entry down from the root.
    static func currentWorkspace(in root: SwayNode) -> SwayNode? {
        var node = root
        while node.type != "workspace" {
            let children = node.nodes + node.floatingNodes
            let next = node.focus.lazy
                .compactMap { id in children.first { $0.id == id } }
                .first { !($0.type == "output" && $0.name == "__i3") }
            guard let next else { return nil }
            node = next
        }
        return node
    }

    static func pathToFocused(from node: SwayNode) -> [SwayNode]? {
        if node.focused { return [node] }
        for child in node.nodes + node.floatingNodes {
            if let path = pathToFocused(from: child) { return [node] + path }
        }
        return nil
    }

    static func frontView(under node: SwayNode, skipping isOverlay: (SwayNode) -> Bool) -> SwayNode? {
        if node.isView { return isOverlay(node) ? nil : node }
        if node.type == "output" && node.name == "__i3" { return nil }   // the scratchpad is hidden
        let children = node.nodes + node.floatingNodes
        let ordered = node.focus.compactMap { id in children.first { $0.id == id } }
            + children.filter { !node.focus.contains($0.id) }
        for child in ordered {
            if let view = frontView(under: child, skipping: isOverlay) { return view }
        }
        return nil
    }
}

// MARK: - Finding sway's socket again

/// A restarted sway listens at `sway-ipc.UID.PID.sock` with its new pid
/// (unless SWAYSOCK named a free path), while the daemon's SWAYSOCK still
/// names the old one. So after SWAYSOCK fails, the other sway sockets in the
/// same directory are tried, newest first — only those owned by the owner of
/// that directory, named for that same uid.
enum SwaySocketDiscovery {
    struct Entry: Equatable {
        var name: String
        var isSocket: Bool
        var owner: UInt32
        var modifiedNs: Int64
    }

    /// The paths to try, in order: where sway answered last, SWAYSOCK, then the newest sibling sockets.
    static func candidates(configured: String, current: String) -> [String] {
        let (directory, _) = split(configured)
        var paths = [current, configured]
        if let listing = list(directory) {
            paths += siblings(of: configured, directoryOwner: listing.owner, entries: listing.entries)
        }
        var seen = Set<String>()
        return paths.filter { seen.insert($0).inserted }
    }

    static func siblings(of configured: String, directoryOwner: UInt32, entries: [Entry]) -> [String] {
        let (directory, configuredName) = split(configured)
        let prefix = "sway-ipc.\(directoryOwner)."
        return entries
            .filter { entry in
                entry.isSocket && entry.owner == directoryOwner && entry.name != configuredName
                    && entry.name.hasPrefix(prefix) && entry.name.hasSuffix(".sock")
                    && entry.name.dropFirst(prefix.count).dropLast(5).allSatisfy(\.isNumber)
            }
            .sorted { $0.modifiedNs > $1.modifiedNs }
            .map { directory == "/" ? "/\($0.name)" : "\(directory)/\($0.name)" }
    }

    static func split(_ path: String) -> (directory: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let directory = String(path[..<slash])
        return (directory.isEmpty ? "/" : directory, String(path[path.index(after: slash)...]))
    }

    /// The directory's owner and its `sway-ipc.*` entries; nil when unreadable.
    private static func list(_ directory: String) -> (owner: UInt32, entries: [Entry])? {
        var info = stat()
        guard stat(directory, &info) == 0, let dir = opendir(directory) else { return nil }
        defer { closedir(dir) }
        var entries: [Entry] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard name.hasPrefix("sway-ipc.") else { continue }
            var file = stat()
            guard lstat("\(directory)/\(name)", &file) == 0 else { continue }
            entries.append(Entry(name: name, isSocket: file.st_mode & S_IFMT == S_IFSOCK, owner: file.st_uid,
                                 modifiedNs: Int64(file.st_mtim.tv_sec) * 1_000_000_000 + Int64(file.st_mtim.tv_nsec)))
        }
        return (info.st_uid, entries)
    }
}

// MARK: - i3 IPC

/// The i3 IPC framing sway speaks: "i3-ipc", u32 payload length, u32 type
/// (native byte order), payload. Events have the high bit of the type set.
package enum SwayIPC {
    package static let magic = Array("i3-ipc".utf8)
    package static let headerSize = 14
    /// Larger answers are refused: a tree is a few KB per window.
    package static let payloadLimit = 64 << 20
    package static let eventFlag: UInt32 = 0x8000_0000

    package enum MessageType: UInt32, Sendable {
        case runCommand = 0
        case subscribe = 2
        case getTree = 4
    }

    package struct Header: Equatable, Sendable {
        package var length: Int
        package var type: UInt32
        package var isEvent: Bool { type & SwayIPC.eventFlag != 0 }
    }

    package static func frame(type: UInt32, payload: [UInt8]) -> [UInt8] {
        var bytes = magic
        withUnsafeBytes(of: UInt32(payload.count)) { bytes += $0 }
        withUnsafeBytes(of: type) { bytes += $0 }
        return bytes + payload
    }

    /// nil when `bytes` do not start an i3 IPC message (or announce an absurd
    /// length): the stream is out of step and the connection must be dropped.
    package static func header(_ bytes: ArraySlice<UInt8>) -> Header? {
        guard bytes.count >= headerSize, bytes.prefix(magic.count).elementsEqual(magic) else { return nil }
        let start = bytes.startIndex + magic.count
        let length = Int(u32(bytes, at: start))
        guard length <= payloadLimit else { return nil }
        return Header(length: length, type: u32(bytes, at: start + 4))
    }

    private static func u32(_ bytes: ArraySlice<UInt8>, at index: Int) -> UInt32 {
        var value: UInt32 = 0
        withUnsafeMutableBytes(of: &value) { raw in
            for i in 0..<4 { raw[i] = bytes[index + i] }
        }
        return value
    }

    /// Splits a byte stream into messages, keeping a partial one for later.
    package struct MessageBuffer: Sendable {
        private var pending: [UInt8] = []
        package init() {}

        package mutating func append(_ bytes: [UInt8]) { pending += bytes }

        /// The complete messages so far, in order; nil when the stream is out of step.
        package mutating func takeMessages() -> [(header: Header, payload: [UInt8])]? {
            var messages: [(header: Header, payload: [UInt8])] = []
            var offset = 0
            while pending.count - offset >= headerSize {
                guard let header = SwayIPC.header(pending[offset...]) else { return nil }
                let end = offset + headerSize + header.length
                guard end <= pending.count else { break }
                messages.append((header, Array(pending[(offset + headerSize)..<end])))
                offset = end
            }
            // A partial message must at least start like one.
            let rest = pending[offset...].prefix(magic.count)
            guard rest.elementsEqual(magic.prefix(rest.count)) else { return nil }
            pending.removeFirst(offset)
            return messages
        }
    }
}

package enum SwayIPCError: Error, Equatable, Sendable, CustomStringConvertible {
    case socket(UnixSocket.Failure)
    case outOfStep(String)
    case refused(String)

    package var description: String {
        switch self {
        case let .socket(failure): "\(failure)"
        case let .outOfStep(what): what
        case let .refused(what): what
        }
    }

    /// sway closed or reset the connection (it exited or restarted).
    var isConnectionLoss: Bool {
        switch self {
        case .socket(.closedByPeer): true
        case let .socket(.system(_, code)): code == .brokenPipe || code == .connectionReset || code == .notConnected
        default: false
        }
    }
}

/// One connection to sway's IPC socket.
package final class SwayIPCConnection {
    package let path: String
    package let socket: UnixSocket
    private let timeoutMs: Int32
    private var isOpen = true

    private init(path: String, socket: UnixSocket, timeoutMs: Int32) {
        self.path = path
        self.socket = socket
        self.timeoutMs = timeoutMs
    }

    deinit { close() }

    package static func connect(path: String, timeoutMs: Int32) throws(SwayIPCError) -> SwayIPCConnection {
        do { return SwayIPCConnection(path: path, socket: try UnixSocket.connect(to: path), timeoutMs: timeoutMs) }
        catch { throw .socket(error) }
    }

    /// Sends one message and returns the payload of its reply.
    package func request(_ type: SwayIPC.MessageType, payload: String = "") throws(SwayIPCError) -> [UInt8] {
        let deadline = UnixSocket.Deadline.after(ms: timeoutMs)
        do {
            try socket.writeAll(SwayIPC.frame(type: type.rawValue, payload: Array(payload.utf8)), deadline: deadline)
            while true {
                let head = try socket.read(exactly: SwayIPC.headerSize, deadline: deadline)
                guard let header = SwayIPC.header(head[...]) else { throw SwayIPCError.outOfStep("sway answered something that is not i3 IPC") }
                let body = try socket.read(exactly: header.length, deadline: deadline)
                if header.isEvent { continue }        // an event that was already on its way
                guard header.type == type.rawValue else {
                    throw SwayIPCError.outOfStep("sway answered message type \(header.type) to type \(type.rawValue)")
                }
                return body
            }
        } catch let error as UnixSocket.Failure {
            throw .socket(error)
        } catch let error as SwayIPCError {
            throw error
        } catch {
            throw .outOfStep("\(error)")
        }
    }

    /// SUBSCRIBE to `events` (["window"]); sway answers `{"success": true}`.
    package func subscribe(to events: [String]) throws(SwayIPCError) {
        let list = "[" + events.map { "\"\($0)\"" }.joined(separator: ",") + "]"
        let answer = try request(.subscribe, payload: list)
        struct Success: Decodable { var success: Bool }
        guard (try? JSONDecoder().decode(Success.self, from: Data(answer)))?.success == true else {
            throw .refused("sway refused SUBSCRIBE \(list): \(String(decoding: answer.prefix(200), as: UTF8.self))")
        }
    }

    package func close() {
        guard isOpen else { return }
        isOpen = false
        socket.close()
    }
}
