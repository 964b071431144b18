import BlockerBus
@testable import BlockerCLI
import BlockerCore
import Foundation
import Testing
import TestSupport

/// Integrity notes in `history --json`, `--csv` and `--csv --notes`: each
/// under the local day it began, with the time it concerned. The test clock
/// says 2025-06-02 12:00 UTC (`testNow`).
@Suite struct IntegrityNoteHistoryTests {
    /// 2025-06-02 00:00 UTC.
    static let midnight: WallInstant = 1_748_822_400_000
    static let minute: Milliseconds = 60_000

    /// 06-02 01:00 for 18 minutes uncovered, a stall 01:10 to 01:12 inside it, and an instant at 03:00.
    static let uncovered = IntegrityNote(kind: .uncovered, from: midnight + 60 * minute, to: midnight + 78 * minute,
                                         text: "a shield on discord with no cover drawn: 18m 00s charged")
    static let stall = IntegrityNote(kind: .stall, from: midnight + 70 * minute, to: midnight + 72 * minute,
                                     text: "blockerd did not run (SIGSTOP or a stall) once with discord in front: 2m 00s past the cap, charged")
    static let environment = IntegrityNote(kind: .environment, from: midnight + 180 * minute, to: midnight + 180 * minute,
                                           text: "started with another environment than the last run: TZ \"\" → \"Asia/Tokyo\", x")

    static func service(_ notes: [IntegrityNote] = [uncovered, stall, environment]) -> RecordingCalls {
        let service = RecordingCalls()
        service.historyRows = [HistoryRow(day: "2025-06-01", group: "", usedMs: 0, earnedMs: 60_000),
                               HistoryRow(day: "2025-06-02", group: "", usedMs: 600_000, earnedMs: 1_200_000),
                               HistoryRow(day: "2025-06-02", group: "social", usedMs: 600_000, earnedMs: 0)]
        service.noteRows = notes
        return service
    }

