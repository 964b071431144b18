import BlockerCore

/// An sRGB color, 8 bits a channel.
struct ReportColor: Equatable, Hashable, Sendable, CustomStringConvertible {
    var red: UInt8
    var green: UInt8
    var blue: UInt8

    init(_ hex: UInt32) {
        red = UInt8((hex >> 16) & 0xFF); green = UInt8((hex >> 8) & 0xFF); blue = UInt8(hex & 0xFF)
    }

    /// "#2e9e4f".
    var description: String {
        "#" + [red, green, blue].map { value in
            let digits = String(value, radix: 16)
            return digits.count == 1 ? "0" + digits : digits
        }.joined()
    }
}

/// What `blockerctl report` draws, decided without cairo: every rectangle
/// and every piece of text with its pixel position, so the layout is tested
/// as plain values and the drawing layer only paints them.
struct ReportLayout: Equatable {
    enum Palette {
        static let background = ReportColor(0xFFFFFF)
        static let text = ReportColor(0x222222)
        static let dimText = ReportColor(0x666666)
        static let gridline = ReportColor(0xE4E4E4)
        static let axis = ReportColor(0x999999)
        static let earned = ReportColor(0x2E9E4F)
        static let used = ReportColor(0xE8833A)
        /// blockerd not running: darker than the axis it lies under.
        static let off = ReportColor(0x777777)
        /// An integrity note's badge (a white "!" on it) and the time it concerned.
        static let note = ReportColor(0xCC0000)
        /// Groups, busiest first; none equals earned, used, grid or background,
        /// so a bar's color says what it is.
        static let groups: [ReportColor] = [
            ReportColor(0x3B6FD6), ReportColor(0x8E44AD), ReportColor(0x16A085), ReportColor(0xC0392B),
            ReportColor(0xB8860B), ReportColor(0x5D6D7E), ReportColor(0xD6336C), ReportColor(0x1F3A5F),
        ]
    }

    /// What a rectangle stands for (tests and the summary find bars by it).
    enum Role: Equatable, Hashable {
        case background
        case gridline
        case axis
        case legend
        case earned(day: CivilDate)
        case used(day: CivilDate)
        case group(name: String)
        /// A day's part of a gap, on the strip under the axis.
        case off(day: CivilDate)
        /// The badge of a day with integrity notes, over its column.
        case note(day: CivilDate)
    }

    struct Rect: Equatable {
        var x: Int, y: Int, width: Int, height: Int
        var color: ReportColor
        var role: Role
        var bottom: Int { y + height }
    }

    struct Text: Equatable {
        enum Anchor: Equatable { case start, middle, end }
        var text: String
        /// The baseline's left end, middle or right end, by `anchor`.
        var x: Int, y: Int
        var size: Int
        var bold: Bool = false
        var color: ReportColor = Palette.text
        var anchor: Anchor = .start
    }

    struct GroupTotal: Equatable {
        var name: String
        var usedMs: Milliseconds
    }

    var width: Int
    var height: Int
    /// Painted in order: background first, bars over the gridlines.
    var rects: [Rect]
    var texts: [Text]
    /// The group used most over the days shown (ties: the first name); nil when none was used.
    var busiestGroup: GroupTotal?
    var groups: [GroupTotal]
    var days: [HistoryDay]
    /// Each shown day's parts of the gaps (blockerd not running), in the order they happened.
    var off: [CivilDate: [HistoryGaps.Part]]
    /// The time off over the days shown, and in how many gaps (one across midnight is one).
    var offMs: Milliseconds
    var offGaps: Int
    /// Each shown day's integrity notes (`HistoryNotes.byDay`), how many, and the time they concerned.
    var notes: [CivilDate: [IntegrityNote]]
    var noteCount: Int
    var noteMs: Milliseconds
    /// Each shown day's opens, pauses and passes per group (`HistoryOpens.fetch`).
    var opens: [CivilDate: [OpenDaySummary]]
    var balanceMs: Milliseconds
    var earnedMs: Milliseconds
    var usedMs: Milliseconds
    /// Where the day bars stand, and how many pixels the top of the scale is.
    var baseline: Int
    var plotHeight: Int
    var scaleMs: Milliseconds

