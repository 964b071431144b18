import BlockerCore
@testable import BlockerDaemon
import BlockerProbes
import BlockerSystem
import BlockerSystemd
import Foundation
import Glibc
import Testing
import TestSupport

/// A burst of probe events is one wake-up and one sample (`eventBurstUs`):
/// openbox changes three root properties per focus change, and a wake-up for
/// each, a round trip and a tick for two of them were thrown away.
@Suite struct EventBurstTests {
    /// An event-driven probe on a pipe, a byte an event. Like xcb, a sample
    /// reads whatever has arrived.
    final class BurstProbe: ForegroundProbe {
        let name = "burst"
        let eventBurstUs: UInt64
        private let pipe: (read: Int32, write: Int32)
        private(set) var drains = 0
        /// Called after each sample.
        var sampled: (() -> Void)?
        private(set) var samplesAt: [MonotonicInstant] = []

        init(burstUs: UInt64) throws {
            eventBurstUs = burstUs
            var fds: [Int32] = [0, 0]
            guard Glibc.pipe(&fds) == 0 else { throw TestFailure("pipe: errno \(errno)") }
            pipe = (fds[0], fds[1])
            _ = fcntl(pipe.read, F_SETFL, O_NONBLOCK)
        }
        deinit {
            close(pipe.read)
            close(pipe.write)
        }

        var eventDescriptor: Int32? { pipe.read }
        func event() { Self.event(on: pipe.write) }
        /// The write end, for a thread of the test's own.
        var eventWriter: Int32 { pipe.write }
        static func event(on writer: Int32) { _ = withUnsafeBytes(of: UInt8(1)) { write(writer, $0.baseAddress, 1) } }
        private func readEvents() {
            var byte: UInt8 = 0
            while read(pipe.read, &byte, 1) == 1 {}
        }
        func sample() -> Result<Reading, ProbeFailure> {
            readEvents()
            samplesAt.append(MonotonicClock.now)
            sampled?()
            return .success(Reading(window: Window(appID: "firefox")))
        }
        func drainEventsMayHaveChanged() -> Bool {
            readEvents()
            drains += 1
            return true
        }
    }

    /// Two events from a running loop: the second 5 ms after the first, from
    /// another thread, as a server writes while the loop waits out the burst
    /// (a long burst, so a loaded machine's late thread still falls inside
    /// it); or the second just after the first was sampled.
    func twoEvents(burstUs: UInt64, secondAfterTheSample: Bool = false) throws -> (probe: BurstProbe, firstAt: MonotonicInstant) {
        let box = try Sandbox()
        let daemon = try box.daemon()
        defer { daemon.shutdown(reason: "stopped") }
        let probe = try BurstProbe(burstUs: burstUs)
        daemon.use(probe: probe)
        let driver = try DaemonLoop(daemon: daemon)
        driver.tick()                                   // as run() starts: the fd joins the loop
        #expect(probe.samplesAt.count == 1)
        let stop = try driver.loop.timer { driver.loop.exit(code: 0) }
        stop.arm(afterMicroseconds: burstUs + 200_000)
        let firstAt = MonotonicClock.now
        probe.event()
        if secondAfterTheSample {
            probe.sampled = {
                probe.sampled = nil
                probe.event()
            }
        } else {
            let writer = probe.eventWriter
            // A thread of its own: Dispatch's global queues are the test
            // runner's pool, busy with other tests, and ran the write late.
            Thread {
                usleep(5_000)
                BurstProbe.event(on: writer)
            }.start()
        }
        #expect(try driver.loop.run() == 0)
        return (probe, firstAt)
    }

    @Test func aBurstOfProbeEventsIsOneWakeUpAndOneSampleWhenItIsOver() throws {
        let (probe, firstAt) = try twoEvents(burstUs: 200_000)
        // Before: a wake-up and a sample per event, each at once.
        #expect(probe.samplesAt.count == 2, "samples after a burst of two events: \(probe.samplesAt.count - 1)")
        #expect(probe.drains == 1, "the loop woke for \(probe.drains) of the burst's 2 events")
        let waited = try #require(probe.samplesAt.last) - firstAt
        #expect(waited >= 200, "sampled \(waited) ms after the burst's first event")
    }

    @Test func aProbeWithoutBurstsIsReadAtEachEvent() throws {
        let (probe, _) = try twoEvents(burstUs: 0, secondAfterTheSample: true)
        #expect(probe.samplesAt.count == 3)
        #expect(probe.drains == 2)
    }

    /// With an event-driven probe, nothing changing and no watchdog, nothing
    /// else ticks: the run's row must still say once a minute that it is alive.
    @Test func anIdleLoopStillNotesTheRunAliveOnTime() throws {
        let box = try Sandbox()
        let daemon = try box.daemon()
        defer { daemon.shutdown(reason: "stopped") }
        let probe = try BurstProbe(burstUs: 0)
        daemon.use(probe: probe)
        let driver = try DaemonLoop(daemon: daemon)
        driver.tick()
        // Due 100 ms from now.
        daemon.lastRunTouch = WallClock.now - Daemon.runTouchEveryMs + 100
        let due = daemon.lastRunTouch
        driver.tick()
        let stop = try driver.loop.timer { driver.loop.exit(code: 0) }
        stop.arm(afterMicroseconds: 600_000)
        #expect(try driver.loop.run() == 0)
        #expect(daemon.lastRunTouch > due, "no tick noted the run alive")
    }

    /// A probe with no descriptor: what is in place while a reload swaps probes.
    final class QuietProbe: ForegroundProbe {
        let name = "quiet"
        func sample() -> Result<Reading, ProbeFailure> { .success(Reading(window: nil)) }
    }

    /// A reload closes the old probe before it opens the new one, so the new
    /// socket may get the old one's number (and the same generation): found
    /// live on KWin 6, where the script's reports after a reload woke nobody
    /// and an unloaded script was noticed 10 s late, at the commit heartbeat.
    @Test func aNewProbeOnTheOldProbesDescriptorNumberWakesTheLoop() throws {
        let box = try Sandbox()
        let daemon = try box.daemon()
        defer { daemon.shutdown(reason: "stopped") }
        var old: BurstProbe? = try BurstProbe(burstUs: 0)
        let number = old?.eventDescriptor
        daemon.use(probe: old!)
        let driver = try DaemonLoop(daemon: daemon)
        driver.tick()                                   // the old probe's fd joins the loop
        daemon.use(probe: QuietProbe())
        old = nil                                       // closed: its numbers are free again
        let new = try BurstProbe(burstUs: 0)
        #expect(new.eventDescriptor == number, "the new pipe did not get the old number; the test proves nothing")
        daemon.use(probe: new)
        driver.tick()                                   // as a reload does: watch, then sample
        let stop = try driver.loop.timer { driver.loop.exit(code: 0) }
        stop.arm(afterMicroseconds: 200_000)
        new.event()
        #expect(try driver.loop.run() == 0)
        #expect(new.drains == 1, "the loop did not wake for the new probe's event")
    }
}
