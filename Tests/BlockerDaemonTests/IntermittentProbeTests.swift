import Foundation
import Testing
@testable import BlockerDaemon
import BlockerCore
import TestSupport

/// Row 11 of issue 20: a command probe that hangs every third call (killed
/// after 2 s). Each failure streak ends before a failed sample sees it last
/// 2 s, so none was logged, recorded or charged: now the time is charged,
/// said in the journal and kept as blind time.
@Suite struct IntermittentProbeTests {
    @Test func aProbeHangingEveryThirdCallIsChargedLoggedAndRecorded() throws {
        let box = try Sandbox()
        // Counts its calls; every third one fails as a killed probe would.
        let script = box.directory.file("probe.sh")
        try box.write("""
            n=$(($(cat "$0.count" 2>/dev/null || echo 0) + 1)); echo $n >"$0.count"
            [ $((n % 3)) -eq 0 ] && { echo "hung" >&2; exit 1; }
            cat \(box.frontPath)
            """, to: script)
        try box.write(commandProbeConfig(frontFile: box.frontPath, probeCommand: ["/bin/sh", script]), to: box.configPath)
        let log = MemoryLog()
        let daemon = try box.daemon(log: log)
        var clock = Clock()
        _ = try daemon.earn(exercise: Exercise(name: "pushups", perRep: 30_000), reps: 20, wall: clock.wall)   // 10 min
        box.front("discord")
        daemon.tick(clock)                                   // call 1
        let start = clock
        for call in 2...31 {
            // A hung call (stamped when it starts) ends 2 s later; the poll comes a second after.
            clock.advance(call % 3 == 1 ? 3000 : 1000)
            daemon.tick(clock)
        }
        #expect(daemon.ledger.balance == 600_000 - (clock.monotonic - start.monotonic))   // every second charged

        let said = log.events(.probeError)
        #expect(said.count == 1)                             // at once, then at most once a minute
        #expect(said.first?.message.contains("fails now and then") == true)
        #expect(said.first?.message.contains("the last: probe command exited with status 1: hung") == true)
        #expect(said.first?.field("APP") == "discord" && said.first?.field("BLIND_MS") == "4000")

        // One stretch of blind time, from the first hang to the last recovery.
        let stretches = try daemon.ledger.blindStretches(since: start.wall, now: clock.wall)
        #expect(stretches.count == 1)
        #expect(stretches.first?.reason.hasSuffix("command: probe command exited with status 1: hung (now and then)") == true)
        // From call 3 (2 s in) to call 31 (50 s in: ten hangs of 3 s, twenty calls 1 s apart).
        #expect(stretches.first?.from == start.wall + 2_000 && stretches.first?.to == start.wall + 50_000)

        // A stop inside a streak charges what status showed: none of the streak, which was not settled.
        clock.advance(1000); daemon.tick(clock)              // call 32 answers
        clock.advance(1000); daemon.tick(clock)              // call 33 hangs
        let shown = daemon.balance(at: clock.monotonic + 500)
        daemon.shutdown(monotonic: clock.monotonic + 500, wall: clock.wall + 500)
        #expect(daemon.ledger.balance == shown)
    }
}
