import BlockerBus
import BlockerCore
import BlockerJSON

/// `blockerctl history [--days N] [--json] [--csv [--gaps | --notes]]`
struct HistoryCommand: BlockerCommand {
    static let daysRange: ClosedRange<UInt32> = 1...366

    static let spec = CommandSpec(
        ["history"],
        abstract: N_("Show earned and used time per day and per group, as a bar chart"),
        options: [
            .value("--days", "N", help: N_("how many days back, today included: 1 to 366 (default 7)")),
            .flag("--json", help: N_("print [{day, earned_ms, used_ms, groups: {NAME: used_ms}, gaps: [...], integrity: [...], opens: [...]}] instead")),
            .flag("--csv", help: N_("print CSV instead: day,group,used_ms,earned_ms,integrity_notes,integrity_ms (group empty: the day's totals)")),
            .flag("--gaps", help: N_("with --csv: the gaps instead: day,start_ms,end_ms,reason,unguarded_ms")),
            .flag("--notes", help: N_("with --csv: the integrity notes instead: day,kind,start_ms,end_ms,text")),
        ],
        discussion: N_("--csv prints the header day,group,used_ms,earned_ms,integrity_notes,integrity_ms, then for each day,\noldest first, its totals row (group empty: metered time used, time earned, how many integrity notes began\nthat day and the time they concerned) and a row per group used that day, by name (earned_ms and the\nintegrity columns 0). Columns are only ever added at the end. Fields with a comma, a double quote or a\nline break are quoted as RFC 4180 says; lines end in LF.\nEach day's gaps (blockerd not running; a gap across midnight is split at it) are in --json as\ngaps: [{start_ms, end_ms, reason, unguarded_ms}], and with --csv --gaps as one row each under the header\nday,start_ms,end_ms,reason,unguarded_ms. unguarded_ms: the part in a graphical session logind still had\nwhen blockerd started again (null in JSON, empty in CSV: logind did not say).\nEach day's integrity notes (what blockerd saw that may have been a way around it, under the day it\nbegan, or the first day asked for when it began before) are lines starting \"!\" in the chart, in --json as\nintegrity: [{kind, start_ms, end_ms, text}] (end_ms - start_ms: the time it concerned, 0 for an\ninstant), and with --csv --notes as one row each under the header day,kind,start_ms,end_ms,text.\nA day with a note is shown even when nothing was earned or used on it.\nEach day's opens of the groups with a pause or opens-per-day, and the passes used, are a line per group\nunder the day in the chart (opens, paused, not now and left with the share given up, capped, passes\nand the reasons given), and in --json opens: [{group, opens, paused, not_now, left, capped, passes,\nreasons}]."))

    let days: UInt32
    let json: Bool
    let csv: Bool
    let gapsCSV: Bool
    let notesCSV: Bool

    init(_ arguments: ParsedArguments) throws(UsageError) {
        json = arguments.flag("--json")
        csv = arguments.flag("--csv")
        gapsCSV = arguments.flag("--gaps")
        notesCSV = arguments.flag("--notes")
        if json && csv { throw UsageError(tr("--json and --csv cannot go together; choose one")) }
        if gapsCSV && !csv { throw UsageError(tr("--gaps goes with --csv (the JSON has the gaps already): history --csv --gaps")) }
        if notesCSV && !csv {
            throw UsageError(tr("--notes goes with --csv (the JSON and the chart have the notes already): history --csv --notes"))
        }
        if gapsCSV && notesCSV { throw UsageError(tr("--gaps and --notes are two tables; choose one")) }
        guard let text = arguments.value("--days") else {
            days = 7
            return
        }
        guard text.count <= 4, text.allSatisfy({ $0.isASCII && $0.isNumber }), let days = UInt32(text),
              Self.daysRange.contains(days) else {
            throw UsageError(tr("--days must be a whole number from 1 to 366, not {text}", ["text": "\(quoted(text))"]))
        }
        self.days = days
    }

