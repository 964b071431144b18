import BlockerBus
@testable import BlockerCLI
import BlockerCore
import Foundation
import Testing
import TestSupport

// Gaps and integrity notes in the report (the known week's last day).

/// Midnight starting 2025-06-02 UTC (the last day of the known week).
private let june2: WallInstant = 1_748_822_400_000
private let hour: Milliseconds = 3_600_000

@Suite struct ReportGapTests {
    func layout(_ gaps: [Gap], zone: TimeZoneRules = .utc) -> ReportLayout {
        ReportLayout(days: HistoryDay.days(from: knownRows()), balanceMs: knownBalance, gaps: gaps, zone: zone)
    }

    func marks(_ layout: ReportLayout) -> [ReportLayout.Rect] {
        layout.rects { if case .off = $0 { true } else { false } }
    }

    @Test func eachGapIsMarkedUnderItsDayAtItsTimeOfDay() {
        // 2025-06-01 (the sixth column, x 538..<628) 12:00 to 18:00.
        let layout = layout([Gap(from: june2 - 12 * hour, to: june2 - 6 * hour, reason: "stopped")])
        #expect(marks(layout) == [.init(x: 538 + 45, y: layout.baseline + 3, width: 23, height: 4,
                                        color: ReportLayout.Palette.off, role: .off(day: "2025-06-01"))])
        #expect((layout.offMs, layout.offGaps) == (6 * hour, 1))
        #expect(layout.off == ["2025-06-01": [.init(start: june2 - 12 * hour, end: june2 - 6 * hour, reason: "stopped",
                                                    unguardedMs: nil)]])
        // Under the axis, above the day's name.
        #expect(marks(layout).allSatisfy { $0.y > layout.baseline && $0.bottom < layout.baseline + 18 - 9 })
    }

    @Test func aGapAcrossMidnightIsMarkedListedAndCountedOnBothDays() throws {
        // 2025-05-31 23:00 to 2025-06-01 00:40, unguarded from 00:10.
        let midnight = june2 - 24 * hour
        let layout = layout([Gap(from: midnight - hour, to: midnight + .minutes(40), reason: "killed with SIGKILL",
                                 unguardedSince: midnight + .minutes(10))])
        let marks = marks(layout)
        #expect(marks.map(\.role) == [.off(day: "2025-05-31"), .off(day: "2025-06-01")])
        // 23:00 is 86 px into 05-31's 90 (x 448..<538), up to its end; 06-01 from its start, 40 min = 3 px.
        #expect(marks.map { [$0.x, $0.width] } == [[448 + 86, 4], [538, 3]])
        #expect(marks[0].x + marks[0].width == marks[1].x, "one stretch across the two columns")
        #expect((layout.offMs, layout.offGaps) == (.minutes(100), 1), "one gap, counted once, its time on both days")
        let texts = layout.texts.map(\.text)
        #expect(texts.contains { $0.hasSuffix("in 7 days  ·  off 1h 40m in 1 gap") }, "\(texts)")
        let heading = try #require(layout.texts.firstIndex { $0.text == "blockerd off" && $0.bold })
        #expect(Array(texts[(heading + 1)...]) == ["05-31", "off 1h 00m (killed with SIGKILL)",
                                                   "06-01", "off 40m (killed with SIGKILL; 30m", "unguarded)"])
        let rows = layout.texts[(heading + 1)...]
        #expect(rows.map(\.y) == [270, 270, 285, 285, 300], "a line each 15 px, the date on a gap's first")
        #expect(rows.map(\.x) == [766, 806, 766, 806, 806], "under the groups (x 766), the words 40 px in")
        // The legend names the mark.
        #expect(layout.rects.contains { $0.role == .legend && $0.color == ReportLayout.Palette.off })
        #expect(texts.filter { $0 == "blockerd off" }.count == 2, "the legend's and the list's heading")
    }

    @Test func theListSaysWhatHistorySaysInTheReportsMinutes() {
        let part = HistoryGaps.Part(start: june2 + hour, end: june2 + hour + 4_200_000, reason: "stopped",
                                    unguardedMs: 0)
        let layout = layout([Gap(from: part.start, to: part.end, reason: "stopped", unguardedSince: part.end)])
        let words = HistoryGaps.describe(part, duration: ReportLayout.duration)
        #expect(words == "off 1h 10m (stopped)")
        #expect(layout.texts.contains { $0.text == words })
        #expect(!layout.texts.contains { $0.text.contains("unguarded") })
    }

    @Test func eachDaysOpensPausesAndPassesAreListedInHistorysWordsAndCounted() {
        let row = OpenDaySummary(day: "2025-06-02", group: "social", opens: 4, paused: 3, notNow: 1, left: 0, capped: 1,
                                 passes: 1, reasons: ["bored"])
        let elsewhere = OpenDaySummary(day: "2025-05-01", group: "social", opens: 9)        // not a shown day
        let layout = ReportLayout(days: HistoryDay.days(from: knownRows()), balanceMs: knownBalance,
                                  opens: ["2025-06-02": [row], "2025-05-01": [elsewhere]])
        #expect(layout.opens.keys.sorted() == ["2025-06-02"])
        let texts = layout.texts.map(\.text)
        #expect(texts.contains("opens, pauses and passes"))
        let words = HistoryOpens.shortLine(row)
        #expect(words == "social: 4 opens, 1 of 3 paused given up, 1 capped, 1 pass; why: bored")
        #expect(ReportLayout.wrap(words, width: ReportLayout.Geometry.listLineCharacters, lines: 2).allSatisfy(texts.contains),
                "\(texts)")
        let summary = ReportDrawing.summary(layout, path: "r.png", format: .png)
        #expect(summary.hasSuffix(", 4 opens (1 of 3 pauses given up), 1 pass"), "\(summary)")
        // None: the picture and the summary as before.
        let none = ReportLayout(days: HistoryDay.days(from: knownRows()), balanceMs: knownBalance)
        #expect(!none.texts.contains { $0.text.contains("opens") })
        #expect(!ReportDrawing.summary(none, path: "r.png", format: .png).contains("open"))
    }

    @Test func noGapsDrawNothing() {
        let none = layout([])
        #expect(marks(none).isEmpty && none.offGaps == 0 && none.offMs == 0 && none.off.isEmpty)
        #expect(!none.texts.contains { $0.text.contains("off") })
        #expect(!none.rects.contains { $0.color == ReportLayout.Palette.off })
        #expect(none == ReportLayout(days: HistoryDay.days(from: knownRows()), balanceMs: knownBalance))
        // Gaps on days not shown (before the first, after the last) leave the picture as it was.
        let outside = layout([Gap(from: june2 - 9 * 24 * hour, to: june2 - 8 * 24 * hour, reason: "stopped"),
                              Gap(from: june2 + 25 * hour, to: june2 + 26 * hour, reason: "stopped")])
        #expect(outside == none)
    }

    @Test func aGapThatBeganBeforeTheFirstDayCountsOnlyItsShownPart() {
        // 2025-05-26 (not shown) 22:00 to 2025-05-27 (the first day) 01:00.
        let first = june2 - 6 * 24 * hour
        let layout = layout([Gap(from: first - 2 * hour, to: first + hour, reason: "stopped")])
        #expect((layout.offMs, layout.offGaps) == (hour, 1))
        #expect(marks(layout).map { [$0.x, $0.width] } == [[88, 4]])
    }

    @Test func marksFollowTheLocalDayItsLengthAndStayInsideIt() throws {
        // Berlin: 2025-06-01 00:00 is 22:00 UTC on 05-31; a gap 2025-05-31 22:00 to 23:00 UTC is 06-01 00:00 to 01:00.
        let berlin = try TimeZoneRules(posix: "CET-1CEST,M3.5.0,M10.5.0/3")
        let layout = layout([Gap(from: june2 - 26 * hour, to: june2 - 25 * hour, reason: "stopped")], zone: berlin)
        #expect(marks(layout).map(\.role) == [.off(day: "2025-06-01")])
        #expect(marks(layout).map { [$0.x, $0.width] } == [[538, 4]])
        // A 25-hour day (autumn's): 12:30 after its start is halfway.
        let part = HistoryGaps.Part(start: 45_000_000, end: 45_000_001, reason: "", unguardedMs: nil)
        #expect(ReportLayout.offMark(part, dayStart: 0, dayEnd: 90_000_000, left: 100, pitch: 90) == (145, 1))
        // A moment before midnight: a pixel, inside the column; the whole day: the whole column.
        let late = HistoryGaps.Part(start: 86_399_000, end: 86_400_000, reason: "", unguardedMs: nil)
        #expect(ReportLayout.offMark(late, dayStart: 0, dayEnd: 86_400_000, left: 100, pitch: 90) == (189, 1))
        let all = HistoryGaps.Part(start: 0, end: 86_400_000, reason: "", unguardedMs: nil)
        #expect(ReportLayout.offMark(all, dayStart: 0, dayEnd: 86_400_000, left: 100, pitch: 12) == (100, 12))
    }

    @Test func aLongListEndsInHowManyMoreAndLongWordsAreCut() {
        // Every 6 hours from 2025-05-27 00:00, 10 minutes, killed: 28 gaps, on the week's 7 days.
        let start = june2 - 6 * 24 * hour
        let gaps = (0..<28).map { Gap(from: start + Int64($0) * 6 * hour, to: start + Int64($0) * 6 * hour + 600_000,
                                      reason: $0 == 0 ? Gap.unknown : "killed with SIGKILL") }
        let layout = layout(gaps)
        #expect((layout.offGaps, layout.offMs) == (28, 28 * Milliseconds.minutes(10)))
        #expect(marks(layout).count == 28)
        let texts = layout.texts.map(\.text)
        let heading = texts.lastIndex(of: "blockerd off")!
        // Three groups above leave room for 15 lines: the first gap's two, 12 more, and how many more.
        #expect(texts.last == "and 15 more (see blockerctl history)", "\(texts)")
        #expect(texts.count - heading - 1 == 13 + 14 + 1)
        #expect(Array(texts[(heading + 1)...(heading + 5)]) == ["05-27", "off 10m (unknown: killed with SIGKILL,",
                                                                 "crashed or power lost; from the last…",
                                                                 "05-27", "off 10m (killed with SIGKILL)"])
        #expect(layout.texts.allSatisfy { $0.y <= layout.height - 8 }, "nothing below the picture's edge")
        // Eight groups and more leave room for three lines: one gap of two, and how many more.
        var days = HistoryDay.days(from: knownRows())
        days[0].groups = (1...9).map { .init(name: "g\($0)", usedMs: Int64($0) * 60_000) }
        let full = ReportLayout(days: days, balanceMs: 0, gaps: gaps, zone: .utc)
        let fullTexts = full.texts.map(\.text)
        #expect(fullTexts.count - fullTexts.lastIndex(of: "blockerd off")! - 1 == 1 + 2 + 1)
        #expect(fullTexts.last == "and 27 more (see blockerctl history)")
        #expect(full.texts.allSatisfy { $0.y <= full.height - 8 })
    }

    @Test func wordsWrapAtSpacesIntoAtMostTheLinesGiven() {
        #expect(ReportLayout.wrap("off 40m (stopped)", width: 40, lines: 2) == ["off 40m (stopped)"])
        #expect(ReportLayout.wrap("aaa bbb ccc", width: 7, lines: 2) == ["aaa bbb", "ccc"])
        #expect(ReportLayout.wrap("aaa bbb ccc ddd", width: 7, lines: 2) == ["aaa bbb", "ccc ddd"])
        #expect(ReportLayout.wrap("aaa bbb ccc ddd e", width: 7, lines: 2) == ["aaa bbb", "ccc dd…"])
        #expect(ReportLayout.wrap("aaaaaaaaaa b", width: 4, lines: 3) == ["aaaa", "aaaa", "aa b"])
        #expect(ReportLayout.wrap("", width: 4, lines: 2) == [])
    }

    @Test func theMarksArePaintedWhereTheLayoutPutsThem() throws {
        let directory = try TemporaryDirectory()
        let service = RecordingCalls()
        service.historyRows = knownRows()
        service.report.balanceMs = knownBalance
        let midnight = june2 - 24 * hour
        service.gapRows = [Gap(from: midnight - hour, to: midnight + .minutes(40), reason: "stopped"),
                           Gap(from: june2 + 2 * hour, to: june2 + 3 * hour, reason: "stopped")]
        let layout = layout(service.gapRows)
        #expect(blockerctl(["report", "--output", directory.file("week.png")], service: service).status == 0)
        #expect(blockerctl(["report", "--output", directory.file("week.svg")], service: service).status == 0)
        let png = try CairoPNG(path: directory.file("week.png"))
        for mark in marks(layout) {
            #expect(png.color(x: mark.x + mark.width / 2, y: mark.y + 1) == ReportLayout.Palette.off, "\(mark)")
        }
        // In the SVG as paths of the mark's grey (0x77 = 46.666667%): the legend's and the three marks.
        let svg = try String(contentsOfFile: directory.file("week.svg"), encoding: .utf8)
        #expect(svg.components(separatedBy: "fill:rgb(46.666667%,46.666667%,46.666667%)").count - 1 == 1 + 3)
    }
}

