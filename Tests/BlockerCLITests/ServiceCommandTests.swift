import BlockerBus
import BlockerCore
@testable import BlockerCLI
import Foundation
import Testing

@Suite struct StatusCommandTests {
    @Test func jsonFollowsTheContractKeyByKey() throws {
        let service = RecordingCalls()
        service.report.shield = .init(active: true, reason: .timedBlock, app: "firefox", group: "video",
                                      until: 1_748_869_200_000, balanceMs: 3_900_000)
        let run = blockerctl(["status", "--json"], service: service)
        #expect(run.status == 0 && run.stderr.isEmpty)
        #expect(service.calls == [.status, .opens(days: 1)])
        #expect(run.stdout.hasSuffix("}\n") && run.stdout.filter { $0 == "\n" }.count == 1)

        let json = try object(parseJSON(run.stdout))
        #expect(Set(json.keys) == ["balance_ms", "metered", "spending", "locked", "foreground", "shield", "today",
                                   "exercises", "probe"])
        #expect(json["balance_ms"] as? Int == 3_900_000)
        #expect(json["metered"] as? Bool == true)
        #expect(json["locked"] as? Bool == false)

        let foreground = try object(json["foreground"])
        #expect(Set(foreground.keys) == ["app", "title", "pid", "groups"])
        #expect(foreground["app"] as? String == "firefox")
        #expect(foreground["title"] as? String == "YouTube — \"Mozilla\" Firefox")
        #expect(foreground["pid"] as? Int == 42)
        #expect(foreground["groups"] as? [String] == ["video"])

        let shield = try object(json["shield"])
        #expect(Set(shield.keys) == ["active", "reason", "app", "group", "until_ms", "site"])
        #expect(shield["site"] is NSNull, "a window's shield, not a site's")
        #expect(shield["active"] as? Bool == true)
        #expect(shield["reason"] as? String == "timed-block")
        #expect(shield["app"] as? String == "firefox")
        #expect(shield["group"] as? String == "video")
        #expect(shield["until_ms"] as? Int == 1_748_869_200_000)

        let today = try object(json["today"])
        #expect(Set(today.keys) == ["used_ms", "earned_ms"])
        #expect(today["used_ms"] as? Int == 1_500_000 && today["earned_ms"] as? Int == 1_800_000)

        // Name order, whatever order blockerd listed them in.
        let exercises = try #require(json["exercises"] as? [[String: Any]])
        #expect(exercises.map { $0["name"] as? String } == ["pushups", "squats"])
        #expect(exercises.map { $0["ms_per_rep"] as? Int } == [30_000, 60_000])
        #expect(exercises.allSatisfy { Set($0.keys) == ["name", "ms_per_rep"] })

        let probe = try object(json["probe"])
        #expect(Set(probe.keys) == ["name", "ok", "error"])
        #expect(probe["name"] as? String == "x11" && probe["ok"] as? Bool == true)
        #expect(probe["error"] is NSNull)
    }

    @Test func jsonNullsWhenNothingIsInFrontAndTheProbeFails() throws {
        let service = RecordingCalls()
        service.report.foreground = nil
        service.report.metered = false
        service.report.probeOK = false
        service.report.probeError = "X server gone\n(retrying)"
        let json = try object(parseJSON(blockerctl(["status", "--json"], service: service).stdout))
        #expect(json["foreground"] is NSNull)
        let shield = try object(json["shield"])
        #expect(shield["active"] as? Bool == false && shield["reason"] is NSNull && shield["app"] is NSNull)
        #expect(shield["group"] is NSNull)
        #expect(shield["until_ms"] as? Int == 0)
        let probe = try object(json["probe"])
        #expect(probe["ok"] as? Bool == false && probe["error"] as? String == "X server gone\n(retrying)")
    }

    @Test func humanOutputIsAlignedWithReadableDurations() {
        let service = RecordingCalls()
        service.report.shield = .init(active: true, reason: .balance, app: "firefox", balanceMs: 0)
        let run = blockerctl(["status"], service: service)
        #expect(run.status == 0)
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(lines.map { String($0.prefix(10)) } == ["balance   ", "front     ", "spending  ", "shield    ", "today     ",
                                                        "earn      ", "probe     "])
        #expect(lines.allSatisfy { $0.count > 10 && $0[$0.index($0.startIndex, offsetBy: 10)] != " " })
        #expect(lines[0] == "balance   1h 05m")
        #expect(lines[1] == "front     firefox  \"YouTube — \"Mozilla\" Firefox\"  pid 42  [video]")
        #expect(lines[3] == "shield    up over firefox — balance spent (earn more: blockerctl earn REPS)")
        #expect(lines[4] == "today     25m 00s used, 30m 00s earned")
        #expect(lines[5] == "earn      pushups 30s, squats 1m 00s a rep")
        #expect(lines[6] == "probe     x11, ok")
        #expect(!run.stdout.contains("\u{1B}"))
    }

    @Test func shieldUntilIsLocalWallTime() {
        let service = RecordingCalls()
        // 2025-06-02 13:30 UTC = 15:30 in Paris (CEST).
        service.report.shield = .init(active: true, reason: .schedule, app: "discord", group: "social",
                                      until: testNow + .minutes(90), balanceMs: 0)
        let paris = blockerctl(["status"], service: service, environment: ["TZ": "Europe/Paris"])
        #expect(paris.stdout.contains("shield    up over discord — scheduled block on social until 15:30\n"))
        let utc = blockerctl(["status"], service: service, environment: ["TZ": "UTC"])
        #expect(utc.stdout.contains("until 13:30\n"))
    }

    @Test func noDaemonExplainsAndExitsOne() {
        let run = blockerctl(["status"], service: nil)
        #expect(run.status == 1 && run.stdout.isEmpty)
        #expect(run.stderr == "blockerctl: error: blockerd is not running (no session bus in this test) — start it with: systemctl --user start blockerd\n")
    }
}

