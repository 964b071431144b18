import BlockerCore
import BlockerSystemd

// io.github.blockerd.Blocker1, declared once: every method's name, arguments,
// results, their encoding both ways and the bounds blockerd holds callers to,
// and every signal. `BlockerExport` builds its vtable and dispatch table from
// here, `BlockerClient` its calls and subscriptions; no member name or
// signature is spelled anywhere else. docs/io.github.blockerd.Blocker1.xml is
// the introspection of what this declares (a test compares it with blockerd's).

public enum BlockerInterface {
    /// `Status() → a{sv} status`: see `StatusReport.busDictionary`.
    public static let status = BlockerMethod<Void, StatusReport>(
        member: "Status", inputs: [], outputs: [BusArgument("status", "a{sv}")],
        writeArguments: { (_: Void, _: BusMessage) throws(SystemdError) in },
        readArguments: { (_: BusMessage) throws(SystemdError) in },
        check: { (_: Void) in nil },
        perform: { (handler: any BlockerMethods, _: Void) throws(MethodError) in try handler.status() },
        writeReply: { (status: StatusReport, reply: BusMessage) throws(SystemdError) in
            try reply.append(status.busDictionary)
        },
        readReply: { (reply: BusMessage) throws(WireMismatch) -> StatusReport in
            try WireMismatch.readDictionary(reply, StatusReport.init(busDictionary:))
        })

    /// `Earn(s exercise, u reps) → (x earned_ms, x balance_ms)`; "" names the only exercise.
    public static let earn = BlockerMethod<(exercise: String, reps: UInt32), (earnedMs: Milliseconds, balanceMs: Milliseconds)>(
        member: "Earn", inputs: [BusArgument("exercise", "s"), BusArgument("reps", "u")],
        outputs: [BusArgument("earned_ms", "x"), BusArgument("balance_ms", "x")],
        writeArguments: { (arguments: (exercise: String, reps: UInt32), call: BusMessage) throws(SystemdError) in
            try call.append(arguments.exercise)
            try call.append(arguments.reps)
        },
        readArguments: { (call: BusMessage) throws(SystemdError) in (try call.readString(), try call.readUInt32()) },
        check: { (arguments: (exercise: String, reps: UInt32)) -> MethodError? in
            if let long = tooLong(arguments.exercise, what: tr("an exercise name"), outcome: tr("nothing was credited")) {
                return long
            }
            guard BlockerLimits.reps.contains(arguments.reps) else {
                return .invalidArgument(
                    "reps must be a whole number from 1 to 1000 (got \(arguments.reps)); nothing was credited")
            }
            return nil
        },
        perform: { (handler: any BlockerMethods, arguments: (exercise: String, reps: UInt32)) throws(MethodError) in
            try handler.earn(exercise: arguments.exercise, reps: arguments.reps)
        },
        writeReply: { (result: (earnedMs: Milliseconds, balanceMs: Milliseconds), reply: BusMessage) throws(SystemdError) in
            try reply.append(result.earnedMs)
            try reply.append(result.balanceMs)
        },
        readReply: { (reply: BusMessage) throws(WireMismatch) -> (earnedMs: Milliseconds, balanceMs: Milliseconds) in
            do throws(SystemdError) {
                return (try reply.readMilliseconds(), try reply.readMilliseconds())
            } catch { throw WireMismatch(error) }
        })

    /// `EarnOnce(s request_id, s exercise, u reps) → (x earned_ms, x balance_ms)`:
    /// `Earn`, and a call again with the same request_id (a retry after a
    /// timeout) is answered with the first one's earned_ms and the balance now.
    public static let earnOnce = BlockerMethod<(requestID: String, exercise: String, reps: UInt32), (earnedMs: Milliseconds, balanceMs: Milliseconds)>(
        member: "EarnOnce", inputs: [BusArgument("request_id", "s"), BusArgument("exercise", "s"), BusArgument("reps", "u")],
        outputs: earn.outputs,
        writeArguments: { (arguments: (requestID: String, exercise: String, reps: UInt32), call: BusMessage) throws(SystemdError) in
            try call.append(arguments.requestID)
            try earn.writeArguments((arguments.exercise, arguments.reps), call)
        },
        readArguments: { (call: BusMessage) throws(SystemdError) in
            let requestID = try call.readString()
            let (exercise, reps) = try earn.readArguments(call)
            return (requestID, exercise, reps)
        },
        check: { (arguments: (requestID: String, exercise: String, reps: UInt32)) -> MethodError? in
            guard BlockerLimits.requestIDBytes.contains(arguments.requestID.utf8.count) else {
                return .invalidArgument(tr("a request id is 1 to {limit} bytes (got {bytes}); nothing was credited", ["limit": "\(BlockerLimits.requestIDBytes.upperBound)", "bytes": "\(arguments.requestID.utf8.count)"]))
            }
            return earn.check((arguments.exercise, arguments.reps))
        },
        perform: { (handler: any BlockerMethods, arguments: (requestID: String, exercise: String, reps: UInt32)) throws(MethodError) in
            try handler.earnOnce(requestID: arguments.requestID, exercise: arguments.exercise, reps: arguments.reps)
        },
        writeReply: earn.writeReply,
        readReply: earn.readReply)

