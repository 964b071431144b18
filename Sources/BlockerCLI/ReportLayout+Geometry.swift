import BlockerCore

/// The report's measures and the pieces `init` lays out with: scale, bars, gap marks, lists.
extension ReportLayout {
    enum Geometry {
        static let margin = 24
        static let axisWidth = 64
        static let plotTop = 120
        static let plotHeight = 300
        static let plotWidthForAWeek = 630
        static let maximumPitch = 90
        static let minimumPitch = 12
        static let groupPanelGap = 48
        static let groupPanelWidth = 280
        static let groupRowHeight = 34
        static let groupBarHeight = 12
        static let shownGroups = 8
        /// The strip under the axis where a day's gaps are marked, 00:00 at
        /// the left of the day's column, midnight next at its right.
        static let offStripGap = 3
        static let offStripHeight = 4
        /// The lists under the groups (notes, gaps): their lines, and the characters a
        /// line gets (240 px of 11 px DejaVu Sans, about 6 px a character).
        static let listLineHeight = 15
        static let listLineCharacters = 40
        /// A day's integrity notes: a badge over its column, between the legend and the plot.
        static let noteBadgeTop = 102
        static let noteBadgeSize = 14
        /// Below the plot: day names, dates, and (when there is room) the day's numbers.
        static let footer = 76
        static var height: Int { plotTop + plotHeight + footer }
    }

    /// Gridline steps: the scale is a whole number of the first step that
    /// needs no more than 5 lines.
    static let steps: [Milliseconds] = [60_000, 120_000, 300_000, 600_000, 900_000, 1_800_000,
                                        3_600_000, 7_200_000, 10_800_000, 21_600_000, 43_200_000, 86_400_000]

    /// The scale's step and top for the largest value shown (at least a minute).
    static func scale(for largest: Milliseconds) -> (step: Milliseconds, top: Milliseconds) {
        let largest = max(largest, 60_000)
        let step = steps.first { (largest + $0 - 1).count(of: $0) <= 5 } ?? steps[steps.count - 1]
        return (step, step * (largest + step - 1).count(of: step))
    }

    /// Pixels for `ms` out of `scale` over `pixels`: rounded, and at least 1 for anything above zero.
    static func barHeight(_ ms: Milliseconds, scale: Milliseconds, pixels: Int) -> Int {
        guard ms > 0, scale > 0 else { return 0 }
        let exact = Double(min(ms, scale).ms) / Double(scale.ms) * Double(pixels)
        return max(1, Int(exact.rounded()))
    }

    /// Pixels from one day to the next: a week fills 630 px; long ranges grow the image instead of thinning bars below 12 px.
    static func pitch(days: Int) -> Int {
        max(Geometry.minimumPitch, min(Geometry.maximumPitch, Geometry.plotWidthForAWeek / max(days, 1)))
    }

    /// Minutes are enough on a chart: "45m", "1h 05m"; under a minute as DurationText has it.
    static func duration(_ ms: Milliseconds) -> String { DurationText.format(ms, precision: .minutes) }

    static func groupTotals(_ days: [HistoryDay]) -> [GroupTotal] {
        var totals: [String: Milliseconds] = [:]
        for day in days { for group in day.groups { totals[group.name, default: 0] += group.usedMs } }
        return totals.filter { $0.value > 0 }.map { GroupTotal(name: $0.key, usedMs: $0.value) }
            .sorted { ($0.usedMs, $1.name) > ($1.usedMs, $0.name) }
    }

    /// `gaps` split at local midnight in `zone`, kept for the days shown;
    /// how many gaps have a part in them, and the time off in them.
    static func offParts(_ gaps: [Gap], days: [HistoryDay], zone: TimeZoneRules)
        -> (byDay: [CivilDate: [HistoryGaps.Part]], ms: Milliseconds, count: Int) {
        let shown = Set(days.map(\.day))
        var byDay: [CivilDate: [HistoryGaps.Part]] = [:], ms: Milliseconds = 0, count = 0
        for gap in gaps {
            let parts = HistoryGaps.byDay([gap], zone: zone).filter { shown.contains($0.key) }
            if !parts.isEmpty { count += 1 }
            for (day, dayParts) in parts {
                byDay[day, default: []] += dayParts
                ms += dayParts.reduce(Milliseconds.zero) { $0 + ($1.end - $1.start) }
            }
        }
        return (byDay.mapValues { $0.sorted { $0.start < $1.start } }, ms, count)
    }