    @Test func historyJSONCarriesEachDaysNotesBesideWhatItHadBefore() throws {
        let service = Self.service()
        let run = blockerctl(["history", "--days", "2", "--json"], service: service)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(service.calls == [.history(days: 2), .gaps(days: 2), .notes(days: 2), .opens(days: 2)])
        let days = try #require(try parseJSON(run.stdout) as? [[String: Any]])
        #expect(days.map { $0["day"] as? String } == ["2025-06-01", "2025-06-02"])
        #expect(days[1]["used_ms"] as? Int == 600_000 && days[1]["groups"] as? [String: Int] == ["social": 600_000])
        #expect((days[0]["integrity"] as? [Any])?.isEmpty == true, "a day without notes has an empty list")
        let notes = try #require(days[1]["integrity"] as? [[String: Any]])
        #expect(notes.map { Set($0.keys) } == Array(repeating: ["kind", "start_ms", "end_ms", "text"], count: 3))
        #expect(notes.map { $0["kind"] as? String } == ["uncovered", "stall", "environment"])
        #expect(notes[0]["start_ms"] as? Int == Int(Self.uncovered.from.ms) && notes[0]["end_ms"] as? Int == Int(Self.uncovered.to.ms))
        #expect(notes[0]["text"] as? String == Self.uncovered.text)
        #expect(notes[2]["start_ms"] as? Int == notes[2]["end_ms"] as? Int, "an instant")
        // Keys are only added: the day object starts as it did.
        #expect(run.stdout.hasPrefix(#"[{"day":"2025-06-01","earned_ms":60000,"used_ms":0,"groups":{},"gaps":[],"integrity":[],"opens":[]}"#),
                "\(run.stdout)")
    }

    @Test func historyCSVCountsEachDaysNotesAndTheTimeTheyConcernedInColumnsAtTheEnd() {
        let service = Self.service()
        let run = blockerctl(["history", "--days", "2", "--csv"], service: service)
        #expect(service.calls == [.history(days: 2), .notes(days: 2)])
        // 01:00 to 01:18 with a stall inside it, and an instant: 3 notes, 18 minutes.
        #expect(run.stdout == """
            day,group,used_ms,earned_ms,integrity_notes,integrity_ms
            2025-06-01,,0,60000,0,0
            2025-06-02,,600000,1200000,3,1080000
            2025-06-02,social,600000,0,0,0

            """, "\(run.stdout)")
    }

    @Test func historyCSVNotesIsItsOwnTableQuotedAsRFC4180Says() {
        let service = Self.service()
        let run = blockerctl(["history", "--days", "2", "--csv", "--notes"], service: service)
        #expect(run.status == 0 && service.calls == [.notes(days: 2)])
        let m = Self.midnight, minute = Self.minute
        #expect(run.stdout == """
            day,kind,start_ms,end_ms,text
            2025-06-02,uncovered,\((m + 60 * minute).ms),\((m + 78 * minute).ms),a shield on discord with no cover drawn: 18m 00s charged
            2025-06-02,stall,\((m + 70 * minute).ms),\((m + 72 * minute).ms),"blockerd did not run (SIGSTOP or a stall) once with discord in front: 2m 00s past the cap, charged"
            2025-06-02,environment,\((m + 180 * minute).ms),\((m + 180 * minute).ms),"started with another environment than the last run: TZ ""\"" → ""Asia/Tokyo"", x"

            """, "\(run.stdout)")
    }

    @Test(arguments: [
        (["history", "--notes"], "--notes goes with --csv (the JSON and the chart have the notes already): history --csv --notes"),
        (["history", "--json", "--notes"], "--notes goes with --csv"),
        (["history", "--csv", "--gaps", "--notes"], "--gaps and --notes are two tables; choose one"),
    ])
    func notesGoesWithCSVAlone(arguments: [String], message: String) {
        let service = Self.service()
        let run = blockerctl(arguments, service: service)
        #expect(run.status == 2 && run.stderr.hasPrefix("blockerctl: error: \(message)"), "\(run.stderr)")
        #expect(service.calls.isEmpty)
    }

    /// Nothing earned or used on 05-31, nothing at all on 06-01: the note's day is shown anyway, and the day between.
    @Test func aDayWithANoteIsShownThoughNothingElseHappenedOnIt() throws {
        let service = Self.service([IntegrityNote(kind: .coverRefused, from: Self.midnight - 40 * 60 * Self.minute,
                                                  to: Self.midnight - 40 * 60 * Self.minute, text: "a fake cover")])
        service.historyRows = [HistoryRow(day: "2025-06-02", group: "", usedMs: 600_000, earnedMs: 0)]
        let json = try #require(try parseJSON(blockerctl(["history", "--days", "3", "--json"], service: service).stdout) as? [[String: Any]])
        #expect(json.map { $0["day"] as? String } == ["2025-05-31", "2025-06-01", "2025-06-02"])
        #expect((json[0]["integrity"] as? [[String: Any]])?.map { $0["kind"] as? String } == ["cover-refused"])
        let csv = blockerctl(["history", "--days", "3", "--csv"], service: service).stdout
        #expect(csv.contains("\n2025-05-31,,0,0,1,0\n2025-06-01,,0,0,0,0\n"), "\(csv)")
        let chart = blockerctl(["history", "--days", "3"], service: service, environment: ["COLUMNS": "120", "TZ": "UTC"]).stdout
        let lines = chart.split(separator: "\n").map(String.init)
        let day = try #require(lines.firstIndex { $0.hasPrefix("2025-05-31 Sat") }, "\(chart)")
        #expect(lines[day + 2].trimmingCharacters(in: .whitespaces) == "! cover refused 08:00: a fake cover", "\(chart)")
    }

    /// The first day asked for is 06-01: a stretch from 05-31 23:00 reaches into it, so it is shown on it, whole.
    @Test func aNoteThatBeganBeforeTheFirstDayIsShownOnIt() throws {
        let early = IntegrityNote(kind: .lockNotHonoured, from: Self.midnight - 25 * 60 * Self.minute,
                                  to: Self.midnight - 23 * 60 * Self.minute, text: "logind said locked")
        let service = Self.service([early])
        let json = try #require(try parseJSON(blockerctl(["history", "--days", "2", "--json"], service: service).stdout) as? [[String: Any]])
        #expect(json.map { $0["day"] as? String } == ["2025-06-01", "2025-06-02"])
        #expect((json[0]["integrity"] as? [[String: Any]])?.first?["start_ms"] as? Int == Int(early.from.ms))
        #expect(HistoryNotes.byDay([early], firstDay: CivilDate(year: 2025, month: 5, day: 31), zone: .utc) == ["2025-05-31": [early]])
        let chart = blockerctl(["history", "--days", "2"], service: service, environment: ["COLUMNS": "120", "TZ": "UTC"]).stdout
        #expect(chart.contains("! lock not honoured 23:00 for 2h 00m: logind said locked"), "\(chart)")
    }

    @Test func theTimeNotesConcernedCountsAStretchTheyShareOnce() {
        let m = Self.midnight, minute = Self.minute
        func note(_ from: Int64, _ to: Int64) -> IntegrityNote {
            IntegrityNote(kind: .stall, from: m + from * minute, to: m + to * minute, text: "")
        }
        #expect(HistoryNotes.concernedMs([]) == 0)
        #expect(HistoryNotes.concernedMs([note(5, 5)]) == 0, "an instant concerns no time")
        #expect(HistoryNotes.concernedMs([note(0, 18), note(10, 12)]) == 18 * minute, "one inside the other")
        #expect(HistoryNotes.concernedMs([note(10, 30), note(0, 20)]) == 30 * minute, "overlapping, in any order")
        #expect(HistoryNotes.concernedMs([note(0, 10), note(20, 25)]) == 15 * minute, "apart")
    }
}
