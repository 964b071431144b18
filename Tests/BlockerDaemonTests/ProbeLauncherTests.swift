import Foundation
import Testing
import BlockerProbes
import BlockerSystem

/// The command probe's helper, as blockerd runs it: the real binary in `--probe-launcher` mode.
@Suite struct ProbeLauncherTests {
    let launcher = ProbeLauncher(executable: KillTests.binary)

    @Test func runsProgramsAndReturnsTheirOutput() throws {
        let output = try launcher.run(["/usr/bin/printf", "%s", "{\"app\":\"x\"}"], timeoutMs: 2000).get()
        #expect(output.status == 0 && String(decoding: output.stdout, as: UTF8.self) == "{\"app\":\"x\"}")
        let pid = try #require(launcher.helperPID)
        _ = try launcher.run(["/bin/true"], timeoutMs: 2000).get()
        #expect(launcher.helperPID == pid)                                    // one helper for every run
        #expect(try launcher.run(["/bin/false"], timeoutMs: 2000).get().status == 1)
        launcher.stop()
    }

    @Test func theHelperEnforcesTimeoutsAndReportsFailures() {
        #expect(throws: Subprocess.Failure.timedOut(ms: 300)) {
            try launcher.run(["/bin/sleep", "30"], timeoutMs: 300).get()
        }
        let missing = launcher.run(["/nonexistent/probe"], timeoutMs: 1000)
        guard case let .failure(.cannotStart(program, errno)) = missing else {
            Issue.record("a missing program was not a failure: \(missing)")
            return
        }
        #expect(program == "/nonexistent/probe" && errno == .noSuchFileOrDirectory)
        launcher.stop()
    }

    @Test func aDeadHelperIsStartedAgain() throws {
        _ = try launcher.run(["/bin/true"], timeoutMs: 2000).get()
        let first = try #require(launcher.helperPID)
        kill(first, SIGKILL)
        // The run that finds it dead fails (debits nothing); the next starts a new helper.
        _ = launcher.run(["/bin/true"], timeoutMs: 2000)
        let output = try launcher.run(["/usr/bin/printf", "ok"], timeoutMs: 2000).get()
        #expect(String(decoding: output.stdout, as: UTF8.self) == "ok")
        #expect(launcher.helperPID != first)
        launcher.stop()
    }

    /// Processes whose command line contains `marker`, once SIGKILLs sent
    /// have landed (delivery is asynchronous): polled for up to a second.
    private func running(_ marker: String) -> Int {
        var count = countProcesses(marker)
        for _ in 0..<100 where count > 0 {
            usleep(10_000)
            count = countProcesses(marker)
        }
        return count
    }

    private func countProcesses(_ marker: String) -> Int {
        let pids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return pids.filter { $0.allSatisfy(\.isNumber) }.filter { pid in
            guard let raw = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
            return String(decoding: raw, as: UTF8.self).contains(marker)
        }.count
    }

    @Test func aHangingProbeAndItsChildrenAreKilledTogether() {
        let marker = "300.\(UInt32.random(in: 1000...999_999))"
        for _ in 0..<5 {
            // A child holding stdout, and the probe itself hanging.
            #expect(throws: Subprocess.Failure.timedOut(ms: 200)) {
                try launcher.run(["/bin/sh", "-c", "sleep \(marker) & sleep \(marker)"], timeoutMs: 200).get()
            }
        }
        // The helper is a subreaper: what it killed is reaped by its next run.
        _ = launcher.run(["/bin/true"], timeoutMs: 1000)
        #expect(running(marker) == 0)
        launcher.stop()
    }

    @Test func aProbeThatExitsLeavingAChildOnStdoutLeavesNothing() {
        let marker = "301.\(UInt32.random(in: 1000...999_999))"
        for _ in 0..<3 {
            _ = Subprocess.run(["/bin/sh", "-c", "echo null; sleep \(marker) &"], timeoutMs: 300)
        }
        #expect(running(marker) == 0)
    }

    @Test func stderrIsKeptShortWhateverTheProbePrints() throws {
        // 20 MB on stderr, then an answer: read through, kept to its start.
        let output = try launcher.run(["/bin/sh", "-c", "head -c 20000000 /dev/zero | tr '\\0' x >&2; echo null"],
                                      timeoutMs: 10_000).get()
        #expect(String(decoding: output.stdout, as: UTF8.self) == "null\n")
        #expect(output.stderr.count == Subprocess.stderrKept)
        #expect(output.stderr.allSatisfy { $0 == UInt8(ascii: "x") })
        launcher.stop()
    }

    @Test func aFailingProbeSaysWhatItPrintedOnStderr() {
        let probe = CommandProbe(argv: ["/bin/sh", "-c", "printf 'warming up\\ncannot open display :9\\n' >&2; exit 3"],
                                 timeoutMs: 2000, launcher: launcher)
        guard case let .failure(failure) = probe.sample() else {
            Issue.record("a failing probe answered")
            return
        }
        #expect(failure.message == "probe command exited with status 3: warming up")
        launcher.stop()
    }
}
