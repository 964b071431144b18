import Foundation
import Testing
import BlockerProbes

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
        #expect(program == "/nonexistent/probe" && errno == ENOENT)
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
}
