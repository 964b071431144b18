/// One thing the ledger must record of opens at a tick.
public enum OpenStep: Equatable, Sendable {
    /// A new open of `group` (its name as configured), of the local day of now.
    case open(group: String, outcome: OpenOutcome, paused: Bool)
    /// A continuation: the open goes on; its `last_seen` becomes now.
    case seen(id: Int64)
    /// A pause left unanswered for another window: its outcome becomes `left`.
    case left(id: Int64)
}

/// Which opens a tick starts, continues or leaves, as a pure function of the
/// config, the groups in front, the book and now (the words are in
/// docs/ARCHITECTURE.md, "Opens"):
/// - only groups with a pause or `opens-per-day` are tracked;
/// - a group whose newest open is `opened` and was seen less than its
///   `after` ago, or is `opened` or `capped` and was in front at the
///   previous tick (`inFrontBefore`: the groups, lowercased), continues it
///   (`seen`); after any other outcome its next appearance is a new open,
///   however soon;
/// - a new open is `opened` while a pass of the group runs, else `capped`
///   when the day already has `opens-per-day` of its opens, else `pausing`
///   when it has a pause, else `opened`;
/// - a group capped today opens nothing more that day (but while a pass
///   of it runs);
/// - an open still `pausing` waits for its answer while its group is in
///   front, and is `left` once it is not;
/// - a window covered by another rule (`coveredOtherwise`: a timed block, a
///   schedule, a daily limit, the opens cap, the balance; not a pause) opens
///   and continues nothing: a covered app is not opened. A pause left for it
///   is still `left`.
///
/// `book.day` must be the local day of `now` (the daemon reads the book so);
/// an open belongs to the day it started, so a continuation across midnight
/// stays yesterday's. `after` is real time: a DST change moves no open.
///
/// While the window stays in front after "Not now", every tick would be a new
/// appearance: the daemon keeps such a window covered (`coveredOtherwise`)
/// until another comes to the front.
public enum OpenGate {
    public static func steps(config: Config, front: [AppGroup], book: OpenBook, coveredOtherwise: Bool,
                             now: WallInstant, inFrontBefore: Set<String> = []) -> [OpenStep] {
        let inFront = Set(front.map { $0.name.lowercased() })
        var steps: [OpenStep] = book.latest.values
            .filter { $0.outcome == .pausing && !inFront.contains($0.group) }
            .sorted { $0.id < $1.id }
            .map { .left(id: $0.id) }
        guard !coveredOtherwise else { return steps }
        for group in front where config.tracksOpens(of: group) {
            let key = group.name.lowercased()
            let latest = book.latest[key]
            if latest?.outcome == .pausing { continue }
            // Capped today: the group stays covered until midnight, and coming
            // back (or the cover flickering over it) is no new open to count.
            if book.cappedToday.contains(key), book.runningPass(key, at: now) == nil {
                if let latest { steps.append(.seen(id: latest.id)) }       // a pass used now continues it
                continue
            }
            // Opened (or capped) and in front at the previous tick too, or opened and
            // back within `after`: the same open. Never after "Not now" or a pause
            // left: coming back is a new open, with a new pause.
            if let latest, latest.outcome == .opened || latest.outcome == .capped,
               inFrontBefore.contains(key) || (latest.outcome == .opened && now - latest.lastSeen < config.openAfter(for: group)) {
                steps.append(.seen(id: latest.id))
                continue
            }
            steps.append(newOpen(config: config, group: group, book: book, now: now))
        }
        return steps
    }

    /// How a new open of `group` goes.
    static func newOpen(config: Config, group: AppGroup, book: OpenBook, now: WallInstant) -> OpenStep {
        let key = group.name.lowercased()
        if book.runningPass(key, at: now) != nil { return .open(group: group.name, outcome: .opened, paused: false) }
        if let cap = group.opensPerDay, book.opensToday[key, default: 0] >= cap {
            return .open(group: group.name, outcome: .capped, paused: false)
        }
        let paused = config.pauseRule(for: group) != nil
        return .open(group: group.name, outcome: paused ? .pausing : .opened, paused: paused)
    }
}
