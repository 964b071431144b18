// The i3 IPC protocol as sway speaks it, apart from its users (as sway's
// common/ipc-client.c): framing, message types, one connection.
import BlockerJSON
import BlockerSystem
import Glibc

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
    private let timeoutMs: Milliseconds
    private var isOpen = true

    private init(path: String, socket: UnixSocket, timeoutMs: Milliseconds) {
        self.path = path
        self.socket = socket
        self.timeoutMs = timeoutMs
    }

    deinit { close() }

    package static func connect(path: String, timeoutMs: Milliseconds) throws(SwayIPCError) -> SwayIPCConnection {
        do { return SwayIPCConnection(path: path, socket: try UnixSocket.connect(to: path), timeoutMs: timeoutMs) }
        catch { throw .socket(error) }
    }

    /// Sends one message and returns the payload of its reply.
    package func request(_ type: SwayIPC.MessageType, payload: String = "") throws(SwayIPCError) -> [UInt8] {
        let deadline = Deadline.after(timeoutMs)
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
        guard (try? JSONReader.value(answer))?["success"]?.bool == true else {
            throw .refused("sway refused SUBSCRIBE \(list): \(String(decoding: answer.prefix(200), as: UTF8.self))")
        }
    }

    /// RUN_COMMAND `command` (one, with criteria: `[con_id=4] move scratchpad`);
    /// sway answers `[{"success": false, "error": "…"}]` when it refuses.
    package func run(_ command: String) throws(SwayIPCError) {
        let answer = try request(.runCommand, payload: command)
        guard let results = (try? JSONReader.value(answer))?.array, !results.isEmpty else {
            throw .outOfStep("sway answered RUN_COMMAND with something that is not a list of results")
        }
        for result in results where result["success"]?.bool != true {
            throw .refused("sway refused `\(command)`: \(result["error"]?.string ?? "no reason given")")
        }
    }

    package func close() {
        guard isOpen else { return }
        isOpen = false
        socket.close()
    }
}
