import Glibc

/// A connected AF_UNIX stream socket: the sway and Hyprland IPC transports.
///
/// Always nonblocking (O_NONBLOCK, close-on-exec): every blocking operation
/// waits in `poll` against a `Deadline`, so a frozen compositor fails a sample
/// instead of hanging the daemon. Like swift-system's `FileDescriptor`, this
/// is a plain value: `close()` it exactly once.
package struct UnixSocket: RawRepresentable, Hashable, Sendable {
    /// The file descriptor.
    package let rawValue: Int32
    package init(rawValue: Int32) { self.rawValue = rawValue }

    /// Why a socket operation failed.
    package enum Failure: Error, Equatable, Sendable, CustomStringConvertible {
        /// The path does not fit `sockaddr_un.sun_path` (108 bytes on Linux).
        case pathTooLong(String)
        /// A system call failed.
        case system(call: String, errno: Errno)
        /// The peer closed the connection before the expected bytes arrived.
        case closedByPeer
        /// Nothing (or not enough) arrived before the deadline.
        case timedOut(ms: Milliseconds)
        /// The peer sent more than the caller's limit.
        case tooLarge(limit: Int)

        package var description: String {
            switch self {
            case let .pathTooLong(path): "socket path is too long (\(path.utf8.count) bytes): \(path)"
            case let .system(call, code): "\(call): \(code)"
            case .closedByPeer: "connection closed by the other side"
            case let .timedOut(ms): "no answer within \(ms) ms"
            case let .tooLarge(limit): "answer larger than \(limit) bytes"
            }
        }
    }

    /// What a nonblocking read found.
    package enum Available: Equatable, Sendable {
        case bytes([UInt8])
        /// Nothing pending (EAGAIN): the socket is still open.
        case nothing
        /// End of stream: the peer closed (or reset) the connection.
        case closed
    }

    /// Connects to the socket at `path`. A listener whose backlog is full
    /// (a frozen server) fails at once with EAGAIN rather than blocking.
    package static func connect(to path: String) throws(Failure) -> UnixSocket {
        var address = try socketAddress(path)
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw .system(call: "socket", errno: .current) }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard result == 0 else {
            let code = Errno.current
            Glibc.close(fd)
            throw .system(call: "connect", errno: code)
        }
        return UnixSocket(rawValue: fd)
    }

    /// Writes every byte (MSG_NOSIGNAL: a closed peer is an error, not a SIGPIPE).
    package func writeAll(_ bytes: [UInt8], deadline: Deadline) throws(Failure) {
        var offset = 0
        while offset < bytes.count {
            do {
                // Never 0 for a nonempty stream write.
                offset += try retryOnInterrupt {
                    bytes.withUnsafeBytes { send(rawValue, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
                }
            } catch .wouldBlock {
                try wait(for: Int16(POLLOUT), deadline: deadline)
            } catch .brokenPipe, .connectionReset {
                throw .closedByPeer
            } catch {
                throw .system(call: "send", errno: error)
            }
        }
    }

    /// Reads exactly `count` bytes.
    package func read(exactly count: Int, deadline: Deadline) throws(Failure) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(count)
        while result.count < count {
            switch try readAvailable(limit: count - result.count) {
            case let .bytes(chunk): result += chunk
            case .nothing: try wait(for: Int16(POLLIN), deadline: deadline)
            case .closed: throw .closedByPeer
            }
        }
        return result
    }

    /// Reads until the peer closes the connection (Hyprland's request socket
    /// answers once, then closes).
    package func readToEnd(limit: Int, deadline: Deadline) throws(Failure) -> [UInt8] {
        var result: [UInt8] = []
        while true {
            switch try readAvailable(limit: 65_536) {
            case let .bytes(chunk):
                result += chunk
                if result.count > limit { throw .tooLarge(limit: limit) }
            case .nothing: try wait(for: Int16(POLLIN), deadline: deadline)
            case .closed: return result
            }
        }
    }

    /// Reads what is pending now, without waiting.
    package func readAvailable(limit: Int = 65_536) throws(Failure) -> Available {
        var buffer = [UInt8](repeating: 0, count: max(1, limit))
        let n: Int
        do {
            n = try retryOnInterrupt { buffer.withUnsafeMutableBytes { Glibc.read(rawValue, $0.baseAddress!, $0.count) } }
        } catch .wouldBlock {
            return .nothing
        } catch .connectionReset {
            return .closed
        } catch {
            throw .system(call: "read", errno: error)
        }
        return n == 0 ? .closed : .bytes(Array(buffer[0..<n]))
    }

    package func close() {
        _ = Glibc.close(rawValue)
    }

    /// Readable, writable, or HUP/ERR before `deadline`: the next call says which.
    package func wait(for events: Int16, deadline: Deadline) throws(Failure) {
        let ready: Bool
        do { ready = try deadline.wait(for: rawValue, events: events) } catch { throw .system(call: "poll", errno: error) }
        if !ready { throw .timedOut(ms: deadline.budget) }
    }

    fileprivate static func socketAddress(_ path: String) throws(Failure) -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard !bytes.isEmpty, bytes.count < capacity else { throw .pathTooLong(path) }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return address
    }
}

/// A listening AF_UNIX stream socket. The probes only connect; this serves
/// the test servers that stand in for what cannot run here (Hyprland).
package struct UnixListener: RawRepresentable, Hashable, Sendable {
    package let rawValue: Int32
    package init(rawValue: Int32) { self.rawValue = rawValue }

    /// Binds and listens at `path` (which must not exist yet).
    package static func listen(at path: String, backlog: Int32 = 16) throws(UnixSocket.Failure) -> UnixListener {
        var address = try UnixSocket.socketAddress(path)
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw .system(call: "socket", errno: .current) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0 else {
            let code = Errno.current
            Glibc.close(fd)
            throw .system(call: "bind", errno: code)
        }
        guard Glibc.listen(fd, backlog) == 0 else {
            let code = Errno.current
            Glibc.close(fd)
            throw .system(call: "listen", errno: code)
        }
        return UnixListener(rawValue: fd)
    }

    /// The next pending connection, waiting at most `timeoutMs`; nil when none came.
    package func accept(timeoutMs: Milliseconds) throws(UnixSocket.Failure) -> UnixSocket? {
        do {
            guard try Deadline.after(timeoutMs).wait(for: rawValue) else { return nil }
        } catch {
            throw .system(call: "poll", errno: error)
        }
        // accept4 is a GNU extension the Glibc module does not import.
        let fd = Glibc.accept(rawValue, nil, nil)
        if fd >= 0 {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            return UnixSocket(rawValue: fd)
        }
        let code = Errno.current
        if code == .wouldBlock || code == .interrupted { return nil }
        throw .system(call: "accept", errno: code)
    }

    package func close() {
        _ = Glibc.close(rawValue)
    }
}
