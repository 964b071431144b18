import Glibc
import Testing
@testable import BlockerSystemd

/// The sd_event wrapper on its own: timers and fds, no bus.
@Suite struct EventLoopTests {
    @Test func aTimerFiresOncePerArmAndStopsTheLoop() throws {
        let loop = try EventLoop()
        var fired = 0
        var timer: EventTimer!
        timer = try loop.timer {
            fired += 1
            if fired < 3 { timer.arm(afterMicroseconds: 1000) } else { loop.exit(code: 7) }
        }
        #expect(!timer.isArmed)
        timer.arm(afterMicroseconds: 0)
        #expect(timer.isArmed)
        #expect(try loop.run() == 7)
        #expect(fired == 3)
        #expect(!timer.isArmed)
    }

    @Test func aDisarmedTimerDoesNotFire() throws {
        let loop = try EventLoop()
        let never = try loop.timer { Issue.record("a disarmed timer fired") }
        never.arm(afterMicroseconds: 0)
        never.disarm()
        let stop = try loop.timer { loop.exit(code: 0) }
        stop.arm(atMicroseconds: loop.now + 20_000)
        #expect(try loop.run() == 0)
    }

    @Test func aReadableFdRunsItsHandlerUntilRemoved() throws {
        let loop = try EventLoop()
        var fds: [Int32] = [-1, -1]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        var reads = 0
        var source: EventSource!
        source = try loop.onReadable(fds[0]) {
            var byte: UInt8 = 0
            _ = read(fds[0], &byte, 1)
            reads += 1
            loop.remove(source)
            loop.exit(code: 0)
        }
        var byte: UInt8 = 1
        #expect(write(fds[1], &byte, 1) == 1)
        #expect(try loop.run() == 0)
        #expect(reads == 1)
    }
}