    func rects(_ matching: (Role) -> Bool) -> [Rect] { rects.filter { matching($0.role) } }

    /// The report for `days` (oldest first, as `HistoryDay.days` gives them),
    /// today's balance, the gaps (blockerd not running) overlapping them,
    /// split into days in `zone`, and the integrity notes by day
    /// (`HistoryNotes.byDay`), and the opens by day (`HistoryOpens.fetch`);
    /// gaps, notes and opens on days not shown are left out.
    init(days: [HistoryDay], balanceMs: Milliseconds, gaps: [Gap] = [], notes: [CivilDate: [IntegrityNote]] = [:],
         opens: [CivilDate: [OpenDaySummary]] = [:], zone: TimeZoneRules = .utc) {
        typealias G = Geometry
        let pitch = Self.pitch(days: days.count)
        let plotLeft = G.margin + G.axisWidth
        let plotWidth = pitch * max(days.count, 1)
        let panelLeft = plotLeft + plotWidth + G.groupPanelGap
        width = panelLeft + G.groupPanelWidth + G.margin
        height = G.height
        self.days = days
        self.balanceMs = balanceMs
        earnedMs = days.reduce(0) { $0 + $1.earnedMs }
        usedMs = days.reduce(0) { $0 + $1.usedMs }
        groups = Self.groupTotals(days)
        (off, offMs, offGaps) = Self.offParts(gaps, days: days, zone: zone)
        let shownDays = Set(days.map(\.day))
        self.notes = notes.filter { shownDays.contains($0.key) && !$0.value.isEmpty }
        noteCount = self.notes.values.reduce(0) { $0 + $1.count }
        noteMs = HistoryNotes.concernedMs(self.notes.values.flatMap { $0 })
        self.opens = opens.filter { shownDays.contains($0.key) && !$0.value.isEmpty }
        busiestGroup = groups.first
        baseline = G.plotTop + G.plotHeight
        plotHeight = G.plotHeight
        let (step, top) = Self.scale(for: days.map { max($0.earnedMs, $0.usedMs) }.max() ?? 0)
        scaleMs = top

        var rects = [Rect(x: 0, y: 0, width: width, height: height, color: Palette.background, role: .background)]
        var texts: [Text] = []

        // Heading: the range, then today's balance and the busiest group.
        let range = days.first.map { first in
            first.day == days[days.count - 1].day ? "\(first.day)"
                : tr("{first} to {last}", ["first": "\(first.day)", "last": "\(days[days.count - 1].day)"])
        } ?? tr("no days")
        texts.append(Text(text: tr("blocker: earned and used, {range}", ["range": range]), x: G.margin, y: 38, size: 20, bold: true))
        let busiest = busiestGroup.map { tr("busiest group {group} ({time} used)", ["group": $0.name, "time": Self.duration($0.usedMs)]) }
            ?? tr("no group used")
        let totals = trn("earned {earned}, used {used} in {count} day", "earned {earned}, used {used} in {count} days",
                         count: days.count, ["earned": Self.duration(earnedMs), "used": Self.duration(usedMs)])
        texts.append(Text(text: [tr("balance today {time}", ["time": Self.duration(balanceMs)]), busiest, totals]
                          .joined(separator: "  ·  ")
                          + (offGaps > 0 ? "  ·  " + Self.offTotal(offMs, gaps: offGaps) : ""),
                          x: G.margin, y: 64, size: 14, color: Palette.dimText))
        // Legend; the gaps' mark and the notes' badge only when there are some.
        for (index, (label, color)) in [(tr("earned"), Palette.earned), (tr("used"), Palette.used)].enumerated() {
            let x = plotLeft + index * 96
            rects.append(Rect(x: x, y: 84, width: 12, height: 12, color: color, role: .legend))
            texts.append(Text(text: label, x: x + 18, y: 95, size: 13))
        }
        if offGaps > 0 {
            let x = plotLeft + 2 * 96
            rects.append(Rect(x: x, y: 88, width: 12, height: G.offStripHeight, color: Palette.off, role: .legend))
            texts.append(Text(text: tr("blockerd off"), x: x + 18, y: 95, size: 13))
        }
        if noteCount > 0 {
            // After "blockerd off", which is longer than "earned" and "used".
            let x = plotLeft + 2 * 96 + (offGaps > 0 ? 120 : 0)
            let (square, mark) = Self.noteBadge(x: x, y: 84, size: 12, role: .legend)
            rects.append(square)
            texts += [mark, Text(text: tr("integrity note"), x: x + 18, y: 95, size: 13)]
        }

        // The scale: a gridline and a label at every step, the baseline last.
        var value = step
        while value <= top {
            let y = baseline - Self.barHeight(value, scale: top, pixels: G.plotHeight)
            rects.append(Rect(x: plotLeft, y: y, width: plotWidth, height: 1, color: Palette.gridline, role: .gridline))
            texts.append(Text(text: Self.duration(value), x: plotLeft - 8, y: y + 4, size: 11,
                              color: Palette.dimText, anchor: .end))
            value += step
        }
        rects.append(Rect(x: plotLeft, y: baseline, width: plotWidth, height: 1, color: Palette.axis, role: .axis))

        // Per day: earned and used side by side, the day's name and date below.
        let barWidth = max(3, pitch * 36 / 100)
        let inset = max(1, (pitch - 2 * barWidth) / 2)
        let labelEvery = pitch >= 40 ? 1 : 7
        for (index, day) in days.enumerated() {
            let left = plotLeft + index * pitch + inset
            for (ms, color, role, offset) in [(day.earnedMs, Palette.earned, Role.earned(day: day.day), 0),
                                              (day.usedMs, Palette.used, Role.used(day: day.day), barWidth)] {
                let bar = Self.barHeight(ms, scale: top, pixels: G.plotHeight)
                if bar > 0 {
                    rects.append(Rect(x: left + offset, y: baseline - bar, width: barWidth, height: bar,
                                      color: color, role: role))
                }
            }
            // The day's gaps at their time of day, on the strip under the axis.
            if let parts = off[day.day] {
                let dayStart = zone.startOfDay(day.day), dayEnd = zone.startOfDay(day.day.adding(days: 1))
                for part in parts {
                    let mark = Self.offMark(part, dayStart: dayStart, dayEnd: dayEnd,
                                            left: plotLeft + index * pitch, pitch: pitch)
                    rects.append(Rect(x: mark.x, y: baseline + G.offStripGap, width: mark.width,
                                      height: G.offStripHeight, color: Palette.off, role: .off(day: day.day)))
                }
            }
            // The day's integrity notes: a badge over its earned bar, and beside
            // it the time they concerned when the column has room for it.
            if let dayNotes = self.notes[day.day] {
                let size = min(G.noteBadgeSize, pitch - 2 * inset)
                let (badge, mark) = Self.noteBadge(x: left, y: G.noteBadgeTop, size: size, role: .note(day: day.day))
                rects.append(badge)
                texts.append(mark)
                let ms = HistoryNotes.concernedMs(dayNotes)
                if pitch >= 80, ms > 0 {
                    texts.append(Text(text: Self.duration(ms), x: left + size + 4, y: G.noteBadgeTop + size - 3, size: 11,
                                      bold: true, color: Palette.note))
                }
            }
            let isToday = index == days.count - 1
            let center = plotLeft + index * pitch + pitch / 2
            if index % labelEvery == (days.count - 1) % labelEvery {
                texts.append(Text(text: isToday ? tr("today") : day.day.localWeekdayName, x: center, y: baseline + 18, size: 12,
                                  bold: isToday, anchor: .middle))
                texts.append(Text(text: Self.monthDay(day.day), x: center, y: baseline + 33, size: 11,
                                  color: Palette.dimText, anchor: .middle))
            }
            if pitch >= 80 {
                texts.append(Text(text: Self.duration(day.earnedMs), x: center, y: baseline + 52, size: 11,
                                  color: Palette.earned, anchor: .middle))
                texts.append(Text(text: Self.duration(day.usedMs), x: center, y: baseline + 67, size: 11,
                                  color: Palette.used, anchor: .middle))
            }
        }

        // Per group: the days' use, busiest first, on a scale of the busiest.
        texts.append(Text(text: tr("used per group"), x: panelLeft, y: G.plotTop - 4, size: 14, bold: true))
        let shown = groups.prefix(G.shownGroups)
        if shown.isEmpty {
            texts.append(Text(text: tr("no group used in these days"), x: panelLeft, y: G.plotTop + 24, size: 12,
                              color: Palette.dimText))
        }
        let panelBarWidth = G.groupPanelWidth
        for (index, group) in shown.enumerated() {
            let top = G.plotTop + 12 + index * G.groupRowHeight
            let name = group.name.count > 32 ? String(group.name.prefix(31)) + "…" : group.name
            texts.append(Text(text: name, x: panelLeft, y: top + 2, size: 12, bold: index == 0))
            texts.append(Text(text: Self.duration(group.usedMs), x: panelLeft + panelBarWidth, y: top + 2,
                              size: 12, color: Palette.dimText, anchor: .end))
            let length = Self.barHeight(group.usedMs, scale: shown[shown.startIndex].usedMs, pixels: panelBarWidth)
            rects.append(Rect(x: panelLeft, y: top + 8, width: length, height: G.groupBarHeight,
                              color: Palette.groups[index % Palette.groups.count], role: .group(name: group.name)))
        }
        var panelBottom = shown.isEmpty ? G.plotTop + 24 : G.plotTop + shown.count * G.groupRowHeight - 2
        if groups.count > shown.count {
            panelBottom = G.plotTop + 12 + shown.count * G.groupRowHeight + 2
            texts.append(Text(text: trn("and {count} more (see blockerctl history --csv)", "and {count} more (see blockerctl history --csv)",
                                        count: groups.count - shown.count),
                              x: panelLeft, y: panelBottom, size: 11, color: Palette.dimText))
        }

        // Under the groups, in history's words: the integrity notes first (what
        // may have been a way around blocker), then each day's opens, pauses and
        // passes, then each day's parts of the gaps; each list present leaves
        // those after it an equal share of the room.
        let (offByDay, notesByDay, opensByDay) = (off, self.notes, self.opens)
        let noteRows = days.flatMap { day in
            (notesByDay[day.day] ?? []).map { (day: day.day, words: $0.line(zone: zone, duration: Self.duration)) }
        }
        let openRows = days.flatMap { day in (opensByDay[day.day] ?? []).map { (day: day.day, words: HistoryOpens.shortLine($0)) } }
        let offRows = days.flatMap { day in
            (offByDay[day.day] ?? []).map { (day: day.day, words: HistoryGaps.describe($0, duration: Self.duration)) }
        }
        let lists = [(Self.noteTotal(noteCount, ms: noteMs), noteRows), (tr("opens, pauses and passes"), openRows),
                     (tr("blockerd off"), offRows)].filter { !$0.1.isEmpty }
        let bottom = height - 8
        var above = panelBottom
        for (index, (title, rows)) in lists.enumerated() {
            let heading = above + 30
            let after = lists.count - index
            let limit = after == 1 ? bottom : heading + 20 + (bottom - heading - 20) / after
            let list = Self.list(title, rows, heading: heading, limit: limit, left: panelLeft)
            texts += list.texts
            above = list.last
        }
        self.rects = rects
        self.texts = texts
    }
}