    /// `BlockFor(s target, t seconds) → x until_ms`: a group, or an app listed in one.
    public static let blockFor = BlockerMethod<(target: String, seconds: UInt64), WallInstant>(
        member: "BlockFor", inputs: [BusArgument("target", "s"), BusArgument("seconds", "t")],
        outputs: [BusArgument("until_ms", "x")],
        writeArguments: { (arguments: (target: String, seconds: UInt64), call: BusMessage) throws(SystemdError) in
            try call.append(arguments.target)
            try call.append(arguments.seconds)
        },
        readArguments: { (call: BusMessage) throws(SystemdError) in (try call.readString(), try call.readUInt64()) },
        check: { (arguments: (target: String, seconds: UInt64)) -> MethodError? in
            if let long = tooLong(arguments.target, what: tr("a target"), outcome: tr("nothing was blocked")) { return long }
            let seconds = arguments.seconds
            guard BlockerLimits.blockSeconds.contains(seconds) else {
                let shown = seconds <= 1_000_000_000 ? DurationText.format(.seconds(Int64(seconds))) : "\(seconds) seconds"
                return .invalidArgument(
                    "a block lasts from 1 minute to 7 days (60 to 604800 seconds), not \(shown); nothing was blocked")
            }
            return nil
        },
        perform: { (handler: any BlockerMethods, arguments: (target: String, seconds: UInt64)) throws(MethodError) in
            try handler.blockFor(target: arguments.target, seconds: arguments.seconds)
        },
        writeReply: { (until: WallInstant, reply: BusMessage) throws(SystemdError) in try reply.append(until) },
        readReply: { (reply: BusMessage) throws(WireMismatch) -> WallInstant in
            do throws(SystemdError) { return try reply.readWallInstant() } catch { throw WireMismatch(error) }
        })

    /// `Unblock(s target)`: ends the timed block on it.
    public static let unblock = BlockerMethod<String, Void>(
        member: "Unblock", inputs: [BusArgument("target", "s")], outputs: [],
        writeArguments: { (target: String, call: BusMessage) throws(SystemdError) in try call.append(target) },
        readArguments: { (call: BusMessage) throws(SystemdError) in try call.readString() },
        check: { (target: String) -> MethodError? in tooLong(target, what: tr("a target"), outcome: tr("nothing was unblocked")) },
        perform: { (handler: any BlockerMethods, target: String) throws(MethodError) in try handler.unblock(target: target) },
        writeReply: { (_: Void, _: BusMessage) throws(SystemdError) in },
        readReply: { (_: BusMessage) throws(WireMismatch) in })

    /// `History(u days) → a(ssxx) rows`: see `HistoryRow`.
    public static let history = BlockerMethod<UInt32, [HistoryRow]>(
        member: "History", inputs: [BusArgument("days", "u")], outputs: [BusArgument("rows", "a(ssxx)")],
        writeArguments: { (days: UInt32, call: BusMessage) throws(SystemdError) in try call.append(days) },
        readArguments: { (call: BusMessage) throws(SystemdError) in try call.readUInt32() },
        check: { (days: UInt32) -> MethodError? in
            BlockerLimits.historyDays.contains(days) ? nil : .invalidArgument(tr("history covers 1 to 366 days (got {days})", ["days": "\(days)"]))
        },
        perform: { (handler: any BlockerMethods, days: UInt32) throws(MethodError) in try handler.history(days: days) },
        writeReply: { (rows: [HistoryRow], reply: BusMessage) throws(SystemdError) in
            try reply.appendArray(rows, of: "(ssxx)") { (row: HistoryRow) throws(SystemdError) in
                try reply.appendStruct("ssxx") { () throws(SystemdError) in
                    try reply.append(row.day)
                    try reply.append(row.group)
                    try reply.append(row.usedMs)
                    try reply.append(row.earnedMs)
                }
            }
        },
        readReply: { (reply: BusMessage) throws(WireMismatch) -> [HistoryRow] in
            do throws(SystemdError) {
                return try reply.readArray(of: "(ssxx)") { () throws(SystemdError) in
                    try reply.readStruct("ssxx") { () throws(SystemdError) in
                        HistoryRow(day: try reply.readString(), group: try reply.readString(),
                                   usedMs: try reply.readMilliseconds(), earnedMs: try reply.readMilliseconds())
                    }
                }
            } catch { throw WireMismatch(error) }
        })

