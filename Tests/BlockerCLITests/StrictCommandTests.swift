import Foundation
import BlockerBus
import BlockerCore
@testable import BlockerCLI
import Testing

@Suite struct StrictCommandTests {
    @Test func configPendingListsEachVersionWithWhenItApplies() {
        let service = RecordingCalls()
        service.pending = [PendingChange(applyAt: testNow + 3_600_000, receivedAt: testNow - 60_000,
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
        service.pending = [PendingChange(applyAt: testNow + 1000, receivedAt: testNow, changes: ["x: a → b"])]
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
        service.report.pendingNext = testNow + 3_600_000
        let run = blockerctl(["status"], service: service)
        #expect(run.stdout.contains("; 2 pending, the next "), "\(run.stdout)")
        #expect(run.stdout.contains("(blockerctl config pending)"))
    }
}

@Suite struct HistoryGapTests {
    @Test func historyShowsEachDaysGapsSplitAtMidnight() {
        let service = RecordingCalls()
        service.historyRows = [HistoryRow(day: "2025-06-01", group: "", usedMs: 0, earnedMs: 0),
                               HistoryRow(day: "2025-06-02", group: "", usedMs: 600_000, earnedMs: 1_200_000)]
        // 2025-06-01 23:00 to 2025-06-02 00:10 UTC, killed; then 5 minutes stopped on the 2nd.
        let midnight: WallInstant = 1_748_822_400_000
        service.gapRows = [Gap(from: midnight - 3_600_000, to: midnight + 600_000, reason: "killed with SIGKILL"),
                           Gap(from: midnight + 7_200_000, to: midnight + 7_500_000, reason: "stopped")]
        let run = blockerctl(["history", "--days", "2"], service: service, environment: ["COLUMNS": "80", "TZ": "UTC"])
        let lines = run.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(lines.contains("off 1h 00m (killed with SIGKILL)"), "\(run.stdout)")
        #expect(lines.contains("off 10m 00s (killed with SIGKILL)"))
        #expect(lines.contains("off 5m 00s (stopped)"))
        let first = lines.firstIndex(of: "off 1h 00m (killed with SIGKILL)")!, second = lines.firstIndex(of: "off 10m 00s (killed with SIGKILL)")!
        #expect(first < second && lines[first + 1].hasPrefix("2025-06-02"), "\(run.stdout)")
        #expect(service.calls == [.history(days: 2), .gaps(days: 2), .notes(days: 2), .opens(days: 2)])
    }

    /// What blockerd recorded as a way around it shows under its day, with
    /// its time and how long it concerned.
    @Test func historyShowsEachDaysIntegrityNotes() {
        let service = RecordingCalls()
        service.historyRows = [HistoryRow(day: "2025-06-02", group: "", usedMs: 600_000, earnedMs: 1_200_000)]
        let midnight: WallInstant = 1_748_822_400_000
        service.noteRows = [IntegrityNote(kind: .lockNotHonoured, from: midnight + 3_600_000, to: midnight + 4_680_000,
                                          text: "logind said locked, but the window in front changed (discord → notes)")]
        let run = blockerctl(["history", "--days", "1"], service: service, environment: ["COLUMNS": "120", "TZ": "UTC"])
        let lines = run.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(lines.contains("! lock not honoured 01:00 for 18m 00s: logind said locked, but the window in front changed (discord → notes)"),
                "\(run.stdout)")
    }

    /// 2025-06-01 23:00 to 2025-06-02 00:10 UTC, stopped; unguarded from 23:50 (a session logind had).
    static let midnight: WallInstant = 1_748_822_400_000
    static let acrossMidnight = Gap(from: midnight - 3_600_000, to: midnight + 600_000, reason: "stopped",
                                       unguardedSince: midnight - 600_000)

    static func service() -> RecordingCalls {
        let service = RecordingCalls()
        service.historyRows = [HistoryRow(day: "2025-06-01", group: "", usedMs: 0, earnedMs: 0),
                               HistoryRow(day: "2025-06-02", group: "", usedMs: 0, earnedMs: 0)]
        service.gapRows = [acrossMidnight, Gap(from: midnight + 7_200_000, to: midnight + 7_500_000, reason: "killed")]
        return service
    }

    @Test func historyShowsTheUnguardedShareOfEachDaysPart() {
        let run = blockerctl(["history", "--days", "2"], service: Self.service(), environment: ["COLUMNS": "80", "TZ": "UTC"])
        let lines = run.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(lines.contains("off 1h 00m (stopped; 10m 00s unguarded)"), "\(run.stdout)")
        #expect(lines.contains("off 10m 00s (stopped; 10m 00s unguarded)"), "\(run.stdout)")
        #expect(lines.contains("off 5m 00s (killed)"), "\(run.stdout)")
    }

    @Test func historySaysNothingOfUnguardedTimeWhenThereWasNone() {
        let service = Self.service()
        let m = Self.midnight
        // No graphical session at all (unguarded from the gap's end), and one
        // across midnight whose unguarded suffix lies wholly on the 2nd.
        service.gapRows = [Gap(from: m - 50_400_000, to: m - 46_800_000, reason: "stopped", unguardedSince: m - 46_800_000),
                           Gap(from: m - 3_600_000, to: m + 600_000, reason: "killed with SIGKILL", unguardedSince: m + 300_000)]
        let run = blockerctl(["history", "--days", "2"], service: service, environment: ["COLUMNS": "80", "TZ": "UTC"])
        let lines = run.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(lines.contains("off 1h 00m (stopped)"), "\(run.stdout)")
        #expect(lines.contains("off 1h 00m (killed with SIGKILL)"), "\(run.stdout)")
        #expect(lines.contains("off 10m 00s (killed with SIGKILL; 5m 00s unguarded)"), "\(run.stdout)")
        #expect(!run.stdout.contains(" 0s unguarded"), "\(run.stdout)")
    }

    @Test func oneWordingForAGapsPart() {
        let part = { (unguarded: Milliseconds?) in HistoryGaps.Part(start: 0, end: 4_200_000, reason: "stopped", unguardedMs: unguarded) }
        #expect(HistoryGaps.describe(part(4_140_000)) == "off 1h 10m (stopped; 1h 09m unguarded)")
        #expect(HistoryGaps.describe(part(0)) == "off 1h 10m (stopped)", "none unguarded: nothing said of it")
        #expect(HistoryGaps.describe(part(nil)) == "off 1h 10m (stopped)", "logind did not say: nothing said of it")
        #expect(HistoryGaps.describe(part(1_000)) == "off 1h 10m (stopped; 1s unguarded)")
        #expect(HistoryGaps.describe(part(150_000), duration: ReportLayout.duration) == "off 1h 10m (stopped; 3m unguarded)")
    }

    /// blockerd ran but its probe could not see (a shell plugin switched off):
    /// a gap whose reason is `Gap.blind`, worded as such in history.
    @Test func blindTimeShowsInHistoryAsProbeBlind() {
        let service = Self.service()
        let why = "gnome: GNOME Shell: the blocker extension is not enabled (state disabled): "
            + "gnome-extensions enable blocker@blockerd.github.io"
        service.gapRows = [Gap(from: Self.midnight + 3_600_000, to: Self.midnight + 3_725_000, reason: Gap.blind(why))]
        let run = blockerctl(["history", "--days", "2"], service: service, environment: ["COLUMNS": "200", "TZ": "UTC"])
        let lines = run.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(lines.contains("probe blind 2m 05s (\(why))"), "\(run.stdout)")
    }

    @Test func historyJSONCarriesEachDaysGaps() throws {
        let run = blockerctl(["history", "--days", "2", "--json"], service: Self.service())
        let days = try #require(try parseJSON(run.stdout) as? [[String: Any]])
        let first = try #require(days.first?["gaps"] as? [[String: Any]])
        #expect(first.count == 1)
        #expect(first.first?["start_ms"] as? Int == Int(Self.midnight.ms - 3_600_000))
        #expect(first.first?["end_ms"] as? Int == Int(Self.midnight.ms))
        #expect(first.first?["reason"] as? String == "stopped")
        #expect(first.first?["unguarded_ms"] as? Int == 600_000)
        let second = try #require(days.last?["gaps"] as? [[String: Any]])
        #expect(second.map { $0["unguarded_ms"] as? Int } == [600_000, nil])
        #expect(second.last?["unguarded_ms"] is NSNull, "unknown is null, not 0")
    }

    @Test func historyCSVGapsIsItsOwnTableAndNeedsCSV() {
        let service = Self.service()
        let run = blockerctl(["history", "--days", "2", "--csv", "--gaps"], service: service)
        let m = Self.midnight
        #expect(run.stdout == """
            day,start_ms,end_ms,reason,unguarded_ms
            2025-06-01,\(m - 3_600_000),\(m),stopped,600000
            2025-06-02,\(m),\(m + 600_000),stopped,600000
            2025-06-02,\(m + 7_200_000),\(m + 7_500_000),killed,

            """, "\(run.stdout)")
        #expect(service.calls == [.gaps(days: 2)])
        let bad = blockerctl(["history", "--gaps"], service: RecordingCalls())
        #expect(bad.status == 2 && bad.stderr.contains("--gaps goes with --csv"), "\(bad.stderr)")
    }
}
