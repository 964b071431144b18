import BlockerSystem
import Foundation
import Glibc
import Synchronization
import Testing

/// Counts the signals `signalDoesNotCutTheWaitShort` sends.
private let interruptions = Atomic<Int>(0)

@Suite struct DeadlineTests {
    @Test func remainingTimeCountsDownToZero() {
        let far = Deadline.after(10_000)
        #expect(far.budget == 10_000)
        #expect(far.pollTimeout <= 10_000 && far.pollTimeout > 9_000)
        #expect(!far.hasPassed)
        let passed = Deadline(atNs: MonotonicClock.nowNs - 1)
        #expect(passed.pollTimeout == 0)
        #expect(passed.hasPassed)
        #expect(Deadline.after(0).pollTimeout == 0)
    }

    @Test func aQuietDescriptorWaitsTheWholeBudget() throws {
        let pipe = try Pipe.make()
        defer { close(pipe.read); close(pipe.write) }
        let start = MonotonicClock.nowNs
        #expect(try Deadline.after(100).wait(for: pipe.read) == false)
        #expect(MonotonicClock.nowNs - start >= 100_000_000)
    }

    @Test func aReadyDescriptorAnswersAtOnce() throws {
        let pipe = try Pipe.make()
        defer { close(pipe.read); close(pipe.write) }
        var byte: UInt8 = 1
        #expect(write(pipe.write, &byte, 1) == 1)
        var descriptors = [pollfd(fd: pipe.read, events: Int16(POLLIN), revents: 0)]
        let start = MonotonicClock.nowNs
        #expect(try Deadline.after(5_000).wait(for: &descriptors))
        #expect(descriptors[0].revents & Int16(POLLIN) != 0)
        #expect(MonotonicClock.nowNs - start < 1_000_000_000)
    }

    @Test func aPassedDeadlineDoesNotPoll() throws {
        let pipe = try Pipe.make()
        defer { close(pipe.read); close(pipe.write) }
        var byte: UInt8 = 1
        #expect(write(pipe.write, &byte, 1) == 1)
        #expect(try Deadline(atNs: MonotonicClock.nowNs - 1).wait(for: pipe.read) == false)
    }

    @Test func noDescriptorsIsASleep() throws {
        var none: [pollfd] = []
        let start = MonotonicClock.nowNs
        #expect(try Deadline.after(50).wait(for: &none) == false)
        #expect(MonotonicClock.nowNs - start >= 50_000_000)
    }

    /// poll(2) fails with EINTR when a handled signal arrives: the wait goes
    /// on for what is left instead of ending early or throwing.
    @Test func signalDoesNotCutTheWaitShort() throws {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in interruptions.add(1, ordering: .relaxed) }
        sigemptyset(&action.sa_mask)
        var previous = sigaction()
        #expect(sigaction(SIGWINCH, &action, &previous) == 0)
        defer { sigaction(SIGWINCH, &previous, nil) }
        var unblock = sigset_t()
        sigemptyset(&unblock)
        sigaddset(&unblock, SIGWINCH)
        var oldMask = sigset_t()
        pthread_sigmask(SIG_UNBLOCK, &unblock, &oldMask)
        defer { pthread_sigmask(SIG_SETMASK, &oldMask, nil) }

        let pipe = try Pipe.make()
        defer { close(pipe.read); close(pipe.write) }
        let waiter = pthread_self()
        let before = interruptions.load(ordering: .relaxed)
        let lastSentNs = Atomic<Int64>(0)
        let sent = DispatchSemaphore(value: 0)
        let sender = Thread {
            for _ in 0..<3 {
                usleep(40_000)
                pthread_kill(waiter, SIGWINCH)
            }
            lastSentNs.store(MonotonicClock.nowNs, ordering: .relaxed)
            sent.signal()
        }
        let start = MonotonicClock.nowNs
        sender.start()
        #expect(try Deadline.after(300).wait(for: pipe.read) == false)
        let end = MonotonicClock.nowNs
        sent.wait()
        #expect(end - start >= 300_000_000)
        #expect(lastSentNs.load(ordering: .relaxed) < end)
        // Signals sent while one is still pending merge into one.
        #expect(interruptions.load(ordering: .relaxed) > before)
    }
}