    /// `Reload()`: re-reads blocker.toml; a bad one is a ConfigError and the old one stays.
    public static let reload = BlockerMethod<Void, Void>(
        member: "Reload", inputs: [], outputs: [],
        writeArguments: { (_: Void, _: BusMessage) throws(SystemdError) in },
        readArguments: { (_: BusMessage) throws(SystemdError) in },
        check: { (_: Void) in nil },
        perform: { (handler: any BlockerMethods, _: Void) throws(MethodError) in try handler.reload() },
        writeReply: { (_: Void, _: BusMessage) throws(SystemdError) in },
        readReply: { (_: BusMessage) throws(WireMismatch) in })

    /// `PendingChanges() → a(xxas) changes`: (apply_ms, received_ms, lines), soonest first.
    public static let pendingChanges = BlockerMethod<Void, [PendingChange]>(
        member: "PendingChanges", inputs: [], outputs: [BusArgument("changes", "a(xxas)")],
        writeArguments: { (_: Void, _: BusMessage) throws(SystemdError) in },
        readArguments: { (_: BusMessage) throws(SystemdError) in },
        check: { (_: Void) in nil },
        perform: { (handler: any BlockerMethods, _: Void) throws(MethodError) in try handler.pendingChanges() },
        writeReply: { (changes: [PendingChange], reply: BusMessage) throws(SystemdError) in
            try reply.appendArray(changes, of: "(xxas)") { (change: PendingChange) throws(SystemdError) in
                try reply.appendStruct("xxas") { () throws(SystemdError) in
                    try reply.append(change.applyAt)
                    try reply.append(change.receivedAt)
                    try reply.appendArray(change.changes, of: "s") { (line: String) throws(SystemdError) in try reply.append(line) }
                }
            }
        },
        readReply: { (reply: BusMessage) throws(WireMismatch) -> [PendingChange] in
            do throws(SystemdError) {
                return try reply.readArray(of: "(xxas)") { () throws(SystemdError) in
                    try reply.readStruct("xxas") { () throws(SystemdError) in
                        PendingChange(applyAt: try reply.readWallInstant(), receivedAt: try reply.readWallInstant(),
                                      changes: try reply.readArray(of: "s") { () throws(SystemdError) in try reply.readString() })
                    }
                }
            } catch { throw WireMismatch(error) }
        })

    /// `CancelPending() → u cancelled`: the waiting loosenings never apply.
    public static let cancelPending = BlockerMethod<Void, UInt32>(
        member: "CancelPending", inputs: [], outputs: [BusArgument("cancelled", "u")],
        writeArguments: { (_: Void, _: BusMessage) throws(SystemdError) in },
        readArguments: { (_: BusMessage) throws(SystemdError) in },
        check: { (_: Void) in nil },
        perform: { (handler: any BlockerMethods, _: Void) throws(MethodError) in try handler.cancelPending() },
        writeReply: { (count: UInt32, reply: BusMessage) throws(SystemdError) in try reply.append(count) },
        readReply: { (reply: BusMessage) throws(WireMismatch) -> UInt32 in
            do throws(SystemdError) { return try reply.readUInt32() } catch { throw WireMismatch(error) }
        })

