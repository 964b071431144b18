import BlockerBus
@testable import BlockerCLI
import BlockerCore
import Foundation
import Testing
import TestSupport

/// (Shared with ReportGapTests.swift: the week, its rows, the balance.)
/// A known week, Tue 2025-05-27 … Mon 2025-06-02, in minutes: earned, spent, use per group.
let knownWeek: [(day: CivilDate, earned: Int64, spent: Int64, groups: [String: Int64])] = [
    ("2025-05-27", 30, 20, ["social": 20, "video": 5]),
    ("2025-05-28", 0, 0, [:]),
    ("2025-05-29", 60, 45, ["social": 40, "work, \"deep\"": 10]),
    ("2025-05-30", 15, 15, ["social": 15]),
    ("2025-05-31", 45, 30, ["video": 30]),
    ("2025-06-01", 20, 10, ["social": 10]),
    ("2025-06-02", 10, 5, ["social": 5]),
]

/// The week as blockerd's History rows: a totals row per day, then its groups.
func knownRows() -> [HistoryRow] {
    knownWeek.flatMap { day in
        [HistoryRow(day: day.day.description, group: "", usedMs: day.spent * 60_000, earnedMs: day.earned * 60_000)]
            + day.groups.sorted { $0.key < $1.key }.map {
                HistoryRow(day: day.day.description, group: $0.key, usedMs: $0.value * 60_000, earnedMs: 0)
            }
    }
}

let knownBalance: Milliseconds = 6_300_000

@Suite struct ReportLayoutTests {
    let layout = ReportLayout(days: HistoryDay.days(from: knownRows()), balanceMs: knownBalance)

    @Test func aWeekIs1070By496() {
        #expect((layout.width, layout.height) == (1070, 496))
        #expect(ReportCommand.spec.discussion?.contains("1070x496") == true)
        #expect(layout.rects.first == .init(x: 0, y: 0, width: 1070, height: 496,
                                            color: ReportLayout.Palette.background, role: .background))
    }

    @Test func longerRangesGrowWiderInsteadOfThinningBars() {
        let days = (0..<364).map { HistoryDay(day: CivilDate(year: 2025, month: 1, day: 1).adding(days: $0),
                                              earnedMs: 60_000, usedMs: 0, groups: []) }
        let year = ReportLayout(days: days, balanceMs: 0)
        #expect(year.width == 4808 && year.height == 496)
        #expect(ReportLayout.pitch(days: 14) == 45 && ReportLayout.pitch(days: 49) == 12 && ReportLayout.pitch(days: 7) == 90)
        let bars = year.rects { if case .earned = $0 { true } else { false } }
        #expect(bars.count == 364 && bars.allSatisfy { $0.width == 4 })
    }

    @Test func theScaleIsAWholeNumberOfSteps() {
        #expect(ReportLayout.scale(for: 3_600_000) == (900_000, 3_600_000))    // 60m: 4 × 15m
        #expect(ReportLayout.scale(for: 0) == (60_000, 60_000))
        #expect(ReportLayout.scale(for: 25_200_000) == (7_200_000, 28_800_000)) // 7h: 4 × 2h
        #expect(ReportLayout.scale(for: 1_000_000_000) == (86_400_000, 1_036_800_000))
        #expect(layout.scaleMs == 3_600_000)
        let gridlines = layout.rects { $0 == .gridline }
        #expect(gridlines.map(\.y) == [345, 270, 195, 120])
    }

    @Test func barsStandOnTheBaselineAtTheirShareOfTheScale() {
        let earned = layout.rects { if case .earned = $0 { true } else { false } }
        let used = layout.rects { if case .used = $0 { true } else { false } }
        // 60m is the full 300 px; the empty day has no bars.
        #expect(earned.map(\.height) == [150, 300, 75, 225, 100, 50])
        #expect(used.map(\.height) == [100, 225, 75, 150, 50, 25])
        #expect((earned + used).allSatisfy { $0.bottom == layout.baseline && $0.width == 32 })
        #expect(earned.map(\.role) == knownWeek.filter { $0.earned > 0 }.map { .earned(day: $0.day) })
        // Left to right in day order, each day's used bar right of its earned bar.
        #expect(earned.map(\.x) == earned.map(\.x).sorted())
        for (e, u) in zip(earned, used) { #expect(u.x == e.x + e.width) }
        #expect(earned.first?.x == 88 + 13 && earned.last?.x == 88 + 6 * 90 + 13)
    }

    @Test func barsAreAtLeastAPixelAndNeverAboveTheScale() {
        #expect(ReportLayout.barHeight(1, scale: 3_600_000, pixels: 300) == 1)
        #expect(ReportLayout.barHeight(0, scale: 3_600_000, pixels: 300) == 0)
        #expect(ReportLayout.barHeight(7_200_000, scale: 3_600_000, pixels: 300) == 300)
    }

    @Test func theBusiestGroupAndTodaysBalanceAreNamed() {
        #expect(layout.busiestGroup == .init(name: "social", usedMs: .minutes(90)))
        #expect(layout.groups.map(\.name) == ["social", "video", "work, \"deep\""])
        #expect(layout.texts.contains {
            $0.text.hasPrefix("balance today 1h 45m  ·  busiest group social (1h 30m used)")
        })
        #expect(layout.texts.contains { $0.text == "blocker: earned and used, 2025-05-27 to 2025-06-02" })
        #expect(layout.texts.contains { $0.text == "today" && $0.bold })
        let groups = layout.rects { if case .group = $0 { true } else { false } }
        #expect(groups.map(\.width) == [280, 109, 31])
        #expect(groups.map(\.color) == Array(ReportLayout.Palette.groups.prefix(3)))
    }

    @Test func aTieForBusiestGoesToTheFirstName() {
        let days = [HistoryDay(day: "2025-06-02", earnedMs: 0, usedMs: 0,
                               groups: [.init(name: "video", usedMs: 60_000), .init(name: "social", usedMs: 60_000)])]
        #expect(ReportLayout(days: days, balanceMs: 0).busiestGroup?.name == "social")
    }

    @Test func anEmptyWeekSaysNoGroupWasUsed() {
        let days = HistoryDay.days(from: [HistoryRow(day: "2025-06-01", group: "", usedMs: 0, earnedMs: 0),
                                          HistoryRow(day: "2025-06-02", group: "", usedMs: 0, earnedMs: 0)])
        let empty = ReportLayout(days: days, balanceMs: 0)
        #expect(empty.busiestGroup == nil)
        #expect(empty.rects { if case .earned = $0 { true } else if case .used = $0 { true } else { false } }.isEmpty)
        #expect(empty.texts.contains { $0.text.contains("no group used") })
    }

    @Test func eachSeriesHasItsOwnColor() {
        typealias P = ReportLayout.Palette
        let colors = [P.background, P.gridline, P.axis, P.earned, P.used, P.off] + P.groups
        #expect(Set(colors).count == colors.count)
    }

    @Test func chartDurationsAreInMinutes() {
        #expect(ReportLayout.duration(0) == "0m")
        #expect(ReportLayout.duration(45_000) == "45s")
        #expect(ReportLayout.duration(2_700_000) == "45m")
        #expect(ReportLayout.duration(3_900_000) == "1h 05m")
        #expect(ReportLayout.duration(3_600_000 - 20_000) == "1h 00m")
    }
}

