import BlockerBus
import BlockerCore
import BlockerJSON

/// `history`'s part of opens, pauses and passes (issue 23): per day and group.
enum HistoryOpens {
    /// Day → its groups' rows, by group name; none from a blockerd without `Opens`.
    static func fetch(_ service: any BlockerCalls, days: UInt32) -> [CivilDate: [OpenDaySummary]] {
        Dictionary(grouping: (try? service.opens(days: days)) ?? []) { $0.day }
            .mapValues { $0.sorted { $0.group < $1.group } }
    }

    /// `opens: [{group, opens, paused, not_now, left, capped, passes, reasons}]` of a day in `--json`.
    static func json(_ rows: [OpenDaySummary]) -> JSONValue {
        .array(rows.map { row in
            .object([
                ("group", .string(row.group)),
                ("opens", .integer(Int64(row.opens))),
                ("paused", .integer(Int64(row.paused))),
                ("not_now", .integer(Int64(row.notNow))),
                ("left", .integer(Int64(row.left))),
                ("capped", .integer(Int64(row.capped))),
                ("passes", .integer(Int64(row.passes))),
                ("reasons", .array(row.reasons.map { .string($0) })),
            ])
        })
    }

    /// The chart's line for a group's day: "social: 4 opens · 3 paused · 1 not now (33 %) · 1 capped · 1 pass · why: bored".
    static func line(_ row: OpenDaySummary) -> String {
        func count(_ n: Int, _ one: String, _ many: String) -> String { "\(n) \(n == 1 ? one : many)" }
        var parts = [count(row.opens, "open", "opens")]
        if row.paused > 0 {
            // The share of pauses given up: what the study of "one sec" reports.
            let givenUp = row.givenUp * 100 / row.paused
            parts.append("\(row.paused) paused")
            parts.append("\(row.notNow) not now, \(row.left) left (\(givenUp) % given up)")
        }
        if row.capped > 0 { parts.append("\(row.capped) capped") }
        if row.passes > 0 { parts.append(count(row.passes, "pass", "passes")) }
        if !row.reasons.isEmpty { parts.append("why: " + row.reasons.joined(separator: "; ")) }
        return "\(row.group): " + parts.joined(separator: " · ")
    }

    /// The report's shorter line (two of its list's lines): "social: 4 opens, 1 of 3 paused given up, 1 capped, 1 pass; why: bored".
    static func shortLine(_ row: OpenDaySummary) -> String {
        var parts = ["\(row.opens) \(row.opens == 1 ? "open" : "opens")"]
        if row.paused > 0 { parts.append("\(row.givenUp) of \(row.paused) paused given up") }
        if row.capped > 0 { parts.append("\(row.capped) capped") }
        if row.passes > 0 { parts.append("\(row.passes) \(row.passes == 1 ? "pass" : "passes")") }
        return "\(row.group): " + parts.joined(separator: ", ")
            + (row.reasons.isEmpty ? "" : "; why: " + row.reasons.joined(separator: "; "))
    }

    /// Each day's lines for the chart.
    static func lines(_ byDay: [CivilDate: [OpenDaySummary]]) -> [CivilDate: [String]] {
        byDay.mapValues { $0.map(line) }
    }
}
