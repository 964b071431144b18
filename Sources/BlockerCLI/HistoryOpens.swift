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
        var parts = [trn("{count} open", "{count} opens", count: row.opens)]
        if row.paused > 0 {
            // The share of pauses given up: what the study of "one sec" reports.
            let givenUp = row.givenUp * 100 / row.paused
            parts.append(trn("{count} paused", "{count} paused", count: row.paused))
            parts.append(tr("{not_now} not now, {left} left ({percent} % given up)",
                            ["not_now": "\(row.notNow)", "left": "\(row.left)", "percent": "\(givenUp)"]))
        }
        if row.capped > 0 { parts.append(trn("{count} capped", "{count} capped", count: row.capped)) }
        if row.passes > 0 { parts.append(trn("{count} pass", "{count} passes", count: row.passes)) }
        if !row.reasons.isEmpty { parts.append(tr("why: {reasons}", ["reasons": row.reasons.joined(separator: "; ")])) }
        return "\(row.group): " + parts.joined(separator: " · ")
    }

    /// The report's shorter line (two of its list's lines): "social: 4 opens, 1 of 3 paused given up, 1 capped, 1 pass; why: bored".
    static func shortLine(_ row: OpenDaySummary) -> String {
        var parts = [trn("{count} open", "{count} opens", count: row.opens)]
        if row.paused > 0 {
            parts.append(trn("{given_up} of {count} paused given up", "{given_up} of {count} paused given up", count: row.paused,
                             ["given_up": "\(row.givenUp)"]))
        }
        if row.capped > 0 { parts.append(trn("{count} capped", "{count} capped", count: row.capped)) }
        if row.passes > 0 { parts.append(trn("{count} pass", "{count} passes", count: row.passes)) }
        return "\(row.group): " + parts.joined(separator: ", ")
            + (row.reasons.isEmpty ? "" : "; " + tr("why: {reasons}", ["reasons": row.reasons.joined(separator: "; ")]))
    }

    /// Each day's lines for the chart.
    static func lines(_ byDay: [CivilDate: [OpenDaySummary]]) -> [CivilDate: [String]] {
        byDay.mapValues { $0.map(line) }
    }
}
