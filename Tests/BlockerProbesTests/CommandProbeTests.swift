import Foundation
import Testing
import TestSupport
@testable import BlockerProbes
import BlockerCore

@Suite struct CommandProbeTests {
    func probe(printing text: String, timeoutMs: Milliseconds = 2000) -> CommandProbe {
        CommandProbe(argv: ["/usr/bin/printf", "%s", text], timeoutMs: timeoutMs)
    }

    @Test func readsTheContract() throws {
        let pid = getpid()
        let reading = try probe(printing: "{\"app\":\"firefox\",\"title\":\"News\",\"pid\":\(pid),\"locked\":true,\"idle_ms\":1500}")
            .sample().get()
        let window = try #require(reading.window)
        #expect(window.app == "firefox" && window.title == "News" && window.pid == pid)
        #expect(window.exe != nil)                                  // read from /proc/PID/exe
        #expect(reading.locked && reading.idle == 1500)
    }

    @Test(arguments: ["", "null", "  null\n", "\n"])
    func emptyOrNullMeansNothingInFront(output: String) throws {
        #expect(try probe(printing: output).sample().get() == Reading(window: nil))
    }

    @Test(arguments: ["garbage", "[1,2]", "{\"app\": 5}", "{\"app\":\"x\"", "\"firefox\""])
    func garbageIsAFailure(output: String) {
        #expect(throws: ProbeFailure.self) { try probe(printing: output).sample().get() }
    }

    @Test func argvIsNeverAShell() throws {
        // A shell would expand these; argv passes them through untouched.
        let reading = try CommandProbe(argv: ["/usr/bin/printf", "{\"app\":\"%s\"}", "$(id);*"], timeoutMs: 2000)
            .sample().get()
        #expect(reading.window?.app == "$(id);*")
    }

    @Test func aHangingProbeIsKilledAtItsDeadline() throws {
        let directory = try TemporaryDirectory()
        let marker = directory.file("pid")
        // Prints its pid, then hangs with stdout open.
        let script = "echo $$ > \(marker); exec sleep 30"
        let started = Date()
        let result = CommandProbe(argv: ["/bin/sh", "-c", script], timeoutMs: 300).sample()
        let took = Date().timeIntervalSince(started)
        #expect(throws: ProbeFailure.self) { try result.get() }
        #expect(took >= 0.3 && took < 2)
        let pid = try #require(Int32(String(contentsOfFile: marker, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(kill(pid, 0) != 0)                                  // gone, and reaped
    }

    @Test func aFailingOrMissingProgramIsAFailure() {
        #expect(throws: ProbeFailure.self) { try CommandProbe(argv: ["/bin/false"], timeoutMs: 1000).sample().get() }
        let missing = CommandProbe(argv: ["/nonexistent/probe"], timeoutMs: 1000).sample()
        let failure = #expect(throws: ProbeFailure.self) { try missing.get() }
        #expect(failure?.message.contains("/nonexistent/probe") == true, "\(String(describing: failure))")
    }

    @Test func wrongTypesInTheContractAreAFailedSample() throws {
        #expect(throws: (any Error).self) { try CommandProbe.parse(Array(#"{"app": 5}"#.utf8)).get() }
        #expect(throws: (any Error).self) { try CommandProbe.parse(Array(#"{"app": "x", "pid": 1.5}"#.utf8)).get() }
        #expect(throws: (any Error).self) { try CommandProbe.parse(Array(#"{"app": "x", "locked": "yes"}"#.utf8)).get() }
        #expect(throws: (any Error).self) { try CommandProbe.parse(Array(#"{"app": "x", "pid": 99999999999}"#.utf8)).get() }
        #expect(throws: (any Error).self) { try CommandProbe.parse(Array(#"["app"]"#.utf8)).get() }
        let ok = try CommandProbe.parse(Array(#"{"app": "x", "title": null, "extra": [1]}"#.utf8)).get()
        #expect(ok.window?.app == "x")
    }
}
