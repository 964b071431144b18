import Glibc
import Testing
import TestSupport
@testable import BlockerSystemd

/// The notification socket kept open, against a datagram socket of the test's
/// own standing in for the service manager's.
@Suite struct NotifySocketTests {
    /// A bound datagram socket at `address` (a path, or "\0name"), and what it receives.
    final class Manager {
        let fd: Int32

        init(bytes: [UInt8]) throws {
            fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
            var un = sockaddr_un()
            un.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &un.sun_path) { $0.copyBytes(from: bytes) }
            let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count)
            let bound = withUnsafePointer(to: &un) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
            }
            guard bound == 0 else { throw TestFailure("bind: \(String(cString: strerror(errno)))") }
        }

        deinit { close(fd) }

        func receive() -> String? {
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, 2000) > 0 else { return nil }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let n = recv(fd, &buffer, buffer.count, 0)
            return n > 0 ? String(decoding: buffer[0..<n], as: UTF8.self) : nil
        }
    }

    @Test func messagesGoThroughOneSocketToAPath() throws {
        let dir = try TemporaryDirectory()
        let path = dir.path + "/notify"
        let manager = try Manager(bytes: Array(path.utf8) + [0])
        let socket = try #require(NotifySocket(address: path))
        #expect(socket.send("READY=1\nSTATUS=firefox in front"))
        #expect(socket.send("WATCHDOG=1"))
        #expect(manager.receive() == "READY=1\nSTATUS=firefox in front")
        #expect(manager.receive() == "WATCHDOG=1")
    }

    @Test func anAbstractAddressIsNamedWithAnAt() throws {
        let name = "blocker-notify-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let manager = try Manager(bytes: [0] + Array(name.utf8))
        let socket = try #require(NotifySocket(address: "@" + name))
        #expect(socket.send("STATUS=x"))
        #expect(manager.receive() == "STATUS=x")
    }

    @Test func aManagerThatWentAwayIsAFailedSendNotACrash() throws {
        let dir = try TemporaryDirectory()
        let path = dir.path + "/notify"
        var socket: NotifySocket?
        do {
            let manager = try Manager(bytes: Array(path.utf8) + [0])
            socket = NotifySocket(address: path)
            #expect(socket?.send("READY=1") == true)
            _ = manager.receive()
        }
        unlink(path)
        #expect(socket?.send("WATCHDOG=1") == false)
    }

    @Test func anythingButAPathOrAnAbstractNameIsRefused() {
        #expect(NotifySocket(address: "") == nil)
        #expect(NotifySocket(address: "relative/notify") == nil)
        #expect(NotifySocket(address: "vsock:2:1234") == nil)
        #expect(NotifySocket(address: "/" + String(repeating: "x", count: 200)) == nil)
    }
}
