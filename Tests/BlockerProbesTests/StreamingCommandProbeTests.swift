import Glibc
import Testing
@testable import BlockerProbes
import BlockerCore
import TestSupport

@Suite("The command probe, streaming")
struct StreamingCommandProbeTests {
    /// A FIFO the program waits on between lines, so the test decides when
    /// the next line comes (no sleeps to race on a loaded machine).
    final class Gate {
        let path = "/tmp/blocker-stream-gate-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        init() { mkfifo(path, 0o600) }
        deinit { unlink(path) }
        /// Lets the program print its next line.
        func open() {
            let fd = Glibc.open(path, O_WRONLY)
            _ = write(fd, "go\n", 3)
            close(fd)
        }
    }

    /// Waits until the probe's event fd is readable; a probe without one, or
    /// 3 s without an event, fails the test.
    func waitForEvent(_ probe: StreamingCommandProbe, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let fd = try #require(probe.eventDescriptor, "the streaming probe has no event fd", sourceLocation: sourceLocation)
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        try #require(poll(&pfd, 1, 3000) == 1, "no event from the probe within 3 s", sourceLocation: sourceLocation)
    }

    /// Starts the program and returns the sample of its first line. Not
    /// `waitForEvent`: the starting sample may have read that line already,
    /// and then nothing is left to wake the descriptor.
    func firstSample(_ probe: StreamingCommandProbe, sourceLocation: SourceLocation = #_sourceLocation) throws
        -> Result<Reading, ProbeFailure> {
        for _ in 0..<30 {
            let sample = probe.sample()
            guard case let .failure(failure) = sample, failure.message.contains("has not printed its first line yet")
            else { return sample }
            let fd = try #require(probe.eventDescriptor, "the streaming probe has no event fd", sourceLocation: sourceLocation)
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            _ = poll(&pfd, 1, 100)
        }
        throw TestFailure("the probe command printed no line within 3 s")
    }

    @Test func eachLineIsTheWindowInFrontFromTheMomentItArrives() throws {
        let gate = Gate()
        let probe = StreamingCommandProbe(argv: ["/bin/sh", "-c",
            #"echo '{"app":"discord","title":"chat","pid":7}'; read -r _ < "$0"; echo null; sleep 30"#, gate.path])
        // The first sample starts the program; nothing was printed yet, or just now.
        let first = try firstSample(probe).get()
        #expect(first.window?.app == "discord" && first.window?.pid == 7)
        let generation = probe.eventGeneration
        gate.open()
        try waitForEvent(probe)
        probe.drainEvents()
        #expect(try probe.sample().get().window == nil)
        #expect(probe.eventGeneration == generation)   // still the same program
    }

    @Test func aProgramThatExitsFailsTheSamplesWithItsStatusAndLastWords() throws {
        let probe = StreamingCommandProbe(argv: ["/bin/sh", "-c", "echo 'starting' >&2; echo 'cannot open display' >&2; exit 3"])
        _ = probe.sample()
        for _ in 0..<50 where probe.eventDescriptor != nil {
            try waitForEvent(probe)
            probe.drainEvents()
        }
        #expect(probe.eventDescriptor == nil)
        guard case let .failure(failure) = probe.sample() else {
            Issue.record("an exited program answered")
            return
        }
        #expect(failure.message.hasPrefix("probe command exited with status 3: cannot open display"), "\(failure.message)")
        #expect(failure.message.contains("starting it again in"))
    }

    @Test func garbageIsAFailedSampleUntilTheNextGoodLine() throws {
        let gate = Gate()
        let probe = StreamingCommandProbe(argv: ["/bin/sh", "-c",
            #"echo 'not json'; read -r _ < "$0"; echo '{"app":"notes"}'; sleep 30"#, gate.path])
        let garbage = try firstSample(probe)
        #expect(throws: ProbeFailure.self) { try garbage.get() }
        gate.open()
        try waitForEvent(probe)
        probe.drainEvents()
        #expect(try probe.sample().get().window?.app == "notes")
    }

    @Test func linesAreSplitWhereverTheBytesArrive() {
        var buffer = LineBuffer()
        #expect(buffer.append(Array("{\"a\":".utf8)[...]) == [])
        #expect(buffer.append(Array("1}\nnull\n{".utf8)[...]) == [.line(Array("{\"a\":1}".utf8)), .line(Array("null".utf8))])
        let long = [UInt8](repeating: 0x61, count: LineBuffer.maximum + 10)
        #expect(buffer.append(long[...]) == [.overlong])
        #expect(buffer.append(Array("tail of it\nnull\n".utf8)[...]) == [.line(Array("null".utf8))])
    }
}
