import BlockerSystem
import Testing

@Suite struct BackoffTests {
    /// The delays after each of six failures in a row, 10 s apart.
    func delays(_ backoff: inout ReconnectBackoff) -> [Int64] {
        var now: Int64 = 1_000
        var delays: [Int64] = []
        for _ in 0..<6 {
            backoff.failed(now: now)
            delays.append(backoff.waitMs(now: now))
            now += 10_000
        }
        return delays
    }

    @Test func theX11ProbesIsShortAndCapped() {
        var backoff = ReconnectBackoff(initialMs: 50, capMs: 500)
        #expect(backoff.waitMs(now: 0) == 0)
        #expect(delays(&backoff) == [50, 100, 200, 400, 500, 500])
    }

    @Test func theSocketProbesDoublesToTwoSeconds() {
        var backoff = ReconnectBackoff(initialMs: 100, capMs: 2_000)
        #expect(delays(&backoff) == [100, 200, 400, 800, 1_600, 2_000])
    }

    @Test func theWaitRunsDownAndSuccessResetsIt() {
        var backoff = ReconnectBackoff(initialMs: 100, capMs: 2_000)
        backoff.failed(now: 5_000)
        backoff.failed(now: 5_000)
        #expect(backoff.waitMs(now: 5_150) == 50)
        #expect(backoff.waitMs(now: 5_200) == 0)
        #expect(backoff.waitMs(now: 9_000) == 0)
        backoff.succeeded()
        #expect(backoff.waitMs(now: 0) == 0)
        backoff.failed(now: 10_000)
        #expect(backoff.waitMs(now: 10_000) == 100)
    }

    struct Refused: Error, CustomStringConvertible { var description: String { "refused" } }

    /// A server that refuses, then takes the connection, then drops it:
    /// attempts only when the backoff allows, a generation per connection,
    /// the reason kept until the next connection.
    @Test func reconnectingConnectsWhenDueAndCountsGenerations() {
        let link = Reconnecting<String>(initialMs: 100, capMs: 2_000, downBecause: "not started")
        var up = false
        func connect() throws(Refused) -> String {
            guard up else { throw Refused() }
            return "socket"
        }
        guard case .failed = link.connectIfDue(now: 1_000, connect) else { Issue.record("refused"); return }
        #expect(link.downBecause == "refused" && link.attempts == 1 && link.generation == 0)
        guard case .waiting(ms: 60) = link.connectIfDue(now: 1_040, connect) else { Issue.record("backoff"); return }
        #expect(link.attempts == 1, "no attempt while the backoff runs")
        up = true
        guard case .connected("socket") = link.connectIfDue(now: 1_100, connect) else { Issue.record("up"); return }
        #expect(link.generation == 1 && link.attempts == 2 && link.isConnected)
        guard case .connected = link.connectIfDue(now: 1_100, connect) else { Issue.record("kept"); return }
        #expect(link.attempts == 2, "a live connection is not made again")

        // Dropped without a backoff (a server that restarted): at once again.
        #expect(link.drop(because: "closed") == "socket")
        #expect(link.downBecause == "closed" && !link.isConnected)
        guard case .connected = link.connectIfDue(now: 1_100, connect) else { Issue.record("again"); return }
        #expect(link.generation == 2)

        // Dropped with a backoff: the next attempt waits, from the initial delay.
        link.drop(because: "hung up", backingOffAt: 2_000)
        guard case .waiting(ms: 100) = link.connectIfDue(now: 2_000, connect) else { Issue.record("wait"); return }
        #expect(link.downBecause == "hung up")
    }

    @Test func reconnectingUpdatesTheConnectionInPlace() {
        let link = Reconnecting<[Int]>(initialMs: 10, capMs: 10)
        link.update { $0.append(1) }
        #expect(link.connection == nil)
        _ = link.connectIfDue(now: 0) { () throws(Refused) -> [Int] in [0] }
        link.update { $0.append(1) }
        #expect(link.connection == [0, 1])
    }
}
