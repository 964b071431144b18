import BlockerCore
import BlockerProbes
import BlockerStore
import BlockerSystem

/// Opens, pauses and passes (issue 23): each tick notes the opens the window
/// in front makes (OpenGate, pure) before the meter decides, so a pause
/// covers from the tick its open is seen and nothing of it is charged.
/// Every open and pass is a row committed at once: a restart or a kill -9
/// never loses one or counts one twice.
extension Daemon {
    /// Whether any group has a pause or an opens cap: otherwise no open is
    /// tracked, and a tick costs nothing more than before.
    var tracksOpens: Bool {
        config.groups.contains { config.pauseRule(for: $0) != nil || $0.opensPerDay != nil }
    }

    /// The ledger's book of opens and passes for `day`, read again only on a
    /// new day or after a write changed it.
    func openBook(at wall: WallInstant, day: CivilDate) -> OpenBook {
        if let book = cachedOpenBook, book.day == day { return book }
        do {
            // From the longest pass before the week's start: a pass used late on
            // Sunday still lifts its group after Monday's midnight.
            let since = PassAllowance.weekStart(of: wall, zone: meter.zone) - PassRule.lengths.upperBound
            let book = try ledger.openBook(day: day, passesSince: since)
            cachedOpenBook = book
            return book
        } catch {
            noteStorage(error)
            return OpenBook(day: day)
        }
    }

    /// Before the meter's tick: what the window in front (nil: nobody
    /// looking) makes of the tracked groups' opens, written at once.
    func noteOpens(window: Window?, wall: WallInstant, day: CivilDate) {
        guard tracksOpens else { return }
        // A pause away for the grace was left, at the instant it went away
        // (before the gate: its group back now is a new open).
        for (id, since) in pauseAwaySince.sorted(by: { $0.key < $1.key }) where wall - since >= Self.leaveGrace {
            apply(.left(id: id), app: window?.app ?? "", wall: since, day: day)
        }
        pauseAwaySince = pauseAwaySince.filter { wall - $0.value < Self.leaveGrace }
        let book = openBook(at: wall, day: day)
        let front = window.map { meter.matcher.groups(for: $0) } ?? []
        let decision = meter.decide(window: window, ledger: snapshot(at: wall, day: day), now: wall)
        let coveredOtherwise = decision.shield.map { !$0.reasons.allSatisfy(Self.openReasons.contains) } ?? false
        var steps = OpenGate.steps(config: config, front: front, book: book, coveredOtherwise: coveredOtherwise, now: wall,
                                   inFrontBefore: previousOpensFront)
        previousOpensFront = Set(front.map { $0.name.lowercased() })
        // A shell whose own cover cannot show a pause: no pause there, rather
        // than an app that could never be opened.
        if let shell = covers.shell, !Self.shellsDrawingPauses.contains(shell) {
            steps = steps.map { step in
                guard case let .open(group, .pausing, _) = step else { return step }
                return .open(group: group, outcome: .opened, paused: false)
            }
        }
        // A pause's group out of front is not left yet: a focus flicker (a
        // cover mapping, the window manager passing the focus) is no answer.
        let away = Set(steps.compactMap { step -> Int64? in if case let .left(id) = step { id } else { nil } })
        pauseAwaySince = pauseAwaySince.filter { away.contains($0.key) }
        for id in away where pauseAwaySince[id] == nil { pauseAwaySince[id] = wall }
        steps.removeAll { if case .left = $0 { true } else { false } }
        for step in steps { apply(step, app: window?.app ?? "", wall: wall, day: day) }
    }

    /// How long another window must hold the front before a pause counts as left.
    static let leaveGrace: Milliseconds = .seconds(1)

    /// When the earliest pause out of front counts as left: the loop ticks then.
    public var pauseLeaveDeadline: WallInstant? {
        pauseAwaySince.values.min().map { $0 + Self.leaveGrace }
    }

    /// The shells whose own cover draws the pause and its answers: blocker's
    /// GNOME Shell extension (on KDE blocker-overlay covers: no shell cover).
    static let shellsDrawingPauses: Set<String> = ["gnome-shell"]

    /// How long after "Not now" hid a window the probe may still report it.
    static let hiddenGrace: Milliseconds = .seconds(1)

