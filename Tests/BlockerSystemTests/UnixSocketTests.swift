import BlockerSystem
import Glibc
import Testing

@Suite struct UnixSocketTests {
    @Test func aRoundTripThenTheEndOfTheStream() throws {
        let path = "/tmp/blocker-system-test-\(getpid())-\(MonotonicClock.nowNs).sock"
        defer { unlink(path) }
        let listener = try UnixListener.listen(at: path)
        defer { listener.close() }
        let client = try UnixSocket.connect(to: path)
        let server = try #require(try listener.accept(timeoutMs: 1000))
        try client.writeAll(Array("ping".utf8), deadline: .after(1000))
        #expect(try server.read(exactly: 4, deadline: .after(1000)) == Array("ping".utf8))
        #expect(try server.readAvailable() == .nothing)
        try server.writeAll(Array("pong".utf8), deadline: .after(1000))
        server.close()
        #expect(try client.readToEnd(limit: 100, deadline: .after(1000)) == Array("pong".utf8))
        client.close()
    }

    @Test func silenceTimesOut() throws {
        let path = "/tmp/blocker-system-test-\(getpid())-\(MonotonicClock.nowNs).sock"
        defer { unlink(path) }
        let listener = try UnixListener.listen(at: path)
        defer { listener.close() }
        let client = try UnixSocket.connect(to: path)
        defer { client.close() }
        let started = MonotonicClock.now
        #expect(throws: UnixSocket.Failure.timedOut(ms: 50)) { try client.read(exactly: 1, deadline: .after(50)) }
        #expect(MonotonicClock.now - started >= 50)
    }

    @Test func failuresSayWhatFailed() {
        #expect(throws: UnixSocket.Failure.system(call: "connect", errno: .noSuchFileOrDirectory)) {
            try UnixSocket.connect(to: "/nonexistent-blocker-test/socket")
        }
        #expect(UnixSocket.Failure.system(call: "connect", errno: .noSuchFileOrDirectory).description
                == "connect: No such file or directory")
        let long = "/tmp/" + String(repeating: "x", count: 200)
        #expect(throws: UnixSocket.Failure.pathTooLong(long)) { try UnixSocket.connect(to: long) }
    }
}