    func run(_ context: CommandContext) throws(CommandFailure) {
        let days = self.days
        let zone = context.localClock.zone
        func gaps() -> [Gap] { (try? context.service()).map { HistoryGaps.fetch($0, days: days) } ?? [] }
        func notes() -> [CivilDate: [IntegrityNote]] {
            let now = context.invocation.clock()
            return (try? context.service()).map { HistoryNotes.fetch($0, days: days, now: now, zone: zone) } ?? [:]
        }
        if gapsCSV {
            context.out.output.write(HistoryGaps.csv(HistoryGaps.byDay(gaps(), zone: zone)))
            return
        }
        if notesCSV {
            context.out.output.write(HistoryNotes.csv(notes()))
            return
        }
        let rows = try context.call { service throws(BusFailure) in try service.history(days: days) }
        if csv {
            let notes = notes()
            context.out.output.write(HistoryCSV.render(HistoryDay.days(from: rows, alsoOn: notes.keys), notes: notes))
            return
        }
        let gapsByDay = HistoryGaps.byDay(gaps(), zone: zone)
        let notes = notes()
        let opens = (try? context.service()).map { HistoryOpens.fetch($0, days: days) } ?? [:]
        let history = HistoryDay.days(from: rows, alsoOn: Set(notes.keys).union(opens.keys))
        if json {
            context.out.line(HistoryDay.json(history, gaps: gapsByDay, notes: notes, opens: opens).rendered)
            return
        }
        var offByDay = HistoryOpens.lines(opens)
        offByDay.merge(HistoryChart.offLines(gapsByDay)) { $0 + $1 }
        offByDay.merge(HistoryChart.noteLines(notes, zone: zone)) { $0 + $1 }
        for line in HistoryChart.render(history, columns: context.terminalColumns, printer: context.out, off: offByDay) {
            context.out.line(line)
        }
    }
}

/// One day of history: the day's totals and each group's use.
struct HistoryDay: Equatable {
    struct GroupUse: Equatable {
        var name: String
        var usedMs: Milliseconds
    }

    var day: CivilDate
    var earnedMs: Milliseconds
    /// Metered time spent (a window in two groups counts once here).
    var usedMs: Milliseconds
    /// Most used first.
    var groups: [GroupUse]

    /// Rows → days in date order; the group "" row carries the totals, and
    /// days missing between the first and the last are filled with zeros so
    /// the chart does not hide an empty day. `alsoOn`: days to show even
    /// with no row (a day with an integrity note). A row whose day is not a
    /// date (blockerd writes none) is left out.
    static func days(from rows: [HistoryRow], alsoOn extraDays: some Sequence<CivilDate> = [CivilDate]()) -> [HistoryDay] {
        var byDay: [CivilDate: HistoryDay] = [:]
        for day in extraDays { byDay[day] = HistoryDay(day: day, earnedMs: 0, usedMs: 0, groups: []) }
        for row in rows {
            guard let date = CivilDate(iso: row.day) else { continue }
            var day = byDay[date] ?? HistoryDay(day: date, earnedMs: 0, usedMs: 0, groups: [])
            if row.group.isEmpty {
                day.earnedMs += row.earnedMs
                day.usedMs += row.usedMs
            } else if let index = day.groups.firstIndex(where: { $0.name == row.group }) {
                day.groups[index].usedMs += row.usedMs
            } else {
                day.groups.append(GroupUse(name: row.group, usedMs: row.usedMs))
            }
            byDay[date] = day
        }
        var ordered = byDay.values.sorted { $0.day < $1.day }
        for index in ordered.indices {
            ordered[index].groups.sort { ($0.usedMs, $1.name) > ($1.usedMs, $0.name) }
        }
        return fillingGaps(ordered)
    }

    private static func fillingGaps(_ days: [HistoryDay]) -> [HistoryDay] {
        guard let first = days.first?.day, let last = days.last?.day,
              last.daysSinceEpoch - first.daysSinceEpoch < 4000 else { return days }
        let known = Dictionary(uniqueKeysWithValues: days.map { ($0.day, $0) })
        var result: [HistoryDay] = []
        var date = first
        while date <= last {
            result.append(known[date] ?? HistoryDay(day: date, earnedMs: 0, usedMs: 0, groups: []))
            date = date.adding(days: 1)
        }
        return result
    }

