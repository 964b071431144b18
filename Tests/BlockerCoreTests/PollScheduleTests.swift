import Testing
@testable import BlockerCore

/// A seeded generator (SplitMix64), so the statistics below are the same at every run.
struct SeededRandom: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Row 13 of issue 20: a window switched in step with a polled probe. The
/// real Meter charges what each sample saw until the next one; the samples
/// come when a schedule says.
@Suite struct PollScheduleTests {
    let poll: Milliseconds = 1000
    let config = Config(daemon: DaemonSettings(pollInterval: 1000), groups: [group("social", apps: ["discord"])])
    let discord = Window(appID: "discord", title: "chat", pid: 42)
    let notes = Window(appID: "notes")

    /// Discord in front from `from` to `to` ms into every `period` ms, from the first sample on.
    struct Switching {
        var name: String
        var period: Milliseconds, from: Milliseconds, to: Milliseconds
        func inFront(_ t: Milliseconds) -> Bool { (from..<to).contains(t % period) }
        /// How long discord was in front in [0, t).
        func frontMs(before t: Milliseconds) -> Milliseconds {
            (to - from) * t.count(of: period) + min(max(t % period - from, 0), to - from)
        }
    }

    /// (charged, truly in front) over `samples` samples spaced by `nextDelayMs`.
    func run(samples: Int, _ switching: Switching, nextDelayMs: () -> Milliseconds)
        -> (charged: Milliseconds, truth: Milliseconds) {
        var h = MeterHarness(config: config, balance: .max / 4)
        var t: Milliseconds = 0
        h.tick(after: 0, switching.inFront(0) ? discord : notes)
        for _ in 0..<samples {
            let delay = nextDelayMs()
            t += delay
            h.tick(after: delay, switching.inFront(t) ? discord : notes)
        }
        return (h.debited, switching.frontMs(before: t))
    }

    func jittered(seed: UInt64) -> () -> Milliseconds {
        var random = SeededRandom(state: seed)
        return { Milliseconds(ms: Int64(PollSchedule.nextDelayUs(pollInterval: 1000, using: &random) / 1000)) }
    }

    /// The patterns, in step with a 1 s poll: discord in front for the
    /// last 40 % of every second, and for 1.2 s of every 2 s.
    let patterns = [
        Switching(name: "late 40 % of each poll", period: 1000, from: 600, to: 1000),
        Switching(name: "1.2 s of every 2 s", period: 2000, from: 0, to: 1200),
        Switching(name: "0.3 s of every 3 s", period: 3000, from: 2700, to: 3000),
    ]

    @Test func aRandomPhaseChargesTheTrueTimeOnAverage() {
        for (index, pattern) in patterns.enumerated() {
            let (charged, truth) = run(samples: 20_000, pattern, nextDelayMs: jittered(seed: 7 + UInt64(index)))
            let error = Double((charged - truth).ms) / Double(truth.ms)
            #expect(abs(error) < 0.03, "\(pattern.name): charged \(charged) ms for \(truth) ms in front")
        }
    }

    /// The same check against a fixed poll: it fails, by far.
    @Test func aFixedPhaseIsAlwaysOrNeverSeen() {
        for (offset, expectSeen) in [(Milliseconds(ms: 100), false), (Milliseconds(ms: 700), true)] {
            var first = true
            let (charged, truth) = run(samples: 2_000, patterns[0]) {
                defer { first = false }
                return first ? offset : 1000   // the phase the first poll fell on, then every second
            }
            #expect(abs(Double((charged - truth).ms) / Double(truth.ms)) > 0.5)
            #expect(expectSeen ? charged > 2 * truth : charged == 0)
        }
    }

    /// Why not a random phase inside a fixed grid of intervals: a sample late
    /// in its interval charges a shorter time, so the late half of every
    /// interval is charged about 3/4 of its time.
    @Test func aRandomPhaseInAFixedGridWouldStillBeBiased() {
        var random = SeededRandom(state: 11)
        var previousPhase: Milliseconds = 0
        let (charged, truth) = run(samples: 20_000, Switching(name: "late half", period: 1000, from: 500, to: 1000)) {
            let phase = Milliseconds(ms: Int64.random(in: 0..<1000, using: &random))
            defer { previousPhase = phase }
            return 1000 - previousPhase + phase
        }
        let ratio = Double(charged.ms) / Double(truth.ms)
        #expect(ratio > 0.7 && ratio < 0.8, "\(ratio)")
    }

    @Test func everyDelayIsWithinHalfAPollOfIt() {
        var random = SeededRandom(state: 1)
        let delays = (0..<10_000).map { _ in PollSchedule.nextDelayUs(pollInterval: poll, using: &random) }
        #expect(delays.allSatisfy { $0 >= 500_000 && $0 < 1_500_000 })
        let mean = Double(delays.reduce(0, +)) / Double(delays.count)
        #expect(abs(mean - 1_000_000) < 15_000)   // 5 standard errors
        #expect(UInt64(1_500_000) < UInt64(config.daemon.sampleGapCap.ms) * 1000)   // never cut by the cap
    }
}