    /// The window "Not now" hid is on its way out while the probe still
    /// reports it in front (the window manager moves the focus a moment later;
    /// KWin reports after the script that minimized it ran): nothing is in
    /// front then, so it opens nothing and is charged nothing.
    func withoutTheHidden(_ reading: Reading, wall: WallInstant) -> Reading {
        guard let hidden = hiddenByNotNow else { return reading }
        guard wall < hidden.until, let seen = reading.window, Self.same(seen, hidden.window) else {
            hiddenByNotNow = nil
            return reading
        }
        var reading = reading
        reading.window = nil
        return reading
    }

    /// The same window: by its handle where the probe gives one, else its app and process.
    static func same(_ a: Window, _ b: Window) -> Bool {
        a.handle != nil || b.handle != nil ? a.handle == b.handle : (a.app == b.app && a.pid == b.pid)
    }

    /// The shield reasons that come of opens themselves.
    static let openReasons: Set<ShieldReason> = [.pause, .opensCap]

    private func apply(_ step: OpenStep, app: String, wall: WallInstant, day: CivilDate) {
        do throws(StoreError) {
            switch step {
            case let .open(group, outcome, paused):
                let record = try ledger.addOpen(group: group, day: day, at: wall, outcome: outcome, paused: paused)
                cachedOpenBook = nil
                let count = openBook(at: wall, day: day).opensToday[record.group] ?? 1
                log.write(openEvent(record, app: app, count: count))
            case let .seen(id):
                ledger.seeOpen(id: id, at: wall)
                if var book = cachedOpenBook, let group = book.latest.first(where: { $0.value.id == id })?.key {
                    book.latest[group]?.lastSeen = wall
                    cachedOpenBook = book
                }
            case let .left(id):
                if let waiting = notNowWaiting, waiting.id == id,
                   let pausing = openBook(at: wall, day: day).latest.values.first(where: { $0.id == id }) {
                    notNowWaiting = nil
                    do { try record(answer: .notNow, to: pausing, group: pausing.group, reason: waiting.reason, wall: wall) } catch {
                        if case let .storage(error) = error { throw error }
                    }
                    return
                }
                try ledger.endPausing(id: id, outcome: .left, at: wall)
                cachedOpenBook = nil
                log.write(LogEvent(.pauseAnswered, "Pause left: another window came to the front before an answer",
                                   fields: [("OPEN_ID", "\(id)"), ("OUTCOME", OpenOutcome.left.rawValue)]))
            }
        } catch {
            noteStorage(error)
        }
    }

    private func openEvent(_ record: OpenRecord, app: String, count: Int) -> LogEvent {
        let what: String
        switch record.outcome {
        case .capped: what = "over opens-per-day: covered until midnight"
        case .pausing: what = "a pause first"
        default: what = "no pause due"
        }
        return LogEvent(.open, "Open of \(record.group) (\(app)), \(count) today: \(what)",
                        fields: [("GROUP", record.group), ("APP", app), ("OUTCOME", record.outcome.rawValue),
                                 ("OPENS_TODAY", "\(count)"), ("OPEN_ID", "\(record.id)")])
    }

    // MARK: answers and passes