    static func json(_ days: [HistoryDay], gaps: [CivilDate: [HistoryGaps.Part]] = [:],
                     notes: [CivilDate: [IntegrityNote]] = [:], opens: [CivilDate: [OpenDaySummary]] = [:]) -> JSONValue {
        .array(days.map { day in
            .object([
                ("day", .string(day.day.description)),
                ("earned_ms", .integer(day.earnedMs.ms)),
                ("used_ms", .integer(day.usedMs.ms)),
                ("groups", .object(day.groups.sorted { $0.name < $1.name }.map { ($0.name, .integer($0.usedMs.ms)) })),
                ("gaps", .array((gaps[day.day] ?? []).map { part in
                    .object([
                        ("start_ms", .integer(part.start.ms)),
                        ("end_ms", .integer(part.end.ms)),
                        ("reason", .string(part.reason)),
                        ("unguarded_ms", part.unguardedMs.map { JSONValue.integer($0.ms) } ?? .null),
                    ])
                })),
                ("integrity", .array((notes[day.day] ?? []).map { note in
                    .object([
                        ("kind", .string(note.kind.rawValue)),
                        ("start_ms", .integer(note.from.ms)),
                        ("end_ms", .integer(note.to.ms)),
                        ("text", .string(note.text)),
                    ])
                })),
                ("opens", HistoryOpens.json(opens[day.day] ?? [])),
            ])
        })
    }
}

/// Each day's part of the gaps (a gap across midnight counts on both days).
enum HistoryGaps {
    struct Part: Equatable {
        var start: WallInstant
        var end: WallInstant
        var reason: String
        /// nil: logind did not say.
        var unguardedMs: Milliseconds?
    }

    /// Local day → its parts, in the order they happened.
    static func byDay(_ gaps: [Gap], zone: TimeZoneRules) -> [CivilDate: [Part]] {
        var result: [CivilDate: [Part]] = [:]
        for gap in gaps where gap.to > gap.from {
            var start = gap.from
            while start < gap.to {
                let day = zone.localDate(at: start)
                let end = max(start + 1, min(gap.to, zone.startOfDay(day.adding(days: 1))))
                let unguarded = Unguarded.within(start..<end, gapTo: gap.to, unguardedSince: gap.unguardedSince)
                result[day, default: []].append(Part(start: start, end: end, reason: gap.reason,
                                                                 unguardedMs: unguarded))
                start = end
            }
        }
        return result
    }

    /// The gaps overlapping the last `days` days. They are an addition of
    /// this version: an older blockerd lacks GapsEx (the unguarded time), an
    /// older still Gaps; then there are none to show.
    static func fetch(_ service: any BlockerCalls, days: UInt32) -> [Gap] {
        (try? service.gapsEx(days: days)) ?? (try? service.gaps(days: days)) ?? []
    }

    /// A day's part of a gap in words, as history and report write it:
    /// "off 1h 10m (stopped; 1h 09m unguarded)", or for blind time "probe
    /// blind 2m 05s (gnome: GNOME Shell: …)". The unguarded share only
    /// when there was some: 0 (no graphical session logind still had) and
    /// nil (logind did not say) add nothing.
    static func describe(_ part: Part, duration: (Milliseconds) -> String = DurationText.format) -> String {
        if let why = Gap.blindReason(part.reason) {
            return tr("probe blind {duration} ({why})", ["duration": duration(part.end - part.start), "why": why])
        }
        // The reason is the word the ledger keeps (stopped, crashed…): as it is.
        let values = ["duration": duration(part.end - part.start), "reason": part.reason]
        if let unguarded = part.unguardedMs, unguarded > 0 {
            return tr("off {duration} ({reason}; {unguarded} unguarded)", values.merging(["unguarded": duration(unguarded)]) { $1 })
        }
        return tr("off {duration} ({reason})", values)
    }

    static let csvHeader = ["day", "start_ms", "end_ms", "reason", "unguarded_ms"]

    /// `history --csv --gaps`: one row per day's part of a gap, oldest first.
    static func csv(_ byDay: [CivilDate: [Part]]) -> String {
        HistoryCSV.table(csvHeader, byDay) { part in
            [String(part.start.ms), String(part.end.ms), part.reason, part.unguardedMs.map { String($0.ms) } ?? ""]
        }
    }
}