    /// `Gaps(u days) → a(xxs) gaps`: (from_ms, to_ms, reason), oldest first.
    public static let gaps = BlockerMethod<UInt32, [Gap]>(
        member: "Gaps", inputs: [BusArgument("days", "u")], outputs: [BusArgument("gaps", "a(xxs)")],
        writeArguments: { (days: UInt32, call: BusMessage) throws(SystemdError) in try call.append(days) },
        readArguments: { (call: BusMessage) throws(SystemdError) in try call.readUInt32() },
        check: { (days: UInt32) -> MethodError? in
            BlockerLimits.historyDays.contains(days) ? nil : .invalidArgument(tr("gaps cover 1 to 366 days (got {days})", ["days": "\(days)"]))
        },
        perform: { (handler: any BlockerMethods, days: UInt32) throws(MethodError) in try handler.gaps(days: days) },
        writeReply: { (rows: [Gap], reply: BusMessage) throws(SystemdError) in
            try reply.appendArray(rows, of: "(xxs)") { (row: Gap) throws(SystemdError) in
                try reply.appendStruct("xxs") { () throws(SystemdError) in
                    try reply.append(row.from)
                    try reply.append(row.to)
                    try reply.append(row.reason)
                }
            }
        },
        readReply: { (reply: BusMessage) throws(WireMismatch) -> [Gap] in
            do throws(SystemdError) {
                return try reply.readArray(of: "(xxs)") { () throws(SystemdError) in
                    try reply.readStruct("xxs") { () throws(SystemdError) in
                        Gap(from: try reply.readWallInstant(), to: try reply.readWallInstant(), reason: try reply.readString())
                    }
                }
            } catch { throw WireMismatch(error) }
        })

    /// `GapsEx(u days) → a(xxsx) gaps`: `Gaps` and where each gap's unguarded
    /// part begins (unix ms, up to to_ms; -1: logind did not say).
    public static let gapsEx = BlockerMethod<UInt32, [Gap]>(
        member: "GapsEx", inputs: [BusArgument("days", "u")], outputs: [BusArgument("gaps", "a(xxsx)")],
        writeArguments: { (days: UInt32, call: BusMessage) throws(SystemdError) in try call.append(days) },
        readArguments: { (call: BusMessage) throws(SystemdError) in try call.readUInt32() },
        check: { (days: UInt32) -> MethodError? in
            BlockerLimits.historyDays.contains(days) ? nil : .invalidArgument(tr("gaps cover 1 to 366 days (got {days})", ["days": "\(days)"]))
        },
        perform: { (handler: any BlockerMethods, days: UInt32) throws(MethodError) in try handler.gapsEx(days: days) },
        writeReply: { (rows: [Gap], reply: BusMessage) throws(SystemdError) in
            try reply.appendArray(rows, of: "(xxsx)") { (row: Gap) throws(SystemdError) in
                try reply.appendStruct("xxsx") { () throws(SystemdError) in
                    try reply.append(row.from)
                    try reply.append(row.to)
                    try reply.append(row.reason)
                    try reply.append(row.unguardedSince?.ms ?? -1)
                }
            }
        },
        readReply: { (reply: BusMessage) throws(WireMismatch) -> [Gap] in
            do throws(SystemdError) {
                return try reply.readArray(of: "(xxsx)") { () throws(SystemdError) in
                    try reply.readStruct("xxsx") { () throws(SystemdError) in
                        let from = try reply.readWallInstant(), to = try reply.readWallInstant(), reason = try reply.readString()
                        let since = try reply.readInt64()
                        return Gap(from: from, to: to, reason: reason, unguardedSince: since < 0 ? nil : WallInstant(ms: since))
                    }
                }
            } catch { throw WireMismatch(error) }
        })

    /// `CoverShown(b shown)`: blocker-overlay says it has drawn its cover
    /// (at its first frame) or hidden it, and says false once as it starts,
    /// so blockerd knows its process before it ever draws. blockerd checks
    /// the caller's process (`/proc/PID/exe` of the sender's pid) and refuses
    /// any other program with AccessDenied. The caller is the message's
    /// sender, never an argument.
    public static let coverShown = BlockerMethod<(shown: Bool, caller: String), Void>(
        member: "CoverShown", inputs: [BusArgument("shown", "b")], outputs: [],
        writeArguments: { (arguments: (shown: Bool, caller: String), call: BusMessage) throws(SystemdError) in
            try call.append(arguments.shown)
        },
        readArguments: { (call: BusMessage) throws(SystemdError) in (try call.readBool(), call.sender ?? "") },
        check: { (_: (shown: Bool, caller: String)) in nil },
        perform: { (handler: any BlockerMethods, arguments: (shown: Bool, caller: String)) throws(MethodError) in
            try handler.coverShown(arguments.shown, caller: arguments.caller)
        },
        writeReply: { (_: Void, _: BusMessage) throws(SystemdError) in },
        readReply: { (_: BusMessage) throws(WireMismatch) in })

