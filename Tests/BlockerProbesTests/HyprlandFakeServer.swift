import Foundation
import Glibc
import Synchronization
@testable import BlockerProbes
import BlockerSystem

/// A FAKE Hyprland. Hyprland cannot run in this sandbox (it needs a DRM
/// session), so this serves its two sockets as its IPC documentation
/// (wiki.hypr.land/IPC, "Using hyprctl") describes them:
///
/// - `.socket.sock`: one request per connection (`[flags]/command`, here
///   `j/activewindow` and `/dispatch …`), answered and closed; `{}` when no
///   window is active, `ok` (or an error) to a dispatch, "unknown request"
///   for what it does not know.
/// - `.socket2.sock`: every connected client gets live `EVENT>>DATA\n` lines.
///
/// It runs its accept loop on its own thread; the test drives it (what the
/// active window is, which events to send) from the test's thread.
final class FakeHyprlandServer: Sendable {
    let directory: String
    var requestSocketPath: String { directory + "/.socket.sock" }
    var eventSocketPath: String { directory + "/.socket2.sock" }

    private struct State {
        var activeWindow = "{}"
        /// What a `/dispatch …` is answered: `ok`, or Hyprland's error text.
        var dispatchAnswer = "ok"
        /// Accept requests but never answer them (a frozen compositor).
        var hangs = false
        var requests: [String] = []
        var eventClients: [UnixSocket] = []
        var heldRequests: [UnixSocket] = []
        var listeners: (request: UnixListener, events: UnixListener)?
        var running = false
    }
    private let state = Mutex(State())
    private let stopped = DispatchSemaphore(value: 0)

    init(directory: String) throws {
        self.directory = directory
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try start()
    }

    deinit { stop() }

    /// Listens on both sockets (again, after `stop()`: a restarted Hyprland).
    func start() throws {
        let request = try UnixListener.listen(at: requestSocketPath)
        let events: UnixListener
        do { events = try UnixListener.listen(at: eventSocketPath) } catch {
            request.close()
            throw error
        }
        state.withLock {
            $0.listeners = (request, events)
            $0.running = true
        }
        let thread = Thread { [self] in serve() }
        thread.start()
    }

    /// Closes every socket and removes the socket files, as an exiting Hyprland does.
    func stop() {
        let wasRunning = state.withLock { state in
            let was = state.running
            state.running = false
            return was
        }
        guard wasRunning else { return }
        stopped.wait()
        state.withLock { state in
            state.eventClients.forEach { $0.close() }
            state.heldRequests.forEach { $0.close() }
            state.eventClients = []
            state.heldRequests = []
            if let listeners = state.listeners {
                listeners.request.close()
                listeners.events.close()
            }
            state.listeners = nil
        }
        unlink(requestSocketPath)
        unlink(eventSocketPath)
    }

    /// The JSON `j/activewindow` answers from now on, announced to the event
    /// clients as Hyprland does (`activewindow>>class,title`), before it returns.
    func setActiveWindow(_ json: String) {
        state.withLock { $0.activeWindow = json }
        send("activewindow>>fake,changed\n")
    }
    func setHangs(_ hangs: Bool) { state.withLock { $0.hangs = hangs } }
    func setDispatchAnswer(_ answer: String) { state.withLock { $0.dispatchAnswer = answer } }
    var requests: [String] { state.withLock { $0.requests } }
    var eventClientCount: Int { state.withLock { $0.eventClients.count } }

    /// Writes raw bytes to every event client (`activewindow>>class,title\n`…).
    func send(_ text: String) {
        state.withLock { state in
            for client in state.eventClients {
                try? client.writeAll(Array(text.utf8), deadline: .after(1000))
            }
        }
    }

    private func serve() {
        defer { stopped.signal() }
        while let listeners = state.withLock({ $0.running ? $0.listeners : nil }) {
            if let client = try? listeners.events.accept(timeoutMs: 10) {
                state.withLock { $0.eventClients.append(client) }
            }
            if let client = try? listeners.request.accept(timeoutMs: 10) {
                answer(client)
            }
        }
    }

    private func answer(_ client: UnixSocket) {
        // Hyprland reads the request in one go.
        let request = (try? client.read(upTo: 8192, deadline: .after(1000))).map { String(decoding: $0, as: UTF8.self) } ?? ""
        let (reply, hangs) = state.withLock { state in
            state.requests.append(request)
            if state.hangs { state.heldRequests.append(client) }
            let reply = request == "j/activewindow" ? state.activeWindow
                : request.hasPrefix("/dispatch ") ? state.dispatchAnswer : "unknown request"
            return (reply, state.hangs)
        }
        guard !hangs else { return }
        try? client.writeAll(Array(reply.utf8), deadline: .after(1000))
        client.close()
    }
}

extension UnixSocket {
    /// The first chunk that arrives (the fake's stand-in for Hyprland's single read of a request).
    func read(upTo limit: Int, deadline: Deadline) throws(Failure) -> [UInt8] {
        while true {
            switch try readAvailable(limit: limit) {
            case let .bytes(bytes): return bytes
            case .closed: return []
            case .nothing:
                try wait(for: Int16(POLLIN), deadline: deadline)
            }
        }
    }
}