/// The integrity notes (`IntegrityNote`: what blockerd saw that may have
/// been a way around it) as history and report show them, each under one day.
enum HistoryNotes {
    /// The notes overlapping the last `days` local days in `zone` (today is
    /// the one `now` falls on), by day. An older blockerd lacks Notes: none.
    static func fetch(_ service: any BlockerCalls, days: UInt32, now: WallInstant, zone: TimeZoneRules) -> [CivilDate: [IntegrityNote]] {
        let firstDay = zone.localDate(at: now).adding(days: -(Int(days) - 1))
        return byDay((try? service.notes(days: days)) ?? [], firstDay: firstDay, zone: zone)
    }

    /// Each note under the local day it began, in the order given; one that
    /// began before `firstDay` reaches into the days shown, so it is under
    /// `firstDay` rather than left out.
    static func byDay(_ notes: [IntegrityNote], firstDay: CivilDate, zone: TimeZoneRules) -> [CivilDate: [IntegrityNote]] {
        Dictionary(grouping: notes) { max(zone.localDate(at: $0.from), firstDay) }
    }

    /// The time `notes` concerned: the union of their spans, so a stretch
    /// two notes share (a stall while uncovered) counts once.
    static func concernedMs(_ notes: [IntegrityNote]) -> Milliseconds {
        var total: Milliseconds = 0, reached = WallInstant(ms: .min)
        for note in notes.sorted(by: { $0.from < $1.from }) {
            total += max(0, note.to - max(note.from, reached))
            reached = max(reached, note.to)
        }
        return total
    }

    static let csvHeader = ["day", "kind", "start_ms", "end_ms", "text"]

    /// `history --csv --notes`: one row per note, oldest first.
    static func csv(_ byDay: [CivilDate: [IntegrityNote]]) -> String {
        HistoryCSV.table(csvHeader, byDay) { note in [note.kind.rawValue, String(note.from.ms), String(note.to.ms), note.text] }
    }
}

/// `history --csv`: one row per day's totals and per group used that day.
enum HistoryCSV {
    /// New columns go at the end, so a reader of the older ones reads on.
    static let header = ["day", "group", "used_ms", "earned_ms", "integrity_notes", "integrity_ms"]

    static func render(_ days: [HistoryDay], notes: [CivilDate: [IntegrityNote]] = [:]) -> String {
        var lines = [header]
        for day in days {
            let dayNotes = notes[day.day] ?? []
            lines.append([day.day.description, "", String(day.usedMs.ms), String(day.earnedMs.ms), String(dayNotes.count),
                          String(HistoryNotes.concernedMs(dayNotes).ms)])
            for group in day.groups.sorted(by: { $0.name < $1.name }) {
                lines.append([day.day.description, group.name, String(group.usedMs.ms), "0", "0", "0"])
            }
        }
        return document(lines)
    }

    /// `header`, then for each day, oldest first, a row per item: the day and `fields(item)`.
    static func table<Item>(_ header: [String], _ byDay: [CivilDate: [Item]], fields: (Item) -> [String]) -> String {
        document([header] + byDay.keys.sorted().flatMap { day in (byDay[day] ?? []).map { [day.description] + fields($0) } })
    }

    /// The rows as RFC 4180 lines, each ending in LF.
    static func document(_ rows: [[String]]) -> String { rows.map(row).joined(separator: "\n") + "\n" }

    static func row(_ fields: [String]) -> String { fields.map(field).joined(separator: ",") }

    /// RFC 4180: a field with a comma, a double quote or a line break goes in
    /// double quotes, its double quotes doubled.
    static func field(_ text: String) -> String {
        // Scalars, not Characters: "\r\n" is one Character, equal to neither "\r" nor "\n".
        let special: Set<Unicode.Scalar> = [",", "\"", "\n", "\r"]
        guard text.unicodeScalars.contains(where: special.contains) else { return text }
        return "\"" + text.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"") + "\""
    }
}

/// The history as horizontal bars drawn with Unicode blocks (eighths of a
/// cell), one earned and one used bar per day, on a scale shared by all days.
enum HistoryChart {
    /// Left to right: 2025-06-02 Mon, a space, "earned", a space, the bar, a space, the duration.
    /// The day's label and the series' words are as wide as the language makes them.
    static var dayWidth: Int { 11 + (Translations.current.conventions.weekdayAbbreviations.map(\.count).max() ?? 3) + 1 }
    static var seriesWidth: Int { max(tr("earned").count, tr("used").count) + 1 }
    static let valueWidth = 8
    static let minimumBar = 4

