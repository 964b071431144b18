import BlockerBus
@testable import BlockerCLI
import BlockerCore
import BlockerStore
import Foundation
import Testing
import TestSupport

/// `blockerctl doctor` on a real ledger edited by hand with the real sqlite3.
@Suite struct LedgerEditTests {
    @Test func doctorSaysTheLedgerWasEditedAndStillOnlyWarns() throws {
        let temp = try TemporaryDirectory(create: false)
        let path: String
        do {
            let ledger = try Ledger.open(stateDirectory: temp.path)
            defer { ledger.close() }
            path = ledger.path
            _ = try ledger.earn(exercise: "pushups", reps: 2, perRep: 30_000, at: testNow - 60_000, day: "2025-06-02")
        }
        let clock = LocalClock(zone: try TimeZoneRules(posix: "UTC0"))
        var facts = DoctorVerdictTests.healthy()
        facts.ledgerEdits = .success(DoctorFacts.describe(try LedgerIntegrity.inspect(path: path), clock: clock, now: testNow))
        #expect(Doctor.verdicts(facts).first { $0.subject == "edits" }?.detail == "the ledger was written by blocker alone")

        let edit = try run(["/usr/bin/sqlite3", path,
                            "UPDATE account SET balance_ms = balance_ms + 3600000, earned_total_ms = earned_total_ms + 3600000"])
        #expect(edit.status == 0, "\(edit.stderr)")
        facts.ledgerEdits = .success(DoctorFacts.describe(try LedgerIntegrity.inspect(path: path), clock: clock, now: testNow))
        let verdict = try #require(Doctor.verdicts(facts).first { $0.subject == "edits" })
        #expect(verdict.level == .warn)
        // The seal's instant is when blocker wrote (the real clock), shown as a local date and time.
        #expect(verdict.detail.hasPrefix("the ledger was edited outside blocker on 20"), "\(verdict.detail)")
        #expect(verdict.detail.hasSuffix(" or later (after blocker's last write; blockerd notes it at its next one)"), "\(verdict.detail)")
        #expect(verdict.fix == "nothing stops blocker from running; this stays as the record of the edit")

        // A changed earning is named, with its day.
        let change = try run(["/usr/bin/sqlite3", path, "UPDATE earnings SET reps = 20, ms = 600000"])
        #expect(change.status == 0, "\(change.stderr)")
        facts.ledgerEdits = .success(DoctorFacts.describe(try LedgerIntegrity.inspect(path: path), clock: clock, now: testNow))
        let named = try #require(Doctor.verdicts(facts).first { $0.subject == "edits" })
        #expect(named.detail.hasSuffix("; the ledger was edited outside blocker at earning #1 of 2025-06-02 (pushups): changed, added, or one before it removed"), "\(named.detail)")
    }

    /// Integrity notes are blocker's own writes (sealed): deleting one by
    /// hand is itself an edit doctor reports; doctor lists them otherwise.
    @Test func integrityNotesAreSealedAndShownByDoctor() throws {
        let temp = try TemporaryDirectory(create: false)
        let path: String
        let note = IntegrityNote(kind: .stall, from: testNow - 60_000, to: testNow - 30_000,
                                 text: "blockerd did not run (SIGSTOP or a stall) once with discord in front: 30s charged")
        do {
            let ledger = try Ledger.open(stateDirectory: temp.path)
            defer { ledger.close() }
            path = ledger.path
            try ledger.addNote(note)
            #expect(try ledger.notes(since: testNow - 45_000) == [note])
            #expect(try ledger.notes(since: testNow).isEmpty)
        }
        #expect(try LedgerIntegrity.inspect(path: path).unsealedSince == nil)
        let clock = LocalClock(zone: try TimeZoneRules(posix: "UTC0"))
        var facts = DoctorVerdictTests.healthy()
        facts.integrityNotes = []
        #expect(Doctor.verdicts(facts).first { $0.subject == "integrity" }?.level == .ok)
        facts.integrityNotes = ["2025-06-02 " + note.line(zone: clock.zone)]
        let verdict = try #require(Doctor.verdicts(facts).first { $0.subject == "integrity" })
        #expect(verdict.level == .warn)
        #expect(verdict.detail == "2025-06-02 stalled 11:59 for 30s: " + note.text, "\(verdict.detail)")

        let delete = try run(["/usr/bin/sqlite3", path, "DELETE FROM integrity_notes"])
        #expect(delete.status == 0, "\(delete.stderr)")
        #expect(try LedgerIntegrity.inspect(path: path).unsealedSince != nil)
    }
}