/// Integrity notes in the picture: a "!" badge over the day's column with
/// the time they concerned, a legend entry, and a list in history's words.
@Suite struct ReportNoteTests {
    /// 2025-06-01 (the sixth column, x 538..<628) 14:00 for 18 minutes, uncovered; a stall 14:05 to 14:07 inside it.
    static let uncovered = IntegrityNote(kind: .uncovered, from: june2 - 10 * hour, to: june2 - 10 * hour + 1_080_000,
                                         text: "a shield on discord with no cover drawn: 18m 00s charged")
    static let stall = IntegrityNote(kind: .stall, from: june2 - 10 * hour + 300_000, to: june2 - 10 * hour + 420_000,
                                     text: "blockerd did not run once with discord in front: 2m 00s past the cap, charged")
    /// Today (the last column) 09:30, an instant.
    static let environment = IntegrityNote(kind: .environment, from: june2 + 9 * hour + 1_800_000,
                                           to: june2 + 9 * hour + 1_800_000, text: "started with another environment")
    static let notes: [CivilDate: [IntegrityNote]] = ["2025-06-01": [uncovered, stall], "2025-06-02": [environment]]

    func layout(notes: [CivilDate: [IntegrityNote]] = notes, gaps: [Gap] = [], days: [HistoryDay] = HistoryDay.days(from: knownRows()))
        -> ReportLayout {
        ReportLayout(days: days, balanceMs: knownBalance, gaps: gaps, notes: notes, zone: .utc)
    }