@Suite struct ServiceCommandTests {
    @Test func earnPassesRepsAndExerciseAndPrintsTheNewBalance() {
        let service = RecordingCalls()
        service.earned = (earnedMs: 600_000, balanceMs: 4_200_000)
        let named = blockerctl(["earn", "20", "pushups"], service: service)
        #expect(named.status == 0 && named.stdout == "earned 10m 00s for 20 pushups; balance 1h 10m\n")
        let chosen = blockerctl(["earn", "007"], service: service)
        #expect(chosen.stdout == "earned 10m 00s for 7 reps; balance 1h 10m\n")
        #expect(service.calls == [.earn(exercise: "pushups", reps: 20), .earn(exercise: "", reps: 7)])
    }

    /// Issue 20, row 10: each run is one earning (a fresh request id); a
    /// script that retries after a timeout passes its own, and blockerd
    /// answers the retry with the first earning.
    @Test func earnSendsARequestIDFreshEachRunOrTheOneGiven() {
        let service = RecordingCalls()
        _ = blockerctl(["earn", "20", "pushups"], service: service)
        _ = blockerctl(["earn", "20", "pushups"], service: service)
        _ = blockerctl(["earn", "20", "pushups", "--request-id", "backup-2026-12-04"], service: service)
        #expect(service.requestIDs.count == 3)
        #expect(service.requestIDs[0].count == 32 && service.requestIDs[0].allSatisfy(\.isHexDigit))
        #expect(service.requestIDs[0] != service.requestIDs[1])
        #expect(service.requestIDs[2] == "backup-2026-12-04")
        let long = blockerctl(["earn", "20", "--request-id", String(repeating: "x", count: 129)], service: service)
        #expect(long.status == 2 && long.stderr.contains("--request-id must be 1 to 128 bytes, not 129"), "\(long.stderr)")
        #expect(service.requestIDs.count == 3)
    }

    @Test func aRefusalIsAFailureWithTheDaemonsMessage() {
        let service = RecordingCalls()
        service.failure = .refused(name: BusErrorName.unknownExercise.rawValue,
                                   message: "unknown exercise \"situps\"; one of: pushups, squats")
        let run = blockerctl(["earn", "10", "situps"], service: service)
        #expect(run.status == 1 && run.stdout.isEmpty)
        #expect(run.stderr == "blockerctl: error: unknown exercise \"situps\"; one of: pushups, squats\n")
        #expect(service.calls == [.earn(exercise: "situps", reps: 10)])
    }

