import BlockerCore

/// Opens, pauses and passes (issue 23; the words are BlockerCore's Opens.swift):
/// the rows `OpenBook` and the history are read from. Every write but
/// `seeOpen` is committed at once and durably (a pause answered or a pass
/// used must survive a power cut), after the pending tick data, so the rows
/// stay in the order things happened.
extension Ledger {
    private static let openColumns = "id, group_name, day, at_ms, last_seen_ms, outcome, paused, reason"

    /// Outcomes only a pause can end in: a row with one of them has `paused`.
    private static let pauseOutcomes: Set<OpenOutcome> = [.pausing, .notNow, .left, .interrupted]

    /// A row of `opens` (`openColumns`); nil when its day or outcome is not
    /// one this blocker reads (written by hand, or by a newer blocker).
    private static func open(_ row: SQLiteRow) -> OpenRecord? {
        guard let day = CivilDate(iso: row.text(2)), let outcome = OpenOutcome(rawValue: row.text(5)) else { return nil }
        return OpenRecord(id: row.int64(0), group: row.text(1), day: day, at: row.instant(3), lastSeen: row.instant(4),
                          outcome: outcome, paused: row.int64(6) != 0, reason: row.isNull(7) ? nil : row.text(7))
    }

    private static func pass(_ row: SQLiteRow) -> PassRecord {
        PassRecord(id: row.int64(0), group: row.text(1), at: row.instant(2), until: row.instant(3))
    }

    /// The spending before an open or a pass first (as before an earning); a
    /// failure stays pending, is retried by the next commit, and stops nothing.
    private func flushPendingFirst() {
        try? flushPending()
    }

    // MARK: Opens

    /// Records an open of `group` at `at` (its last_seen too), counting for
    /// `day`. An outcome only a pause ends in needs `paused`.
    public func addOpen(group: String, day: CivilDate, at: WallInstant, outcome: OpenOutcome,
                        paused: Bool) throws(StoreError) -> OpenRecord {
        let action = "cannot record the open"
        let key = group.lowercased()
        guard !key.isEmpty else { throw invalid(action, "the group's name is empty") }
        guard paused || !Self.pauseOutcomes.contains(outcome) else {
            throw invalid(action, "an open without a pause cannot be `\(outcome.rawValue)` (only `opened` or `capped`)")
        }
        flushPendingFirst()
        let id = try write(action, durable: true) { () throws(SQLiteError) in
            try database.firstRow("""
                INSERT INTO opens (group_name, day, at_ms, last_seen_ms, outcome, paused) VALUES (?1, ?2, ?3, ?3, ?4, ?5)
                RETURNING id
                """, [.text(key), .text(day.description), .instant(at), .text(outcome.rawValue), .integer(paused ? 1 : 0)]) {
                $0.int64(0)
            } ?? 0
        }
        return OpenRecord(id: id, group: key, day: day, at: at, lastSeen: at, outcome: outcome, paused: paused)
    }

    /// The user answered the pause of open `id` at `at`: "Open" (`.opened`)
    /// or "Not now" (`.notNow`), with the answer to "why now?" if one was
    /// given (blank: none). Only a `pausing` open is answered: anything else
    /// is refused (`StoreError.Reason.notPausing`), so an answer never counts twice.
    public func answerOpen(id: Int64, outcome: OpenOutcome, reason: String?, at: WallInstant) throws(StoreError) {
        let action = "cannot record the answer to the pause"
        guard outcome == .opened || outcome == .notNow else {
            throw invalid(action, "a pause is answered `opened` or `not-now`, not `\(outcome.rawValue)`")
        }
        let given = reason.flatMap { $0.allSatisfy(\.isWhitespace) ? nil : $0 }
        try endPause(id, outcome: outcome, reason: given, at: at, action: action)
    }

    /// The pause of open `id` ended at `at` without an answer: `.left`
    /// (another window came to the front) or `.interrupted` (blockerd
    /// stopping). Only a `pausing` open ends: anything else is refused, as by `answerOpen`.
    public func endPausing(id: Int64, outcome: OpenOutcome, at: WallInstant) throws(StoreError) {
        let action = "cannot record the end of the pause"
        guard outcome == .left || outcome == .interrupted else {
            throw invalid(action, "a pause ends unanswered as `left` or `interrupted`, not `\(outcome.rawValue)`")
        }
        try endPause(id, outcome: outcome, reason: nil, at: at, action: action)
    }