    func badges(_ layout: ReportLayout) -> [ReportLayout.Rect] {
        layout.rects { if case .note = $0 { true } else { false } }
    }

    @Test func aDayWithNotesHasABadgeOverItsColumnWithTheTimeTheyConcerned() throws {
        let layout = layout()
        typealias P = ReportLayout.Palette
        // Over the earned bar's left edge (column + 13), between the legend (down to 96) and the plot (from 120).
        #expect(badges(layout) == [.init(x: 538 + 13, y: 102, width: 14, height: 14, color: P.note, role: .note(day: "2025-06-01")),
                                   .init(x: 628 + 13, y: 102, width: 14, height: 14, color: P.note, role: .note(day: "2025-06-02"))])
        let marks = layout.texts.filter { $0.text == "!" }
        #expect(marks.map { [$0.x, $0.y] } == [[88 + 2 * 96 + 6, 93], [558, 113], [648, 113]], "the legend's and each badge's")
        #expect(marks.allSatisfy { $0.color == P.background && $0.bold && $0.anchor == .middle })
        // 18 minutes (the stall lies inside them) beside the first; the instant has no time beside it.
        let times = layout.texts.filter { $0.color == P.note }
        #expect(times == [.init(text: "18m", x: 551 + 14 + 4, y: 113, size: 11, bold: true, color: P.note)])
        #expect((layout.noteCount, layout.noteMs) == (3, 1_080_000))
        // The legend names the badge, after earned and used (no gaps here).
        #expect(layout.rects.contains { $0.role == .legend && $0.color == P.note && $0.x == 88 + 2 * 96 })
        #expect(layout.texts.contains { $0.text == "integrity note" && $0.x == 88 + 2 * 96 + 18 })
        #expect(P.note != P.background && !P.groups.contains(P.note))
    }

    @Test func theNotesAreListedInHistorysWordsAboveTheGaps() throws {
        let layout = layout(gaps: [Gap(from: june2 + hour, to: june2 + 2 * hour, reason: "stopped")])
        let texts = layout.texts.map(\.text)
        let heading = try #require(texts.firstIndex(of: "3 integrity notes (18m)"))
        #expect(layout.texts[heading].bold && layout.texts[heading].y == 250, "under the three groups, where the gaps were")
        let words = Self.uncovered.line(zone: .utc, duration: ReportLayout.duration)
        #expect(words == "uncovered 14:00 for 18m: a shield on discord with no cover drawn: 18m 00s charged")
        let off = try #require(texts.lastIndex(of: "blockerd off"))
        #expect(Array(texts[(heading + 1)...(off - 1)]) == [
            "06-01", "uncovered 14:00 for 18m: a shield on", "discord with no cover drawn: 18m 00s…",
            "06-01", "stalled 14:05 for 2m: blockerd did not", "run once with discord in front: 2m 00s…",
            "06-02", "environment changed 09:30: started with", "another environment",
        ])
        #expect(Array(texts[(off + 1)...]) == ["06-02", "off 1h 00m (stopped)"])
        let rows = layout.texts[(heading + 1)...]
        #expect(rows.map(\.y) == rows.map(\.y).sorted() && layout.texts[off].y == 270 + 5 * 15 + 30)
        // In the legend after "blockerd off".
        #expect(layout.texts.contains { $0.text == "integrity note" && $0.x == 88 + 2 * 96 + 120 + 18 })
        #expect(layout.texts.allSatisfy { $0.y <= layout.height - 8 })
    }

    @Test func manyNotesLeaveTheGapsHalfTheRoom() throws {
        let many = (0..<20).map { IntegrityNote(kind: .stall, from: june2 + Int64($0) * 60_000, to: june2 + Int64($0) * 60_000 + 5_000,
                                                text: "x") }
        let layout = layout(notes: ["2025-06-02": many], gaps: [Gap(from: june2 + hour, to: june2 + 2 * hour, reason: "stopped")])
        let texts = layout.texts.map(\.text)
        let heading = try #require(texts.firstIndex(of: "20 integrity notes (2m)"))
        let off = try #require(texts.lastIndex(of: "blockerd off"))
        // Lines from 270 down to (270 + 488) / 2 = 379: eight, the last saying how many more.
        #expect(texts[off - 1] == "and 13 more (see blockerctl history)", "\(texts)")
        #expect(off - heading - 1 == 7 * 2 + 1 && layout.texts[off - 1].y == 375)
        #expect(Array(texts[(off + 1)...]) == ["06-02", "off 1h 00m (stopped)"])
        #expect(layout.texts.allSatisfy { $0.y <= layout.height - 8 })
        // With eight groups there is room for the notes' first lines only: the gaps are in the heading's total.
        var days = HistoryDay.days(from: knownRows())
        days[0].groups = (1...9).map { .init(name: "g\($0)", usedMs: Int64($0) * 60_000) }
        let full = self.layout(notes: ["2025-06-02": many], gaps: [Gap(from: june2 + hour, to: june2 + 2 * hour, reason: "stopped")],
                               days: days)
        #expect(full.texts.allSatisfy { $0.y <= full.height - 8 }, "nothing below the picture's edge")
        #expect(full.texts.contains { $0.text == "20 integrity notes (2m)" })
        #expect(full.texts.contains { $0.text.hasSuffix("off 1h 00m in 1 gap") })
    }

    @Test func narrowColumnsGetASmallerBadgeAndNoTime() {
        let days = (0..<364).map { HistoryDay(day: CivilDate(year: 2024, month: 6, day: 4).adding(days: $0),
                                              earnedMs: 60_000, usedMs: 0, groups: []) }
        let year = layout(days: days)
        // 12 px a day, bars 4 px from 2 px in: a badge of 8 over them.
        #expect(badges(year).map { [$0.x, $0.width, $0.height] } == [[88 + 362 * 12 + 2, 8, 8], [88 + 363 * 12 + 2, 8, 8]])
        #expect(!year.texts.contains { $0.color == ReportLayout.Palette.note })
    }

    @Test func noNotesDrawNothingAndNotesOnDaysNotShownAreLeftOut() {
        let none = layout(notes: [:])
        #expect(none == ReportLayout(days: HistoryDay.days(from: knownRows()), balanceMs: knownBalance))
        #expect(badges(none).isEmpty && none.noteCount == 0 && !none.rects.contains { $0.color == ReportLayout.Palette.note })
        #expect(!none.texts.contains { $0.text.contains("integrity") })
        let elsewhere = layout(notes: ["2025-05-20": [Self.uncovered], "2025-06-02": []])
        #expect(elsewhere == none)
    }

    @Test func theBadgesArePaintedWhereTheLayoutPutsThemAndTheSummaryCountsThem() throws {
        let directory = try TemporaryDirectory()
        let service = RecordingCalls()
        service.historyRows = knownRows()
        service.report.balanceMs = knownBalance
        service.noteRows = [Self.uncovered, Self.stall, Self.environment]
        let png = blockerctl(["report", "--output", directory.file("week.png")], service: service)
        #expect(png.status == 0, "\(png.stderr)")
        #expect(service.calls == [.status, .history(days: 7), .gaps(days: 7), .notes(days: 7), .opens(days: 7)])
        #expect(png.stdout.hasSuffix("balance 1h 45m, 3 integrity notes (18m 00s)\n"), "\(png.stdout)")
        #expect(blockerctl(["report", "--output", directory.file("week.svg")], service: service).status == 0)
        let layout = layout()
        let picture = try CairoPNG(path: directory.file("week.png"))
        for badge in badges(layout) {
            // Its corners: the "!" is in its middle.
            #expect(picture.color(x: badge.x + 1, y: badge.y + 1) == ReportLayout.Palette.note, "\(badge)")
            #expect(picture.color(x: badge.x + badge.width - 2, y: badge.y + badge.height - 2) == ReportLayout.Palette.note)
            #expect(picture.color(x: badge.x + 1, y: badge.y - 2) == ReportLayout.Palette.background, "above \(badge)")
        }
        // The "!" is white on the badge: some pixel in its middle column is not the badge's red.
        let first = try #require(badges(layout).first)
        #expect((first.y..<first.bottom).contains { picture.color(x: first.x + first.width / 2, y: $0) != ReportLayout.Palette.note })
        // In the SVG as paths of the badge's red (0xCC = 80%): the legend's and the two days'.
        let svg = try String(contentsOfFile: directory.file("week.svg"), encoding: .utf8)
        // (The "18m" beside the first is glyphs in a <g> of that color, not a path with a style.)
        let red = try NSRegularExpression(pattern: #"<path style="[^"]*fill:rgb\(80%,0%,0%\)"#)
        #expect(red.numberOfMatches(in: svg, range: NSRange(svg.startIndex..., in: svg)) == 1 + 2)
    }
}