@Suite struct HistoryCSVTests {
    @Test func aRowPerDayAndGroupInDayOrder() {
        let run = blockerctl(["history", "--csv"], service: { let s = RecordingCalls(); s.historyRows = knownRows().reversed(); return s }())
        #expect(run.status == 0 && run.stderr.isEmpty)
        let lines = run.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.first == "day,group,used_ms,earned_ms,integrity_notes,integrity_ms")
        #expect(lines.last == "")
        #expect(Array(lines[1...5]) == [
            "2025-05-27,,1200000,1800000,0,0",
            "2025-05-27,social,1200000,0,0,0",
            "2025-05-27,video,300000,0,0,0",
            "2025-05-28,,0,0,0,0",
            "2025-05-29,,2700000,3600000,0,0",
        ])
        #expect(lines.contains("2025-05-29,\"work, \"\"deep\"\"\",600000,0,0,0"))
        #expect(lines.count == 1 + 7 + 8 + 1)
    }

    @Test func fieldsAreQuotedOnlyWhenTheyMustBe() {
        #expect(HistoryCSV.field("social") == "social")
        #expect(HistoryCSV.field("") == "")
        #expect(HistoryCSV.field("a,b") == "\"a,b\"")
        #expect(HistoryCSV.field("say \"hi\"") == "\"say \"\"hi\"\"\"")
        #expect(HistoryCSV.field("two\nlines") == "\"two\nlines\"")
        #expect(HistoryCSV.field("crlf\r\nhere") == "\"crlf\r\nhere\"")
        #expect(HistoryCSV.field("\"") == "\"\"\"\"")
    }

    @Test func csvAndJSONCannotGoTogether() {
        let service = RecordingCalls()
        let run = blockerctl(["history", "--csv", "--json"], service: service)
        #expect(run.status == 2 && run.stderr.hasPrefix("blockerctl: error: --json and --csv cannot go together"))
        #expect(service.calls.isEmpty)
    }
}

@Suite struct ReportCommandTests {
    func service() -> RecordingCalls {
        let service = RecordingCalls()
        service.historyRows = knownRows()
        service.report.balanceMs = knownBalance
        return service
    }