    /// "Open" or "Not now" on `group`'s pause. "Open" before the countdown
    /// ends is refused (the cover enables it only then); "Not now" hides the
    /// window where the desktop lets the probe.
    public func answerPause(group: String, open: Bool, reason: String, wall: WallInstant = WallClock.now) throws(AnswerFailure) {
        let key = group.lowercased()
        let day = meter.zone.localDate(at: wall)
        guard let pausing = openBook(at: wall, day: day).latest[key], pausing.outcome == .pausing else {
            throw .noPause("\(key) has no pause waiting for an answer")
        }
        let countdown = config.group(named: key).flatMap(config.pauseRule(for:))?.seconds ?? 0
        let ends = pausing.at + countdown
        if open && wall < ends {
            throw .tooSoon(tr("the pause before {group} ends at {time}; \"Open\" works from then", ["group": "\(key)", "time": ShieldText.clock(ends, now: wall, zone: meter.zone)]))
        }
        let said = String(reason.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
        if !open, let window = meter.lastWindow {
            switch probe.hide(window) {
            case .hidden: hiddenByNotNow = (window, wall + Self.hiddenGrace)
            case let .unsupported(why), let .failed(why):
                // The pause stays (the app must not open under "Not now") until
                // another window is in front; the answer is recorded then.
                log.write(LogEvent(priority: .info, "\"Not now\" could not hide \(window.app) (\(why)): "
                                   + "the cover stays until another window is in front"))
                notNowWaiting = (pausing.id, said.isEmpty ? nil : said)
                return
            }
        }
        try record(answer: open ? .opened : .notNow, to: pausing, group: key, reason: said.isEmpty ? nil : said, wall: wall)
        redecide(wall: wall)
    }

    private func record(answer outcome: OpenOutcome, to pausing: OpenRecord, group key: String, reason: String?,
                        wall: WallInstant) throws(AnswerFailure) {
        do { try ledger.answerOpen(id: pausing.id, outcome: outcome, reason: reason, at: wall) } catch {
            throw .storage(error)
        }
        cachedOpenBook = nil
        var fields = [("GROUP", key), ("OUTCOME", outcome.rawValue), ("OPEN_ID", "\(pausing.id)")]
        if let reason { fields.append(("REASON", reason)) }
        log.write(LogEvent(.pauseAnswered, "Pause before \(key): \(outcome == .opened ? "opened" : "not now")"
                           + (reason.map { " (why: \($0))" } ?? ""), fields: fields))
    }

    /// Uses one of this week's passes on `group` (a group name of the config).
    public func usePass(group: String, wall: WallInstant = WallClock.now) throws(PassFailure) -> PassRecord {
        guard let found = config.group(named: group) else {
            throw .unknownGroup("no group \"\(group)\" in blocker.toml; groups: "
                                + config.groups.map(\.name).joined(separator: ", "))
        }
        let key = found.name.lowercased()
        let day = meter.zone.localDate(at: wall)
        let book = openBook(at: wall, day: day)
        if let refusal = PassAllowance.check(rule: config.pass, passes: book.passes, now: wall, zone: meter.zone) {
            log.write(LogEvent(.passRefused, "Pass refused for \(key): \(refusal.message)", fields: [("GROUP", key)]))
            throw .refused(refusal.message)
        }
        let length = config.pass?.length ?? 0
        let pass: PassRecord
        do { pass = try ledger.addPass(group: key, day: day, at: wall, until: wall + length) } catch { throw .storage(error) }
        sync?.note(.pass(group: key, until: pass.until), day: day, at: wall)
        cachedOpenBook = nil
        let left = passesLeft(openBook(at: wall, day: day), at: wall) ?? 0
        log.write(LogEvent(.pass, "Emergency pass for \(key): not covered until "
                           + "\(ShieldText.clock(pass.until, now: wall, zone: meter.zone)) (\(DurationText.format(length))); "
                           + "\(left) left this week",
                           fields: [("GROUP", key), ("UNTIL_MS", "\(pass.until)"), ("PASSES_LEFT", "\(left)")]))
        redecide(wall: wall)
        return pass
    }

    /// What a cover shows beside a shield: whether its pause asks "why
    /// now?", and the passes left this week (nil without `[pass]`).
    public func coverExtras(_ shield: Shield?, wall: WallInstant = WallClock.now) -> (askReason: Bool, passesLeft: Int?) {
        let book = openBook(at: wall, day: meter.zone.localDate(at: wall))
        let askReason = shield.flatMap { shield in
            shield.reason == .pause ? shield.group.flatMap(config.group(named:)).flatMap(config.pauseRule(for:)) : nil
        }?.askReason ?? false
        return (askReason, passesLeft(book, at: wall))
    }

    /// This week's passes left; nil without `[pass]`.
    func passesLeft(_ book: OpenBook, at wall: WallInstant) -> Int? {
        config.pass.map { max(0, $0.perWeek - PassAllowance.used(book.passes, now: wall, zone: meter.zone)) }
    }
}

/// Why an answer to a pause was refused.
public enum AnswerFailure: Error, Sendable {
    case noPause(String)
    case tooSoon(String)
    case storage(StoreError)
}

/// Why a pass was refused.
public enum PassFailure: Error, Sendable {
    case unknownGroup(String)
    case refused(String)
    case storage(StoreError)
}
