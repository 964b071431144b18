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
}
