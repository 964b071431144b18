@testable import BlockerBus
@testable import BlockerCLI
import BlockerCore
import Testing
import TestSupport

/// What blockerctl says to a person goes through the catalog (issue 26): in the
/// pseudo-locale no word is left outside ⟦…⟧ but what a person types or reads
/// as is — blockerctl, command and option names, REPS-like placeholders — and
/// the data shown (app, group, exercise names).
@Suite struct TranslatedOutputTests {
    static let commandWords = Set(BlockerCtl.commands.flatMap { $0.spec.path })
    static let data: Set<Substring> = ["firefox", "YouTube", "Mozilla", "Firefox", "video", "squats", "pushups", "x11", "social", "work", "deep",
                                       "discord"]

    static func typedAsIs(_ word: Substring) -> Bool {
        word.hasPrefix("-") || word == "blockerctl" || commandWords.contains(String(word)) || data.contains(word)
            || word.allSatisfy { $0.isUppercase || !$0.isLetter }
    }

    func expectAllMarked(_ text: String, _ what: String) {
        let words = PseudoCatalog.unmarkedWords(in: text, allowed: { Self.typedAsIs($0) })
        #expect(words.isEmpty, "\(what): \(words) in:\n\(text)")
    }

    @Test func theHelpOfBlockerctlAndOfEveryCommand() {
        PseudoCatalog.speaking {
            let top = blockerctl(["--help"])
            #expect(top.status == 0)
            expectAllMarked(top.stdout, "--help")
            for command in BlockerCtl.visibleCommands {
                let run = blockerctl(command.spec.path + ["--help"])
                #expect(run.status == 0)
                expectAllMarked(run.stdout, "\(command.spec.name) --help")
            }
        }
    }

    @Test(arguments: [["earn", "x"], ["stauts"], ["block", "social"], ["history", "--days", "0"], ["config"],
                      ["status", "--json", "--format", "text"], ["earn", "5", "--bogus"], []] as [[String]])
    func usageErrors(_ arguments: [String]) {
        PseudoCatalog.speaking {
            let run = blockerctl(arguments)
            #expect(run.status == 2)
            expectAllMarked(run.stderr, arguments.joined(separator: " "))
        }
    }

    @Test func statusEarnAndTheirFailures() {
        PseudoCatalog.speaking {
            let service = RecordingCalls()
            expectAllMarked(blockerctl(["status"], service: service).stdout, "status")
            service.report.shield = ShieldState(active: true, reason: .dailyLimit, app: "discord", group: "social",
                                                until: testNow + .hours(30), balanceMs: 0)
            service.report.strictDelayMs = .hours(1)
            service.report.locked = true
            expectAllMarked(blockerctl(["status"], service: service).stdout, "status, shielded")
            // The bar's text and its tooltip (the state's class is for the bar's style sheet: not words).
            let bar = StatusBar.line(service.report, lowMs: 0, clock: LocalClock(zone: .utc, label: ""), now: testNow)
            expectAllMarked(bar.text + "\n" + bar.tooltip, "the status bar")
            expectAllMarked(blockerctl(["earn", "10", "pushups"], service: service).stdout, "earn")
            expectAllMarked(blockerctl(["earn", "10"], service: service).stdout, "earn without an exercise")
            let away = blockerctl(["earn", "10"])
            #expect(away.status == 1)
            expectAllMarked(away.stderr.replacingOccurrences(of: "no session bus in this test", with: ""), "earn, blockerd away")
        }
    }

    @Test func historysChartAndTheReportsPicture() {
        let june2: WallInstant = 1_748_822_400_000
        let gaps = [Gap(from: june2 - .hours(12), to: june2 - .hours(6), reason: "stopped", unguardedSince: june2 - .hours(7)),
                    Gap(from: june2 + .hours(1), to: june2 + .hours(2), reason: Gap.blind("x11: no display"))]
        let opens = ["2025-06-02": [OpenDaySummary(day: "2025-06-02", group: "social", opens: 4, paused: 3, notNow: 1, left: 0,
                                                   capped: 1, passes: 1, reasons: ["bored"])]] as [CivilDate: [OpenDaySummary]]
        PseudoCatalog.speaking {
            let service = RecordingCalls()
            service.historyRows = knownRows()
            service.gapRows = gaps
            service.openRows = opens.values.flatMap { $0 }
            // "stopped" and "bored" are what the ledger keeps, as they were written.
            expectAllMarked(blockerctl(["history"], service: service).stdout
                .replacingOccurrences(of: "stopped", with: "").replacingOccurrences(of: "bored", with: ""), "history")
            #expect(blockerctl(["history"], service: RecordingCalls()).stdout.contains("⟦no history yet"))
            let layout = ReportLayout(days: HistoryDay.days(from: knownRows()), balanceMs: knownBalance, gaps: gaps,
                                      opens: opens, zone: .utc)
            let words = layout.texts.map(\.text).joined(separator: "\n")
            expectAllMarked(words.replacingOccurrences(of: "stopped", with: "").replacingOccurrences(of: "bored", with: ""),
                            "the report's picture")
        }
    }

    @Test func doctorsLines() {
        PseudoCatalog.speaking {
            var facts = DoctorVerdictTests.healthy()
            var details = Doctor.verdicts(facts).map(\.detail)
            facts.environment = [:]
            facts.probeSample = .failed("x11: no display")
            facts.units = Doctor.units.map { .init(name: $0.name, enabled: .exited(0, "disabled\n"), active: .exited(3, "inactive\n")) }
            facts.ledger = .present(.init(isRegularFile: true, isDirectory: false, permissions: 0o644, ownerUID: 1000), readFailure: nil)
            facts.journal = .exited(1, "")
            details += Doctor.verdicts(facts).map(\.detail)
            facts.managerEnvironment = .exited(1, "")
            details += Doctor.verdicts(facts).map(\.detail)
            // Names a person reads as they are: systemd's states, variables, paths, units, the probe's own words.
            let asIs: Set<Substring> = ["auto", "x11", "firefox", "enabled", "disabled", "active", "inactive", "display", "no"]
            for detail in details {
                let words = PseudoCatalog.unmarkedWords(in: detail) { word in
                    Self.typedAsIs(word) || asIs.contains(word) || word.contains("/") || word.contains("=") || word.contains(".")
                }
                #expect(words.isEmpty, "doctor: \(words) in \(detail)")
            }
        }
    }

    @Test func jsonIsTheSameInEveryLanguage() {
        let english = blockerctl(["status", "--json"], service: RecordingCalls()).stdout
        var pseudo = ""
        PseudoCatalog.speaking { pseudo = blockerctl(["status", "--json"], service: RecordingCalls()).stdout }
        #expect(!english.isEmpty && english == pseudo)
    }
}
