import BlockerCore
import BlockerSystemd

// The methods of opens, pauses and passes (issue 23): declared as every
// other method (BlockerInterface.swift), in a file of their own.
extension BlockerInterface {
    /// `UsePass(s group) → x until_ms`: an emergency pass lifts the group's
    /// shield (a block, a schedule, a daily limit, the opens cap, a zero
    /// balance) until `until_ms`, also in strict mode; refused when `[pass]`
    /// allows none this week, saying when the next comes.
    public static let usePass = BlockerMethod<String, WallInstant>(
        member: "UsePass", inputs: [BusArgument("group", "s")], outputs: [BusArgument("until_ms", "x")],
        writeArguments: { (group: String, call: BusMessage) throws(SystemdError) in try call.append(group) },
        readArguments: { (call: BusMessage) throws(SystemdError) in try call.readString() },
        check: { (group: String) -> MethodError? in tooLong(group, what: tr("a group name"), outcome: tr("no pass was used")) },
        perform: { (handler: any BlockerMethods, group: String) throws(MethodError) in try handler.usePass(group: group) },
        writeReply: { (until: WallInstant, reply: BusMessage) throws(SystemdError) in try reply.append(until) },
        readReply: { (reply: BusMessage) throws(WireMismatch) -> WallInstant in
            do throws(SystemdError) { return try reply.readWallInstant() } catch { throw WireMismatch(error) }
        })

    /// `AnswerPause(s group, b open, s reason)`: the answer to the pause
    /// before `group` opens: `open` true ("Open", refused until the countdown
    /// ends) or false ("Not now": blockerd hides the window where the desktop
    /// lets it). `reason`: the "why now?" line, "" when none; recorded.
    public static let answerPause = BlockerMethod<(group: String, open: Bool, reason: String), Void>(
        member: "AnswerPause", inputs: [BusArgument("group", "s"), BusArgument("open", "b"), BusArgument("reason", "s")],
        outputs: [],
        writeArguments: { (arguments: (group: String, open: Bool, reason: String), call: BusMessage) throws(SystemdError) in
            try call.append(arguments.group)
            try call.append(arguments.open)
            try call.append(arguments.reason)
        },
        readArguments: { (call: BusMessage) throws(SystemdError) in (try call.readString(), try call.readBool(), try call.readString()) },
        check: { (arguments: (group: String, open: Bool, reason: String)) -> MethodError? in
            if let long = tooLong(arguments.group, what: tr("a group name"), outcome: tr("the pause stays")) { return long }
            let bytes = arguments.reason.utf8.count
            guard bytes <= BlockerLimits.reasonBytes else {
                return .invalidArgument(tr("a reason is at most {limit} bytes, not {bytes}; the pause stays", ["limit": "\(BlockerLimits.reasonBytes)", "bytes": "\(bytes)"]))
            }
            return nil
        },
        perform: { (handler: any BlockerMethods, arguments: (group: String, open: Bool, reason: String)) throws(MethodError) in
            try handler.answerPause(group: arguments.group, open: arguments.open, reason: arguments.reason)
        },
        writeReply: { (_: Void, _: BusMessage) throws(SystemdError) in },
        readReply: { (_: BusMessage) throws(WireMismatch) in })

    /// `Opens(u days) → a(ssuuuuuuas) rows`: per local day and group, oldest
    /// first: (day, group, opens, paused, not_now, left, capped, passes, reasons).
    public static let opens = BlockerMethod<UInt32, [OpenDaySummary]>(
        member: "Opens", inputs: [BusArgument("days", "u")], outputs: [BusArgument("rows", "a(ssuuuuuuas)")],
        writeArguments: { (days: UInt32, call: BusMessage) throws(SystemdError) in try call.append(days) },
        readArguments: { (call: BusMessage) throws(SystemdError) in try call.readUInt32() },
        check: { (days: UInt32) -> MethodError? in
            BlockerLimits.historyDays.contains(days) ? nil : .invalidArgument(tr("opens cover 1 to 366 days (got {days})", ["days": "\(days)"]))
        },
        perform: { (handler: any BlockerMethods, days: UInt32) throws(MethodError) in try handler.opens(days: days) },
        writeReply: { (rows: [OpenDaySummary], reply: BusMessage) throws(SystemdError) in
            try reply.appendArray(rows, of: "(ssuuuuuuas)") { (row: OpenDaySummary) throws(SystemdError) in
                try reply.appendStruct("ssuuuuuuas") { () throws(SystemdError) in
                    try reply.append(row.day.description)
                    try reply.append(row.group)
                    for count in [row.opens, row.paused, row.notNow, row.left, row.capped, row.passes] {
                        try reply.append(UInt32(clamping: count))
                    }
                    try reply.appendArray(row.reasons, of: "s") { (reason: String) throws(SystemdError) in try reply.append(reason) }
                }
            }
        },
        readReply: { (reply: BusMessage) throws(WireMismatch) -> [OpenDaySummary] in
            do throws(SystemdError) {
                return try reply.readArray(of: "(ssuuuuuuas)") { () throws(SystemdError) -> OpenDaySummary? in
                    try reply.readStruct("ssuuuuuuas") { () throws(SystemdError) -> OpenDaySummary? in
                        let day = try reply.readString(), group = try reply.readString()
                        var counts: [Int] = []
                        for _ in 0..<6 { counts.append(Int(try reply.readUInt32())) }
                        let reasons = try reply.readArray(of: "s") { () throws(SystemdError) in try reply.readString() }
                        // A day this client cannot read is left out, as a note of an unknown kind is.
                        return CivilDate(iso: day).map {
                            OpenDaySummary(day: $0, group: group, opens: counts[0], paused: counts[1], notNow: counts[2],
                                           left: counts[3], capped: counts[4], passes: counts[5], reasons: reasons)
                        }
                    }
                }.compactMap { $0 }
            } catch { throw WireMismatch(error) }
        })
}