    private func endPause(_ id: Int64, outcome: OpenOutcome, reason: String?, at: WallInstant,
                          action: String) throws(StoreError) {
        func refusal(_ found: OpenOutcome?) -> StoreError {
            StoreError(.notPausing(found: found), path: path, action: action,
                       detail: found.map { "open #\(id) is `\($0.rawValue)` already, not `pausing`" } ?? "there is no open #\(id)")
        }
        // Read first, so a refusal writes nothing.
        let found = try read(action) { () throws(SQLiteError) in
            try database.firstRow("SELECT outcome FROM opens WHERE id = ?", [.integer(id)]) { OpenOutcome(rawValue: $0.text(0)) }
        }
        guard case .pausing? = found else { throw refusal(found ?? nil) }
        flushPendingFirst()
        let ended = try write(action, durable: true) { () throws(SQLiteError) in
            // `pausing` again in the statement: the row cannot have changed since, unless by hand.
            try database.firstRow("""
                UPDATE opens SET outcome = ?1, reason = ?2, last_seen_ms = max(last_seen_ms, ?3)
                WHERE id = ?4 AND outcome = 'pausing' RETURNING id
                """, [.text(outcome.rawValue), reason.map { .text($0) } ?? .null, .instant(at), .integer(id)]) { _ in true } ?? false
        }
        guard ended else { throw refusal(nil) }
    }

    /// Open `id` was in front at `at` (a continuation): its last_seen moves
    /// there with the next tick's commit, like the tick's spending (it moves
    /// only while its app is charged), so a kill -9 loses at most the batch's
    /// 10 s of time in front of it, never a row. `openBook`
    /// counts it at once. It never moves back.
    public func seeOpen(id: Int64, at: WallInstant) {
        pending.see(open: id, at: at)
    }

    /// At start: every open a stopped blockerd left `pausing` becomes
    /// `interrupted`. Returns how many.
    @discardableResult
    public func interruptPausing() throws(StoreError) -> Int {
        flushPendingFirst()
        return try write("cannot record the pauses blockerd's stop interrupted", durable: true) { () throws(SQLiteError) in
            try database.rows("UPDATE opens SET outcome = 'interrupted' WHERE outcome = 'pausing' RETURNING id") { _ in () }.count
        }
    }

    /// Per group, its newest open (by id, of any day): one index lookup
    /// for each group name, found by stepping through `opens_by_group`.
    static let latestOpensQuery = """
        WITH RECURSIVE names(name) AS (
            SELECT min(group_name) FROM opens
            UNION ALL
            SELECT (SELECT min(group_name) FROM opens WHERE group_name > names.name) FROM names WHERE names.name IS NOT NULL
        )
        SELECT \(openColumns) FROM names JOIN opens ON opens.id = (SELECT max(id) FROM opens WHERE group_name = names.name)
        """

    static let opensOnDayQuery = """
        SELECT group_name, count(*), sum(outcome = 'capped') FROM opens WHERE day = ? GROUP BY group_name
        """

    static let passesSinceQuery = "SELECT id, group_name, at_ms, until_ms FROM passes WHERE at_ms >= ? ORDER BY at_ms, id"

    /// What the policy reads: each group's newest open (with its last_seen
    /// not committed yet), the opens and caps of `day`, and the passes used
    /// at or after `passesSince` (the local week's Monday 00:00).
    public func openBook(day: CivilDate, passesSince: WallInstant) throws(StoreError) -> OpenBook {
        var book = OpenBook(day: day)
        try read("cannot read the opens") { () throws(SQLiteError) in
            for case let open? in try database.rows(Self.latestOpensQuery, [], Self.open)
            where open.id > book.latest[open.group]?.id ?? .min {
                book.latest[open.group] = open
            }
            for (group, count, capped) in try database.rows(Self.opensOnDayQuery, [.text(day.description)], {
                ($0.text(0).lowercased(), Int($0.int64(1)), $0.int64(2) > 0)
            }) {
                book.opensToday[group, default: 0] += count
                if capped { book.cappedToday.insert(group) }
            }
            book.passes = try database.rows(Self.passesSinceQuery, [.instant(passesSince)], Self.pass)
        }
        for (group, open) in book.latest {
            if let seen = pending.seen[open.id] { book.latest[group]?.lastSeen = max(open.lastSeen, seen) }
        }
        return book
    }

