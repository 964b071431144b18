import BlockerBus
@testable import BlockerCLI
import Testing

@Suite struct StrictCommandTests {
    @Test func configPendingListsEachVersionWithWhenItApplies() {
        let service = RecordingCalls()
        service.pending = [PendingChange(applyMs: testNow + 3_600_000, receivedMs: testNow - 60_000,
                                         changes: ["group \"social\".daily-limit: 1h 00m → 2h 00m", "strict.delay: 1h 00m → none"])]
        let run = blockerctl(["config", "pending"], service: service)
        #expect(run.status == 0)
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 4, "\(run.stdout)")
        #expect(lines.first?.contains("(in 1h 00m), read ") == true, "\(run.stdout)")
        #expect(lines[1] == "  group \"social\".daily-limit: 1h 00m → 2h 00m")
        #expect(lines[2] == "  strict.delay: 1h 00m → none")
        #expect(service.calls == [.pendingChanges])
        #expect(blockerctl(["config", "pending"], service: RecordingCalls()).stdout == "no config changes are pending\n")
    }

    @Test func configCancelSaysHowManyAndThatTheConfigInForceStays() {
        let service = RecordingCalls()
        service.pending = [PendingChange(applyMs: testNow + 1000, receivedMs: testNow, changes: ["x: a → b"])]
        #expect(blockerctl(["config", "cancel"], service: service).stdout
            == "cancelled 1 pending config change; the config in force stays\n")
        #expect(blockerctl(["config", "cancel"], service: service).stdout == "no config changes were pending\n")
        #expect(service.calls == [.cancelPending, .cancelPending])
    }

    @Test func statusShowsStrictModeAndWhatIsPending() {
        let service = RecordingCalls()
        #expect(!blockerctl(["status"], service: service).stdout.contains("strict"))
        service.report.strictDelayMs = 86_400_000
        #expect(blockerctl(["status"], service: service).stdout.contains("strict    on (changes that loosen wait 1d 00h)\n"))
        service.report.pendingChanges = 2
        service.report.pendingNextMs = testNow + 3_600_000
        let run = blockerctl(["status"], service: service)
        #expect(run.stdout.contains("; 2 pending, the next "), "\(run.stdout)")
        #expect(run.stdout.contains("(blockerctl config pending)"))
    }
}