    static func barWidth(columns: Int) -> Int {
        max(minimumBar, columns - dayWidth - seriesWidth - valueWidth - 1)
    }

    /// Each day's parts of the gaps as `HistoryGaps.describe` words them, in the order they happened.
    static func offLines(_ gapsByDay: [CivilDate: [HistoryGaps.Part]]) -> [CivilDate: [String]] {
        gapsByDay.mapValues { parts in parts.map { HistoryGaps.describe($0) } }
    }

    /// Each day's integrity notes as `IntegrityNote.line` words them, marked "!".
    static func noteLines(_ notesByDay: [CivilDate: [IntegrityNote]], zone: TimeZoneRules) -> [CivilDate: [String]] {
        notesByDay.mapValues { $0.map { "! " + $0.line(zone: zone) } }
    }

    static func render(_ days: [HistoryDay], columns: Int, printer: Printer, off: [CivilDate: [String]] = [:]) -> [String] {
        guard !days.isEmpty else { return [tr("no history yet: nothing earned or used in these days")] }
        let width = barWidth(columns: columns)
        let scale = days.map { max($0.earnedMs, $0.usedMs) }.max() ?? 0
        var lines: [String] = []
        for day in days {
            let label = dayLabel(day.day).padding(to: dayWidth)
            let blank = String(repeating: " ", count: dayWidth)
            lines.append(label + row(tr("earned"), day.earnedMs, scale: scale, width: width, style: .green, printer: printer))
            lines.append(blank + row(tr("used"), day.usedMs, scale: scale, width: width, style: .yellow, printer: printer))
            if !day.groups.isEmpty {
                let groups = day.groups.map { "\($0.name) \(DurationText.format($0.usedMs))" }.joined(separator: ", ")
                let room = max(8, columns - 1 - dayWidth - seriesWidth)
                let shown = groups.count <= room ? groups : String(groups.prefix(room - 1)) + "…"
                lines.append(blank + String(repeating: " ", count: seriesWidth) + printer.paint(shown, .dim))
            }
            for gap in off[day.day] ?? [] {
                lines.append(blank + String(repeating: " ", count: seriesWidth) + printer.paint(gap, .dim))
            }
        }
        let earned = days.reduce(0) { $0 + $1.earnedMs }, used = days.reduce(0) { $0 + $1.usedMs }
        lines.append("")
        lines.append(trn("{count} day: earned {earned}, used {used}", "{count} days: earned {earned}, used {used}", count: days.count,
                         ["earned": DurationText.format(earned), "used": DurationText.format(used)]))
        return lines
    }

    private static func row(_ series: String, _ ms: Milliseconds, scale: Milliseconds, width: Int,
                            style: Style, printer: Printer) -> String {
        let bar = self.bar(ms, scale: scale, width: width)
        return series.padding(to: seriesWidth) + printer.paint(bar, style) + String(repeating: " ", count: width - bar.count)
            + " " + DurationText.format(ms).leftPadding(to: valueWidth - 1)
    }

    /// The cells for `ms` out of `scale` filling `width` cells, in eighths;
    /// anything above zero shows at least one eighth.
    static func bar(_ ms: Milliseconds, scale: Milliseconds, width: Int) -> String {
        guard ms > 0, scale > 0, width > 0 else { return "" }
        let total = Int64(width) * 8
        let (shown, whole) = (min(ms, scale).ms, scale.ms)
        let (product, overflow) = shown.multipliedReportingOverflow(by: total)
        var eighths = overflow ? Int64(Double(shown) / Double(whole) * Double(total)) : (product + whole / 2) / whole
        eighths = max(1, min(total, eighths))
        let full = Int(eighths / 8), part = Int(eighths % 8)
        return String(repeating: "█", count: full) + (part > 0 ? partialBlocks[part] : "")
    }

    /// Index n: a block n/8 of a cell wide.
    static let partialBlocks = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"]

    /// "2025-06-02 Mon".
    static func dayLabel(_ day: CivilDate) -> String { "\(day) \(day.localWeekdayName)" }
}