    @Test func blockSendsSecondsAndPrintsUntilWhenInLocalTime() {
        let service = RecordingCalls()
        service.blockedUntil = testNow + .hours(2) + .minutes(5)    // 14:05 UTC, 16:05 Paris
        let run = blockerctl(["block", "social", "--for", "2h5m"], service: service, environment: ["TZ": "Europe/Paris"])
        #expect(run.status == 0)
        #expect(run.stdout == "blocked social until 16:05 (2h 05m)\n")
        #expect(service.calls == [.blockFor(target: "social", seconds: 7500)])

        service.blockedUntil = testNow + .hours(24)
        #expect(blockerctl(["block", "social", "--for", "24h"], service: service).stdout
                == "blocked social until tomorrow 12:00 (1d 00h)\n")
        service.blockedUntil = testNow + .hours(36)
        #expect(blockerctl(["block", "social", "--for", "36h"], service: service).stdout
                == "blocked social until 2025-06-04 00:00 (1d 12h)\n")
        service.blockedUntil = testNow + .days(7)
        #expect(blockerctl(["block", "video", "--for", "7d"], service: service).stdout
                == "blocked video until 2025-06-09 12:00 (7d 00h)\n")
    }

    @Test func anUnknownZoneFallsBackToLabelledUTC() {
        let service = RecordingCalls()
        service.blockedUntil = testNow + 3_600_000
        let run = blockerctl(["block", "social", "--for", "1h"], service: service, environment: ["TZ": "Mars/Olympus"])
        #expect(run.stdout == "blocked social until 13:00 UTC (1h 00m)\n")
    }

    @Test func unblockAndReload() {
        let service = RecordingCalls()
        let unblock = blockerctl(["unblock", "social"], service: service)
        #expect(unblock.status == 0 && unblock.stdout.hasPrefix("unblocked social"))
        let reload = blockerctl(["reload"], service: service)
        #expect(reload.status == 0 && reload.stdout == "blockerd reloaded blocker.toml\n")
        #expect(service.calls == [.unblock(target: "social"), .reload, .pendingChanges])
        service.pending = [PendingChange(applyAt: testNow + 3_600_000, receivedAt: testNow, changes: ["a: 1 → 2", "b: 1 → 2"])]
        #expect(blockerctl(["reload"], service: service).stdout == "blockerd reloaded blocker.toml\n"
            + "strict mode: 2 loosening changes wait; the next applies 13:00 (see: blockerctl config pending)\n")
    }

    @Test func reloadOfABadConfigSaysHowToCheckIt() {
        let service = RecordingCalls()
        service.failure = .refused(name: BusErrorName.configError.rawValue, message: "blocker.toml:3:18: expected a string")
        let run = blockerctl(["reload"], service: service)
        #expect(run.status == 1)
        #expect(run.stderr == "blockerctl: error: blocker.toml:3:18: expected a string — fix blocker.toml, check it with: blockerctl config check\n")
    }

    @Test func busFailuresEachGetTheirFix() {
        #expect(BusFailureText.failure(.notRunning("no bus")).description
                == "blockerd is not running (no bus) — start it with: systemctl --user start blockerd")
        #expect(BusFailureText.failure(.transport("timed out")).description
                == "cannot talk to blockerd: timed out — see what it says with: blockerctl logs")
        #expect(BusFailureText.failure(.refused(name: BusErrorName.accessDenied.rawValue, message: "uid 1001 is not 1000")).description
                == "blockerd refused the call: uid 1001 is not 1000 — run blockerctl as the user blockerd runs as")
        #expect(BusFailureText.failure(.refused(name: BusErrorName.storageError.rawValue, message: "disk full")).fix
                == "see blockerctl logs and blockerctl doctor")
        #expect(BusFailureText.failure(.refused(name: "org.example.Other", message: "odd")).description == "odd")
    }

    @Test func historyJSONIsOneEntryPerDayWithGroups() throws {
        let service = RecordingCalls()
        service.historyRows = [
            HistoryRow(day: "2025-06-02", group: "", usedMs: 1_200_000, earnedMs: 1_800_000),
            HistoryRow(day: "2025-06-02", group: "social", usedMs: 900_000, earnedMs: 0),
            HistoryRow(day: "2025-06-02", group: "video", usedMs: 300_000, earnedMs: 0),
            HistoryRow(day: "2025-05-31", group: "", usedMs: 60_000, earnedMs: 0),
            HistoryRow(day: "2025-05-31", group: "video", usedMs: 60_000, earnedMs: 0),
        ]
        let run = blockerctl(["history", "--days", "3", "--json"], service: service)
        #expect(run.status == 0 && service.calls == [.history(days: 3), .gaps(days: 3), .notes(days: 3), .opens(days: 3)])
        let days = try #require(try parseJSON(run.stdout) as? [[String: Any]])
        #expect(days.map { $0["day"] as? String } == ["2025-05-31", "2025-06-01", "2025-06-02"])
        for day in days { #expect(Set(day.keys) == ["day", "earned_ms", "used_ms", "groups", "gaps", "integrity", "opens"]) }
        #expect(days[2]["earned_ms"] as? Int == 1_800_000 && days[2]["used_ms"] as? Int == 1_200_000)
        #expect(days[2]["groups"] as? [String: Int] == ["social": 900_000, "video": 300_000])
        #expect(days[1]["used_ms"] as? Int == 0 && (days[1]["groups"] as? [String: Int])?.isEmpty == true)
        #expect(days[0]["groups"] as? [String: Int] == ["video": 60_000])
    }

    @Test func historyDefaultsToSevenDaysAndDrawsAChart() {
        let service = RecordingCalls()
        service.historyRows = [HistoryRow(day: "2025-06-02", group: "", usedMs: 600_000, earnedMs: 1_200_000)]
        let run = blockerctl(["history"], service: service, environment: ["COLUMNS": "60"])
        #expect(service.calls == [.history(days: 7), .gaps(days: 7), .notes(days: 7), .opens(days: 7)])
        let lines = run.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines[0].hasPrefix("2025-06-02 Mon earned ████"))
        #expect(lines[0].hasSuffix(" 20m 00s"))
        #expect(lines.allSatisfy { $0.count < 60 })
        #expect(lines.contains("1 day: earned 20m 00s, used 10m 00s"))
    }
}
