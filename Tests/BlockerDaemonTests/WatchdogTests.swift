import Foundation
import Glibc
import Testing
import TestSupport

/// What the real blockerd tells the service manager, read from a NOTIFY_SOCKET of our own.
@Suite struct WatchdogTests {
    /// A datagram socket bound at `path`, as systemd's notify socket is.
    final class NotifySocket {
        let fd: Int32
        init(path: String) throws {
            fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                for (i, byte) in path.utf8.enumerated() { raw[i] = byte }
            }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            guard fd >= 0, bound == 0 else { throw TestFailure("cannot bind \(path): errno \(errno)") }
        }
        deinit { close(fd) }

        /// Every datagram received so far, one string each.
        func messages() -> [String] {
            var out: [String] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = recv(fd, &buffer, buffer.count, 0)
                guard n > 0 else { return out }
                out.append(String(decoding: buffer[0..<n], as: UTF8.self))
            }
        }
    }

    @Test func theWatchdogIsPingedAtMostTwicePerIntervalNotOnEveryTick() throws {
        let box = try Sandbox(pollInterval: "200ms")
        box.front("discord")
        let socket = try NotifySocket(path: box.root + "/notify")
        let daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: KillTests.binary)
        daemon.arguments = ["--config", box.configPath, "--state-dir", box.stateDirectory]
        // WatchdogSec=2s: a ping per 200 ms tick would be 10 a second.
        daemon.environment = ["TZ": "UTC", "HOME": box.root, "PATH": "/usr/bin:/bin",
                              "NOTIFY_SOCKET": box.root + "/notify", "WATCHDOG_USEC": "2000000"]
        daemon.standardError = FileHandle.nullDevice
        try daemon.run()
        defer { if daemon.isRunning { kill(daemon.processIdentifier, SIGKILL) } }
        var received: [String] = []
        try waitUntil("READY=1", timeout: 10) { received += socket.messages(); return received.contains { $0.contains("READY=1") } }
        Thread.sleep(forTimeInterval: 3.1)
        received += socket.messages()
        daemon.terminate()
        daemon.waitUntilExit()
        let pings = received.filter { $0.split(separator: "\n").contains("WATCHDOG=1") }.count
        // One at the first tick, then one per second (WatchdogSec/2) while ticks complete: 3–5 in 3.1 s.
        #expect((3...5).contains(pings), "\(pings) WATCHDOG=1 in 3.1 s: \(received)")
    }
}