    /// Where `part` lies in the column `left..<left + pitch` of the day
    /// `dayStart..<dayEnd`: x and width, at least a pixel, inside the column.
    static func offMark(_ part: HistoryGaps.Part, dayStart: WallInstant, dayEnd: WallInstant, left: Int, pitch: Int)
        -> (x: Int, width: Int) {
        let length = Double(max(1, (dayEnd - dayStart).ms))
        func offset(_ instant: WallInstant) -> Int {
            min(pitch, max(0, Int((Double((instant - dayStart).ms) / length * Double(pitch)).rounded())))
        }
        let start = offset(part.start), end = offset(part.end)
        let width = max(1, end - start)
        return (left + min(start, pitch - width), width)
    }

    /// `text` in lines of at most `width` characters, broken at spaces (a
    /// longer word is cut); past `lines` lines the last ends in "…".
    static func wrap(_ text: String, width: Int, lines: Int) -> [String] {
        var result: [String] = [], current = ""
        for word in text.split(separator: " ").map(String.init) {
            var word = word
            while word.count > width {
                if !current.isEmpty { result.append(current); current = "" }
                result.append(String(word.prefix(width)))
                word = String(word.dropFirst(width))
            }
            if current.isEmpty { current = word } else if current.count + 1 + word.count <= width { current += " " + word } else {
                result.append(current)
                current = word
            }
        }
        if !current.isEmpty { result.append(current) }
        guard result.count > lines, lines > 0 else { return result }
        let last = result[lines - 1]
        return Array(result.prefix(lines - 1)) + [(last.count < width ? last : String(last.prefix(width - 1))) + "…"]
    }

    /// "off 3h 05m in 2 gaps".
    static func offTotal(_ ms: Milliseconds, gaps: Int) -> String {
        trn("off {time} in {count} gap", "off {time} in {count} gaps", count: gaps, ["time": duration(ms)])
    }

    /// "2 integrity notes (25m)"; notes of an instant only: "1 integrity note".
    static func noteTotal(_ count: Int, ms: Milliseconds, duration: (Milliseconds) -> String = duration) -> String {
        ms > 0 ? trn("{count} integrity note ({time})", "{count} integrity notes ({time})", count: count, ["time": duration(ms)])
            : trn("{count} integrity note", "{count} integrity notes", count: count)
    }

    /// A square of `size` px at x, y in the notes' color with a white "!" on it.
    static func noteBadge(x: Int, y: Int, size: Int, role: Role) -> (Rect, Text) {
        (Rect(x: x, y: y, width: size, height: size, color: Palette.note, role: role),
         Text(text: "!", x: x + size / 2, y: y + size - 3, size: max(6, size - 3), bold: true,
              color: Palette.background, anchor: .middle))
    }

    /// `06-02`: a day on the chart, its year in the heading.
    /// `06-02`, or as the locale orders a day and its month (`02/06` in French).
    static func monthDay(_ day: CivilDate) -> String {
        let conventions = Translations.current.conventions
        let (month, dayOfMonth) = (zeroPadded(day.month, width: 2), zeroPadded(day.day, width: 2))
        return conventions.dayBeforeMonth ? dayOfMonth + conventions.dateSeparator + month
            : month + conventions.dateSeparator + dayOfMonth
    }

    /// A list under the groups: `title` in bold at `heading`, then a line
    /// each 15 px, a row's date (MM-DD) on its first, its words wrapped to two
    /// lines; as many rows as fit with no line below `limit` (a baseline),
    /// then how many more. Nothing when not even its first line fits.
    /// Returns the texts and the baseline of its last line.
    static func list(_ title: String, _ rows: [(day: CivilDate, words: String)], heading: Int, limit: Int, left: Int)
        -> (texts: [Text], last: Int) {
        typealias G = Geometry
        let first = heading + 20
        guard !rows.isEmpty, first <= limit else { return ([], heading) }
        var texts = [Text(text: title, x: left, y: heading, size: 14, bold: true)]
        let room = (limit - first) / G.listLineHeight + 1
        var line = 0, listed = 0
        for (index, row) in rows.enumerated() {
            let words = wrap(row.words, width: G.listLineCharacters, lines: 2)
            // Room for this one, and for the "and N more" line if others follow.
            guard line + words.count + (index < rows.count - 1 ? 1 : 0) <= room else { break }
            texts.append(Text(text: monthDay(row.day), x: left, y: first + line * G.listLineHeight,
                              size: 11, color: Palette.dimText))
            for text in words {
                texts.append(Text(text: text, x: left + 40, y: first + line * G.listLineHeight, size: 11))
                line += 1
            }
            listed += 1
        }
        if listed < rows.count {
            texts.append(Text(text: trn("and {count} more (see blockerctl history)", "and {count} more (see blockerctl history)",
                                        count: rows.count - listed), x: left,
                              y: first + line * G.listLineHeight, size: 11, color: Palette.dimText))
            line += 1
        }
        return (texts, first + (line - 1) * G.listLineHeight)
    }
}
