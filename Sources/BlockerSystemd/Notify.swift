import CSystemd
import Glibc

/// sd_notify: READY=1, STATUS=, WATCHDOG=1, RELOADING=1, STOPPING=1.
public enum ServiceManager {
    /// Sends `state` to the service manager; a no-op outside systemd.
    ///
    /// Through one socket kept open (`NotifySocket`): sd_notify opens, sets up
    /// and closes a socket for every message (10 syscalls), and blockerd says
    /// STATUS= at every focus change. sd_notify stays the fallback.
    public static func notify(_ state: String) {
        if let socket = shared.socket, socket.send(state) { return }
        _ = sd_notify(0, state)
    }

    /// The watchdog interval systemd expects pings within, or nil when it is off.
    public static var watchdogInterval: UInt64? {
        var usec: UInt64 = 0
        return sd_watchdog_enabled(0, &usec) > 0 ? usec : nil
    }

    /// Made at the first message: `$NOTIFY_SOCKET`, read as sd_notify reads it.
    private static let shared = SharedSocket()

    private final class SharedSocket: Sendable {
        let socket: NotifySocket?
        init() { socket = getenv("NOTIFY_SOCKET").flatMap { NotifySocket(address: String(cString: $0)) } }
    }
}

/// A datagram socket to the service manager's notification socket, opened
/// once. The manager learns who sent each message from the kernel's
/// credentials, as with sd_notify.
public final class NotifySocket: Sendable {
    private let descriptor: Int32
    private let address: sockaddr_un
    private let addressLength: socklen_t

    /// `address` as in `$NOTIFY_SOCKET`: a path, or `@name` for an abstract
    /// socket; nil for anything else (sd_notify then says why, or nothing).
    public init?(address: String) {
        var bytes = Array(address.utf8)
        guard let first = bytes.first, first == UInt8(ascii: "/") || first == UInt8(ascii: "@") else { return nil }
        if first == UInt8(ascii: "@") { bytes[0] = 0 }
        var un = sockaddr_un()
        un.sun_family = sa_family_t(AF_UNIX)
        guard bytes.count < MemoryLayout.size(ofValue: un.sun_path) else { return nil }
        withUnsafeMutableBytes(of: &un.sun_path) { $0.copyBytes(from: bytes) }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        descriptor = fd
        self.address = un
        // A path is sent with its NUL; an abstract name exactly as long as it is.
        addressLength = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (first == UInt8(ascii: "/") ? 1 : 0))
    }

    deinit { close(descriptor) }

    /// Whether the manager's socket took the whole message.
    public func send(_ state: String) -> Bool {
        var target = address
        let bytes = Array(state.utf8)
        let sent = withUnsafePointer(to: &target) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                bytes.withUnsafeBytes { sendto(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL), raw, addressLength) }
            }
        }
        return sent == bytes.count
    }
}
