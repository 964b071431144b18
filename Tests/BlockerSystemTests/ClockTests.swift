import BlockerSystem
import Glibc
import Testing

@Suite struct ClockTests {
    @Test func monotonicNeverGoesBackAndItsUnitsAgree() {
        let ns = MonotonicClock.nowNs
        let us = MonotonicClock.nowUs
        let ms = MonotonicClock.now.ms
        #expect(ns / 1000 <= us && us / 1000 <= ms)
        #expect(ms - ns / 1_000_000 < 1000)
        usleep(2000)
        #expect(MonotonicClock.nowNs - ns >= 2_000_000)
    }

    @Test func wallClockIsUnixTime() {
        let seconds = Int64(time(nil))
        let ms = WallClock.now.ms
        #expect(ms / 1000 >= seconds && ms / 1000 <= seconds + 1)
    }

    @Test func processCPUTimeGrowsWithWork() {
        let before = ProcessCPUClock.nowNs
        var x: UInt64 = 1
        for i in 0..<2_000_000 { x = x &* 6364136223846793005 &+ UInt64(i) }
        #expect(x != 0)
        #expect(ProcessCPUClock.nowNs > before)
        #expect(ProcessCPUClock.nowUs >= before / 1000)
    }
}