    func leftovers(_ directory: TemporaryDirectory) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix(".") }
    }

    @Test func thePNGHasTheLayoutsSizeAndItsBarsWhereTheLayoutPutThem() throws {
        let directory = try TemporaryDirectory()
        let service = service()
        let run = blockerctl(["report", "--output", directory.file("week.png")], service: service)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(service.calls == [.status, .history(days: 7), .gaps(days: 7), .notes(days: 7), .opens(days: 7)])
        #expect(run.stdout == "wrote \(directory.file("week.png")) (PNG, 1070×496): 7 days, earned 3h 00m, "
                + "used 2h 05m, busiest group social (1h 30m), balance 1h 45m\n")
        let png = try CairoPNG(path: directory.file("week.png"))
        #expect((png.width, png.height) == (1070, 496))
        let layout = ReportLayout(days: HistoryDay.days(from: knownRows()), balanceMs: knownBalance)
        typealias P = ReportLayout.Palette
        let bars = layout.rects { if case .earned = $0 { true } else if case .used = $0 { true } else { false } }
        #expect(bars.count == 12)
        for bar in bars {
            let middle = bar.x + bar.width / 2
            #expect(png.color(x: middle, y: bar.y + 1) == bar.color, "\(bar.role) near its top")
            #expect(png.color(x: middle, y: bar.bottom - 1) == bar.color, "\(bar.role) at its foot")
            #expect([P.background, P.gridline].contains(png.color(x: middle, y: bar.y - 2)), "\(bar.role): above it")
        }
        #expect(try leftovers(directory).isEmpty)
        let mode = try FileManager.default.attributesOfItem(atPath: directory.file("week.png"))[.posixPermissions] as? Int
        #expect(mode.map { $0 & 0o044 } == 0o044, "readable like any file the user makes, not mkstemp's 0600")
    }

    @Test func thePictureMarksEachGapUnderItsDayAndTheSummaryTotalsThem() throws {
        let directory = try TemporaryDirectory()
        let service = service()
        // 2025-06-01, the sixth day shown, 12:00 to 18:00 UTC.
        let noon: WallInstant = 1_748_779_200_000
        service.gapRows = [Gap(from: noon, to: noon + 21_600_000, reason: "stopped")]
        let run = blockerctl(["report", "--output", directory.file("week.png")], service: service)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(service.calls == [.status, .history(days: 7), .gaps(days: 7), .notes(days: 7), .opens(days: 7)])
        #expect(run.stdout.hasSuffix("balance 1h 45m, off 6h 00m in 1 gap\n"), "\(run.stdout)")
        let png = try CairoPNG(path: directory.file("week.png"))
        let background = ReportLayout.Palette.background
        // The day's column is x 538..<628 (88 + 5 × 90); 12:00 to 18:00 is 45..<68 of its 90 px, under the axis at 420.
        let strip = 420 + 5
        for x in [584, 595, 605] { #expect(png.color(x: x, y: strip) != background, "x \(x): the gap's mark") }
        for x in [540, 580, 609, 626, 88 + 2 * 90 + 45] { #expect(png.color(x: x, y: strip) == background, "x \(x): no gap") }
    }

    @Test func theSVGHasAPathPerRectangle() throws {
        let directory = try TemporaryDirectory()
        let run = blockerctl(["report", "--weeks", "1", "--output", directory.file("Week.SVG")], service: service())
        #expect(run.status == 0, "\(run.stderr)")
        let svg = try String(contentsOfFile: directory.file("Week.SVG"), encoding: .utf8)
        #expect(svg.contains("width=\"1070px\"") && svg.contains("height=\"496px\""))
        // cairo writes each filled rectangle as <path style="…fill:rgb(R%,G%,B%)…" d="M x y L … Z">
        // (text is glyphs in <g>, not paths with a style).
        let pattern = try NSRegularExpression(pattern: #"<path style="[^"]*fill:rgb\(([\d.]+)%,([\d.]+)%,([\d.]+)%\)[^"]*" d="([^"]*)""#)
        var painted: [ReportLayout.Rect] = []
        for match in pattern.matches(in: svg, range: NSRange(svg.startIndex..., in: svg)) {
            let part = { (index: Int) in String(svg[Range(match.range(at: index), in: svg)!]) }
            let channel = { (index: Int) in UInt32((Double(part(index))! * 255 / 100).rounded()) }
            let numbers = part(4).split(whereSeparator: { !"0123456789.-".contains($0) }).compactMap { Double($0) }
            let xs = stride(from: 0, to: numbers.count, by: 2).map { numbers[$0] }
            let ys = stride(from: 1, to: numbers.count, by: 2).map { numbers[$0] }
            painted.append(.init(x: Int(xs.min()!), y: Int(ys.min()!), width: Int(xs.max()! - xs.min()!),
                                 height: Int(ys.max()! - ys.min()!),
                                 color: ReportColor(channel(1) << 16 | channel(2) << 8 | channel(3)), role: .background))
        }
        let layout = ReportLayout(days: HistoryDay.days(from: knownRows()), balanceMs: knownBalance)
        let geometry = { (rects: [ReportLayout.Rect]) in rects.map { [$0.x, $0.y, $0.width, $0.height] } }
        // The background covers the page: cairo writes that one as a <rect>.
        #expect(svg.contains(#"<rect x="0" y="0" width="1070" height="496" style="fill:rgb(100%,100%,100%);"#))
        #expect(painted.count == layout.rects.count - 1, "a path per rectangle but the background, nothing else")
        for color in [ReportLayout.Palette.earned, ReportLayout.Palette.used] + ReportLayout.Palette.groups.prefix(3) {
            #expect(geometry(painted.filter { $0.color == color }) == geometry(layout.rects.filter { $0.color == color }))
        }
        #expect(painted.filter { $0.color == ReportLayout.Palette.earned }.count == 6 + 1, "six days' bars and the legend's square")
        #expect(try leftovers(directory).isEmpty)
    }

    @Test func weeksAsksForThatManyDays() throws {
        let service = service()
        let directory = try TemporaryDirectory()
        #expect(blockerctl(["report", "--weeks", "52", "--output", directory.file("y.svg")], service: service).status == 0)
        #expect(service.calls == [.status, .history(days: 364), .gaps(days: 364), .notes(days: 364), .opens(days: 364)])
    }

    @Test(arguments: [
        (["report"], "missing --output FILE"),
        (["report", "--output", "week.jpg"], "--output must name a file ending in .png or .svg, not \"week.jpg\"; e.g. --output week.png"),
        (["report", "--output", "png"], "--output must name a file ending in .png or .svg"),
        (["report", "--output", "week.png", "--weeks", "0"], "--weeks must be a whole number from 1 to 52, not \"0\""),
        (["report", "--output", "week.png", "--weeks", "53"], "--weeks must be a whole number from 1 to 52, not \"53\""),
        (["report", "--output", "week.png", "--weeks", "-1"], "--weeks must be a whole number from 1 to 52"),
        (["report", "--output", "week.png", "--weeks", "1.5"], "--weeks must be a whole number from 1 to 52"),
    ])
    func badInputIsAUsageErrorAndCallsNothing(arguments: [String], message: String) {
        let service = service()
        let run = blockerctl(arguments, service: service)
        #expect(run.status == 2)
        #expect(run.stderr.hasPrefix("blockerctl: error: \(message)"), "\(run.stderr)")
        #expect(run.stderr.contains("usage: blockerctl report --output FILE [--weeks N]"))
        #expect(service.calls.isEmpty && run.connections == 0)
    }

    @Test func anUnwritablePlaceFailsBeforeAskingBlockerdAndNamesTheFix() throws {
        let directory = try TemporaryDirectory()
        try directory.write("plain", "x")
        try FileManager.default.createDirectory(atPath: directory.file("folder.png"), withIntermediateDirectories: false)
        let cases = [
            (directory.file("missing/week.png"), "create the directory \(directory.file("missing")) first, or choose another --output"),
            (directory.file("plain/week.png"), "\(directory.file("plain")) is not a directory; choose another --output"),
            (directory.file("folder.png"), "it is a directory — give --output a file name ending in .png or .svg"),
        ]
        for (path, fix) in cases {
            let service = service()
            let run = blockerctl(["report", "--output", path], service: service)
            #expect(run.status == 1)
            #expect(run.stderr.hasPrefix("blockerctl: error: cannot write \(path)") && run.stderr.contains(fix), "\(run.stderr)")
            #expect(service.calls.isEmpty)
        }
        #expect(!FileManager.default.fileExists(atPath: directory.file("missing")))
        #expect(try leftovers(directory).isEmpty)
    }

    @Test func aFailedReportKeepsTheOldFileAndLeavesNoTemporaryFile() throws {
        let directory = try TemporaryDirectory()
        let old = try directory.write("week.png", "the old picture")
        let service = service()
        service.failure = .notRunning("no blockerd in this test")
        let run = blockerctl(["report", "--output", old], service: service)
        #expect(run.status == 1 && run.stderr.contains("blockerd is not running"))
        #expect(try String(contentsOfFile: old, encoding: .utf8) == "the old picture")
        #expect(try leftovers(directory).isEmpty)
    }

    @Test func aSuccessfulReportReplacesTheOldFile() throws {
        let directory = try TemporaryDirectory()
        let old = try directory.write("week.png", "the old picture")
        #expect(blockerctl(["report", "--output", old], service: service()).status == 0)
        #expect(try CairoPNG(path: old).width == 1070)
    }
}