    // MARK: Passes

    /// Records a pass of `group` from `at` to `until`, counting for `day` in history.
    public func addPass(group: String, day: CivilDate, at: WallInstant, until: WallInstant) throws(StoreError) -> PassRecord {
        let action = "cannot record the pass"
        let key = group.lowercased()
        guard !key.isEmpty else { throw invalid(action, "the group's name is empty") }
        guard until > at else { throw invalid(action, "a pass must end after it starts (from \(at) to \(until))") }
        flushPendingFirst()
        let id = try write(action, durable: true) { () throws(SQLiteError) in
            try database.firstRow("INSERT INTO passes (group_name, day, at_ms, until_ms) VALUES (?, ?, ?, ?) RETURNING id",
                                  [.text(key), .text(day.description), .instant(at), .instant(until)]) { $0.int64(0) } ?? 0
        }
        return PassRecord(id: id, group: key, at: at, until: until)
    }

    // MARK: History

    static let opensHistoryQuery = """
        SELECT day, group_name, count(*), sum(paused), sum(outcome = 'not-now'), sum(outcome = 'left'), sum(outcome = 'capped')
        FROM opens WHERE day BETWEEN ?1 AND ?2 GROUP BY day, group_name
        """

    static let reasonsQuery = """
        SELECT day, group_name, reason FROM opens WHERE day BETWEEN ?1 AND ?2 AND reason IS NOT NULL ORDER BY at_ms, id
        """

    static let passesHistoryQuery = """
        SELECT day, group_name, count(*) FROM passes WHERE day BETWEEN ?1 AND ?2 GROUP BY day, group_name
        """

    /// Per local day and group in `fromDay…toDay` (inclusive), by day then
    /// group: its opens, pauses and how they ended, its passes (by the day
    /// they were used) and the answers to "why now?", oldest first. A row
    /// whose day is not a date (written by hand) is left out.
    public func opensHistory(fromDay: CivilDate, toDay: CivilDate) throws(StoreError) -> [OpenDaySummary] {
        struct Key: Hashable {
            var day: CivilDate
            var group: String
        }
        var summaries: [Key: OpenDaySummary] = [:]
        func update(_ day: String, _ group: String, _ change: (inout OpenDaySummary) -> Void) {
            guard let day = CivilDate(iso: day) else { return }
            let key = Key(day: day, group: group.lowercased())
            change(&summaries[key, default: OpenDaySummary(day: day, group: key.group)])
        }
        let range: [SQLValue] = [.text(fromDay.description), .text(toDay.description)]
        try read("cannot read the history of opens") { () throws(SQLiteError) in
            for (day, group, counts) in try database.rows(Self.opensHistoryQuery, range, { row in
                (row.text(0), row.text(1), (Int32(2)...6).map { Int(row.int64($0)) })
            }) {
                update(day, group) {
                    $0.opens += counts[0]
                    $0.paused += counts[1]
                    $0.notNow += counts[2]
                    $0.left += counts[3]
                    $0.capped += counts[4]
                }
            }
            for (day, group, reason) in try database.rows(Self.reasonsQuery, range, { ($0.text(0), $0.text(1), $0.text(2)) }) {
                update(day, group) { $0.reasons.append(reason) }
            }
            for (day, group, count) in try database.rows(Self.passesHistoryQuery, range, {
                ($0.text(0), $0.text(1), Int($0.int64(2)))
            }) {
                update(day, group) { $0.passes += count }
            }
        }
        return summaries.values.sorted { ($0.day, $0.group) < ($1.day, $1.group) }
    }
}
