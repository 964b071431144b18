import BlockerSystem
import Glibc
import Testing

@Suite struct ChildProcessesTests {
    func spawn(_ script: String) throws -> pid_t {
        try Subprocess.spawn(["/bin/sh", "-c", script], passing: 2, as: 2).get()
    }

    @Test func aChildThatExitsInTimeIsReapedWithItsStatus() throws {
        let pid = try spawn("exit 3")
        let start = MonotonicClock.now
        let stopped = ChildProcesses.stop(pid, grace: 2_000, group: false)
        #expect(stopped.exitedInTime && stopped.exitCode == 3)
        #expect(MonotonicClock.now - start < 1_000, "no waiting out the grace time")
        #expect(waitpid(pid, nil, WNOHANG) == -1, "reaped: no zombie left")
    }

    /// A child that ignores SIGTERM (and would sleep for 30 s) is killed at
    /// the end of its grace time, and reaped.
    @Test func aChildThatIgnoresTermIsKilledAfterTheGrace() throws {
        let pid = try spawn("trap '' TERM; while :; do sleep 1; done")
        let start = MonotonicClock.now
        let stopped = ChildProcesses.stop(pid, grace: 200, group: false)
        let took = MonotonicClock.now - start
        #expect(!stopped.exitedInTime && stopped.exitCode == 128 + SIGKILL)
        #expect(took >= 200 && took < 1_500)
        #expect(waitpid(pid, nil, WNOHANG) == -1)
    }

    /// With `group`, what the child left running in its group goes too.
    @Test func theGroupIsKilledEvenWhenTheLeaderExited() throws {
        let child = try Subprocess.spawnCapturing(["/bin/sh", "-c", "sleep 30 & echo $!"]).get()
        defer { close(child.stdout); close(child.stderr) }
        var buffer = [UInt8](repeating: 0, count: 32)
        let n = read(child.stdout, &buffer, buffer.count)
        let left = try #require(Int32(String(decoding: buffer[0..<max(0, n)].filter { $0 != 0x0A }, as: UTF8.self)))
        let stopped = ChildProcesses.stop(child.pid, grace: 1_000, group: true)
        #expect(stopped.exitedInTime && stopped.exitCode == 0)
        // The orphaned sleep is gone (or a zombie until init reaps it).
        let deadline = MonotonicClock.now + 2_000
        var alive = true
        while alive && MonotonicClock.now < deadline {
            let stat = (try? FileContents.read(atPath: "/proc/\(left)/stat", limit: 4096)).map { String(decoding: $0, as: UTF8.self) }
            alive = stat.map { !$0.contains(") Z ") } ?? false
            if alive { usleep(10_000) }
        }
        #expect(!alive)
    }
}