    /// `Notes(u days) → a(sxxs) notes`: (kind, from_ms, to_ms, text), oldest
    /// first; a kind this client does not know is left out.
    public static let notes = BlockerMethod<UInt32, [IntegrityNote]>(
        member: "Notes", inputs: [BusArgument("days", "u")], outputs: [BusArgument("notes", "a(sxxs)")],
        writeArguments: { (days: UInt32, call: BusMessage) throws(SystemdError) in try call.append(days) },
        readArguments: { (call: BusMessage) throws(SystemdError) in try call.readUInt32() },
        check: { (days: UInt32) -> MethodError? in
            BlockerLimits.historyDays.contains(days) ? nil : .invalidArgument(tr("notes cover 1 to 366 days (got {days})", ["days": "\(days)"]))
        },
        perform: { (handler: any BlockerMethods, days: UInt32) throws(MethodError) in try handler.notes(days: days) },
        writeReply: { (rows: [IntegrityNote], reply: BusMessage) throws(SystemdError) in
            try reply.appendArray(rows, of: "(sxxs)") { (row: IntegrityNote) throws(SystemdError) in
                try reply.appendStruct("sxxs") { () throws(SystemdError) in
                    try reply.append(row.kind.rawValue)
                    try reply.append(row.from)
                    try reply.append(row.to)
                    try reply.append(row.text)
                }
            }
        },
        readReply: { (reply: BusMessage) throws(WireMismatch) -> [IntegrityNote] in
            do throws(SystemdError) {
                return try reply.readArray(of: "(sxxs)") { () throws(SystemdError) -> IntegrityNote? in
                    try reply.readStruct("sxxs") { () throws(SystemdError) -> IntegrityNote? in
                        let kind = try reply.readString(), from = try reply.readWallInstant(), to = try reply.readWallInstant()
                        let text = try reply.readString()
                        return IntegrityNote.Kind(rawValue: kind).map { IntegrityNote(kind: $0, from: from, to: to, text: text) }
                    }
                }.compactMap { $0 }
            } catch { throw WireMismatch(error) }
        })

    /// Every method, in the order introspection lists them.
    static let routes: [MethodRoute] = [status.route, earn.route, blockFor.route, unblock.route, history.route,
                                        reload.route, pendingChanges.route, cancelPending.route, gaps.route,
                                        gapsEx.route, coverShown.route, earnOnce.route, notes.route,
                                        usePass.route, answerPause.route, opens.route, reportTab.route]

    /// `ShieldChanged(a{sv} shield)`, on every change, at once: see `ShieldState.busDictionary`.
    public static let shieldChanged = BlockerSignal<ShieldState>(
        member: "ShieldChanged", fields: [BusArgument("shield", "a{sv}")],
        write: { (shield: ShieldState, signal: BusMessage) throws(SystemdError) in try signal.append(shield.busDictionary) },
        read: { (signal: BusMessage) throws(WireMismatch) -> ShieldState in
            try WireMismatch.readDictionary(signal, ShieldState.init(busDictionary:))
        })

    /// `BalanceChanged(x balance_ms)`: at an earning, when spending starts or stops, and at each commit (every 10 s while spending).
    public static let balanceChanged = BlockerSignal<Milliseconds>(
        member: "BalanceChanged", fields: [BusArgument("balance_ms", "x")],
        write: { (balance: Milliseconds, signal: BusMessage) throws(SystemdError) in try signal.append(balance) },
        read: { (signal: BusMessage) throws(WireMismatch) -> Milliseconds in
            do throws(SystemdError) { return try signal.readMilliseconds() } catch { throw WireMismatch(error) }
        })

    /// `Warning(x remaining_ms)`, at each `[warn] before` threshold crossed.
    public static let warning = BlockerSignal<Milliseconds>(
        member: "Warning", fields: [BusArgument("remaining_ms", "x")],
        write: { (remaining: Milliseconds, signal: BusMessage) throws(SystemdError) in try signal.append(remaining) },
        read: { (signal: BusMessage) throws(WireMismatch) -> Milliseconds in
            do throws(SystemdError) { return try signal.readMilliseconds() } catch { throw WireMismatch(error) }
        })

    static let signals: [BusSignalSpec] = [shieldChanged.spec, balanceChanged.spec, warning.spec]

    /// Refuses a name too long to be one, before anything looks it up or quotes it.
    static func tooLong(_ text: String, what: String, outcome: String) -> MethodError? {
        let bytes = text.utf8.count
        guard bytes > BlockerLimits.nameBytes else { return nil }
        return .invalidArgument(tr("{what} is at most {limit} bytes, not {bytes}; {outcome}", ["what": "\(what)", "limit": "\(BlockerLimits.nameBytes)", "bytes": "\(bytes)", "outcome": "\(outcome)"]))
    }
}
