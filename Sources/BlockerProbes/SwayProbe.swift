import BlockerCore
import BlockerJSON
import BlockerSystem
import Glibc

/// `probe = "sway"`: the focused container, over sway's IPC socket (i3 IPC).
///
/// Two connections: one answers GET_TREE; the other is subscribed to
/// `window` and `workspace` events, and its descriptor wakes the daemon on a
/// focus change. The tree's answer is kept until an event arrives: a sample
/// with nothing changed sends no request. Our overlay, when it is a view, is
/// reported as any view (blockerd's `OverlayFilter` knows it by its process). When sway goes
/// away, samples fail with the reason and the probe reconnects with backoff,
/// also to the socket a restarted sway created under a new name.
public final class SwayProbe: ForegroundProbe {
    private let executables = ExecutableNameCache()
    public let name = "sway"

    /// SWAYSOCK as the session gave it.
    public let configuredSocketPath: String
    /// Where sway answered last (differs from SWAYSOCK after a restart under a new pid).
    public private(set) var socketPath: String
    public var eventGeneration: Int { link.generation }
    public var eventDescriptor: Int32? { connection?.events.socket.rawValue }

    /// How long one exchange with sway may take before the sample fails.
    let timeoutMs: Milliseconds
    private let link = Reconnecting<(commands: SwayIPCConnection, events: SwayIPCConnection)>(initial: 100, cap: 2_000)
    private var connection: (commands: SwayIPCConnection, events: SwayIPCConnection)? { link.connection }
    private var eventBuffer = SwayIPC.MessageBuffer()
    /// Connections tried so far: tests check that a missing sway costs no spin.
    var connectionAttempts: Int { link.attempts }
    /// Event messages read by `drainEvents`.
    private(set) var eventsReceived = 0
    /// GET_TREE requests sent (tests: an unchanged window costs none).
    private(set) var treeRequests = 0
    /// The last tree's answer, until an event (or a lost connection) says it may have changed.
    private var cached: Reading?

    init(socketPath: String, timeoutMs: Milliseconds) {
        self.configuredSocketPath = socketPath
        self.socketPath = socketPath
        self.timeoutMs = timeoutMs
    }

    /// The probe for the sway at `SWAYSOCK`, connected, or why there is none.
    public static func open(environment: [String: String], timeoutMs: Milliseconds = 1000) -> Result<SwayProbe, ProbeUnavailable> {
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
        drainEvents()
        if let cached, connection != nil { return .success(cached) }
        switch fetchReading() {
        case let .success(reading):
            cached = reading
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
                if !messages.isEmpty { cached = nil }
                eventsReceived += messages.count
                return
            case .closed:
                // sway exited: forget the fd now, or the loop would spin on its hang-up.
                disconnect(because: "sway closed the IPC connection")
                return
            }
        }
    }

    /// sway has no minimizing: `move scratchpad` hides the window until the
    /// user brings it back (`scratchpad show`, floating then).
    public func hide(_ window: Window) -> HideResult {
        guard case let .sway(id)? = window.handle else {
            return .failed("\(window.app) was not read from sway (it has no con_id)")
        }
        if let failure = connectIfDue() { return .failed(failure.message) }
        guard let commands = connection?.commands else { return .failed(link.downBecause) }
        do throws(SwayIPCError) {
            try commands.run("[con_id=\(id)] move scratchpad")
        } catch let .refused(why) {
            return .failed(why)
        } catch {
            disconnect(because: "\(error)")
            return .failed("sway IPC at \(socketPath): \(error)")
        }
        cached = nil                           // its window event may not have come yet
        return .hidden
    }

    // MARK: connection

    /// Connects both connections unless connected, or says why not (also
    /// while the backoff after a failed attempt has not run out).
    private func connectIfDue() -> ProbeFailure? {
        switch link.connectIfDue(now: MonotonicClock.now, describe: \.message, connectBoth) {
        case .connected: return nil
        case let .waiting(ms):
            return ProbeFailure("cannot connect to sway at \(socketPath): \(link.downBecause) (next try in \(ms) ms)")
        case .failed:
            return ProbeFailure("cannot connect to sway at \(configuredSocketPath): \(link.downBecause)")
        }
    }

    /// Both connections to the first candidate socket that takes them; the
    /// errors of each otherwise.
    private func connectBoth() throws(ProbeFailure) -> (commands: SwayIPCConnection, events: SwayIPCConnection) {
        var errors: [String] = []
        for path in SwaySocketDiscovery.candidates(configured: configuredSocketPath, current: socketPath) {
            do {
                let commands = try SwayIPCConnection.connect(path: path, timeoutMs: timeoutMs)
                let events: SwayIPCConnection
                do {
                    events = try SwayIPCConnection.connect(path: path, timeoutMs: timeoutMs)
                    // workspace: switching to an empty one changes the answer with no window event.
                    try events.subscribe(to: ["window", "workspace"])
                } catch {
                    commands.close()
                    throw error
                }
                socketPath = path
                eventBuffer = SwayIPC.MessageBuffer()
                return (commands, events)
            } catch {
                errors.append(path == configuredSocketPath ? "\(error)" : "\(path): \(error)")
            }
        }
        throw ProbeFailure(errors.joined(separator: "; "))
    }

    private func disconnect(because reason: String) {
        cached = nil
        guard link.isConnected, let connection = link.drop(because: reason) else { return }
        connection.commands.close()
        connection.events.close()
    }

    private func fetchReading() -> Result<Reading, SwayIPCError> {
        guard let commands = connection?.commands else { return .failure(.socket(.closedByPeer)) }
        treeRequests += 1
        let payload: [UInt8]
        do { payload = try commands.request(.getTree) } catch { return .failure(error) }
        // Trees nest two levels (a node, its `nodes`) per container.
        let limits = JSONReader.Limits(maxBytes: SwayIPC.payloadLimit, maxDepth: 256)
        guard let json = try? JSONReader.value(payload, limits: limits), let root = SwayNode(json) else {
            return .failure(.outOfStep("GET_TREE answered something that is not a tree"))
        }
        let front = SwayTree.foreground(in: root)
        return .success(Reading(window: front.map { Self.window(of: $0, executables: executables) }))
    }

    // MARK: pure

    static func window(of node: SwayNode, executables: ExecutableNameCache = ExecutableNameCache()) -> Window {
        let pid = node.pid.flatMap { $0 > 0 ? $0 : nil }
        return Window(appID: node.appID, wmInstance: node.windowProperties?.instance,
                      wmClass: node.windowProperties?.wmClass,
                      exe: pid.flatMap(executables.name(pid:)),
                      title: node.name ?? node.windowProperties?.title ?? "", pid: pid, handle: .sway(node.id))
    }
}
