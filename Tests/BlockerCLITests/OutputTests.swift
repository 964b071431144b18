@testable import BlockerCLI
import BlockerBus
import BlockerCore
import Foundation
import Testing
import TestSupport

@Suite struct ChartTests {
    func day(_ day: CivilDate, earned: Milliseconds, used: Milliseconds, groups: [(String, Milliseconds)] = []) -> HistoryDay {
        HistoryDay(day: day, earnedMs: earned, usedMs: used, groups: groups.map { .init(name: $0.0, usedMs: $0.1) })
    }

    let plain = Printer(output: CapturedOutput(), color: false)

    @Test func barsAreProportionalInEighthsOfACell() {
        #expect(HistoryChart.bar(100, scale: 100, width: 10) == String(repeating: "█", count: 10))
        #expect(HistoryChart.bar(50, scale: 100, width: 10) == String(repeating: "█", count: 5))
        #expect(HistoryChart.bar(55, scale: 100, width: 10) == "█████▌")            // 44 eighths
        #expect(HistoryChart.bar(1, scale: 1_000_000, width: 10) == "▏")            // visible, not rounded away
        #expect(HistoryChart.bar(0, scale: 100, width: 10) == "")
        #expect(HistoryChart.bar(.max, scale: .max, width: 48).count == 48)
    }

    @Test func theLargestValueFillsTheWidthAndLinesFitTheTerminal() {
        let days = [day("2025-06-01", earned: 3_600_000, used: 1_800_000, groups: [("social", 1_800_000)]),
                    day("2025-06-02", earned: 0, used: 7_200_000, groups: [("video", 5_400_000), ("social", 1_800_000)])]
        for columns in [40, 80, 132] {
            let lines = HistoryChart.render(days, columns: columns, printer: plain)
            let width = HistoryChart.barWidth(columns: columns)
            #expect(lines.allSatisfy { $0.count < columns }, "columns \(columns)")
            let used2 = lines.first { $0.contains("used") && $0.hasSuffix("2h 00m") }!
            #expect(used2.filter { $0 == "█" }.count == width)
            let earned1 = lines.first { $0.hasPrefix("2025-06-01 Sun earned") }!
            #expect(earned1.filter { $0 == "█" }.count == width / 2)
        }
        let lines = HistoryChart.render(days, columns: 80, printer: plain)
        // Durations end in one column.
        let barLines = lines.filter { $0.contains("earned ") || $0.contains("used ") }.filter { !$0.contains(":") }
        #expect(Set(barLines.map(\.count)).count == 1)
        #expect(lines.contains { $0.trimmingCharacters(in: .whitespaces) == "video 1h 30m, social 30m 00s" })
        #expect(lines.last == "2 days: earned 1h 00m, used 2h 30m")
    }

    @Test func emptyHistorySaysSo() {
        #expect(HistoryChart.render([], columns: 80, printer: plain) == ["no history yet: nothing earned or used in these days"])
    }

    @Test func rowsBecomeDaysWithGapsFilled() {
        let days = HistoryDay.days(from: [
            HistoryRow(day: "2025-02-27", group: "", usedMs: 5, earnedMs: 7),
            HistoryRow(day: "2025-03-02", group: "b", usedMs: 1, earnedMs: 0),
            HistoryRow(day: "2025-03-02", group: "a", usedMs: 1, earnedMs: 0),
            HistoryRow(day: "2025-03-02", group: "c", usedMs: 9, earnedMs: 0),
        ])
        #expect(days.map(\.day) == ["2025-02-27", "2025-02-28", "2025-03-01", "2025-03-02"])
        #expect(days[0].earnedMs == 7 && days[0].usedMs == 5)
        #expect(days[3].groups.map(\.name) == ["c", "a", "b"])
    }

    @Test func aRowWhoseDayIsNoDateIsLeftOut() {
        let days = HistoryDay.days(from: [
            HistoryRow(day: "2025-02-27", group: "", usedMs: 5, earnedMs: 7),
            HistoryRow(day: "someday", group: "", usedMs: 1, earnedMs: 1),
        ])
        #expect(days.map(\.day) == ["2025-02-27"])
    }
}

@Suite struct ColorTests {
    @Test func colorsOnlyOnATerminalWithoutNO_COLOR() {
        #expect(colorEnabled(stdoutIsTerminal: true, environment: [:]))
        #expect(!colorEnabled(stdoutIsTerminal: false, environment: [:]))
        #expect(!colorEnabled(stdoutIsTerminal: true, environment: ["NO_COLOR": "1"]))
        #expect(!colorEnabled(stdoutIsTerminal: true, environment: ["TERM": "dumb"]))
        // no-color.org: an empty NO_COLOR does not count.
        #expect(colorEnabled(stdoutIsTerminal: true, environment: ["NO_COLOR": ""]))
    }

    @Test func statusIsPaintedOnlyWhenAllowed() {
        let service = RecordingCalls()
        let terminal = blockerctl(["status"], service: service, environment: ["TZ": "UTC"], terminal: true)
        #expect(terminal.stdout.contains("\u{1B}[1m1h 05m\u{1B}[0m"))
        let noColor = blockerctl(["status"], service: service, environment: ["TZ": "UTC", "NO_COLOR": "1"], terminal: true)
        let piped = blockerctl(["status"], service: service, environment: ["TZ": "UTC"], terminal: false)
        #expect(!noColor.stdout.contains("\u{1B}") && !piped.stdout.contains("\u{1B}"))
        #expect(noColor.stdout == piped.stdout)
        // Painting never moves the columns: strip the codes and it is the plain text.
        let stripped = terminal.stdout.replacingOccurrences(of: "\u{1B}\\[[0-9]+m", with: "", options: .regularExpression)
        #expect(stripped == piped.stdout)
    }

    @Test func jsonIsNeverPainted() {
        let run = blockerctl(["status", "--json"], service: RecordingCalls(), terminal: true)
        #expect(!run.stdout.contains("\u{1B}"))
    }
}
