import BlockerSystem
import Testing
import TestSupport

@Suite struct BackoffTests {
    /// The delays after each of six failures in a row, 10 s apart.
    func delays(_ backoff: inout ReconnectBackoff) -> [Milliseconds] {
        var now: MonotonicInstant = 1_000
        var delays: [Milliseconds] = []
        for _ in 0..<6 {
            backoff.failed(now: now)
            delays.append(backoff.wait(now: now))
            now += 10_000
        }
        return delays
    }

    @Test func theX11ProbesIsShortAndCapped() {
        var backoff = ReconnectBackoff(initial: 50, cap: 500)
        #expect(backoff.wait(now: 0) == 0)
        #expect(delays(&backoff) == [50, 100, 200, 400, 500, 500])
    }

    @Test func theSocketProbesDoublesToTwoSeconds() {
        var backoff = ReconnectBackoff(initial: 100, cap: 2_000)
        #expect(delays(&backoff) == [100, 200, 400, 800, 1_600, 2_000])
    }

    @Test func theWaitRunsDownAndSuccessResetsIt() {
        var backoff = ReconnectBackoff(initial: 100, cap: 2_000)
        backoff.failed(now: 5_000)
        backoff.failed(now: 5_000)
        #expect(backoff.wait(now: 5_150) == 50)
        #expect(backoff.wait(now: 5_200) == 0)
        #expect(backoff.wait(now: 9_000) == 0)
        backoff.succeeded()
        #expect(backoff.wait(now: 0) == 0)
        backoff.failed(now: 10_000)
        #expect(backoff.wait(now: 10_000) == 100)
    }

    struct Refused: Error, CustomStringConvertible { var description: String { "refused" } }

    /// A server that refuses, then takes the connection, then drops it:
    /// attempts only when the backoff allows, a generation per connection,
    /// the reason kept until the next connection.
    @Test func reconnectingConnectsWhenDueAndCountsGenerations() {
        let link = Reconnecting<String>(initial: 100, cap: 2_000, downBecause: "not started")
        var up = false
        func connect() throws(Refused) -> String {
            guard up else { throw Refused() }
            return "socket"
        }
        guard case .failed = link.connectIfDue(now: 1_000, connect) else { Issue.record("refused"); return }
        #expect(link.downBecause == "refused" && link.attempts == 1 && link.generation == 0)
        guard case .waiting(60) = link.connectIfDue(now: 1_040, connect) else { Issue.record("backoff"); return }
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
        guard case .waiting(100) = link.connectIfDue(now: 2_000, connect) else { Issue.record("wait"); return }
        #expect(link.downBecause == "hung up")
    }

    @Test func reconnectingUpdatesTheConnectionInPlace() {
        let link = Reconnecting<[Int]>(initial: 10, cap: 10)
        link.update { $0.append(1) }
        #expect(link.connection == nil)
        _ = link.connectIfDue(now: 0) { () throws(Refused) -> [Int] in [0] }
        link.update { $0.append(1) }
        #expect(link.connection == [0, 1])
    }
}
