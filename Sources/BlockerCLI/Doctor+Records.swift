import BlockerCore

/// Doctor's lines on what blockerd recorded: integrity notes, hand edits of
/// the ledger, blind time, strict mode.
extension Doctor {
    /// What blockerd recorded (IntegrityNote): a lock it did not believe, a
    /// stall, another environment, strict mode on the ledger's config.
    static func integrity(_ facts: DoctorFacts) -> DoctorCheck? {
        guard let notes = facts.integrityNotes else { return nil }
        guard !notes.isEmpty else { return DoctorCheck(.ok, "integrity", tr("nothing recorded in the last 7 days")) }
        return DoctorCheck(.warn, "integrity", notes.joined(separator: "; "),
                           fix: tr("see blockerctl history and blockerctl logs"))
    }

    /// Hand edits of blocker.db: blocker runs on, and says so here.
    static func ledgerEdits(_ facts: DoctorFacts) -> DoctorCheck? {
        switch facts.ledgerEdits {
        case nil: return nil
        case let .failure(error)?:
            return DoctorCheck(.warn, "edits", "\(error)", fix: tr("see blockerctl logs"))
        case let .success(edits)? where edits.isEmpty:
            return DoctorCheck(.ok, "edits", tr("the ledger was written by blocker alone"))
        case let .success(edits)?:
            return DoctorCheck(.warn, "edits", edits.map { tr("the ledger was edited outside blocker {what}", ["what": $0]) }.joined(separator: "; "),
                               fix: tr("nothing stops blocker from running; this stays as the record of the edit"))
        }
    }

    static let blindDays: UInt32 = 7

    /// Blind time: blockerd ran, but its probe could not see (how long, and the longest stretch's why).
    static func blind(_ facts: DoctorFacts) -> DoctorCheck? {
        guard let stretches = facts.blindStretches else { return nil }
        guard let longest = stretches.max(by: { $0.to - $0.from < $1.to - $1.from }) else {
            return DoctorCheck(.ok, "blind", tr("the probe answered throughout the last {days} days", ["days": "\(blindDays)"]))
        }
        let total = stretches.reduce(Milliseconds.zero) { $0 + max($1.to - $1.from, 0) }
        return DoctorCheck(.warn, "blind", trn("in the last {days} days the probe could not see for {total} in {count} stretch; the longest: {longest}",
                                               "in the last {days} days the probe could not see for {total} in {count} stretches; the longest: {longest}",
                                               count: stretches.count,
                                               ["days": "\(blindDays)", "total": DurationText.format(total),
                                                "longest": Gap.blindReason(longest.reason) ?? longest.reason]),
                           fix: tr("see blockerctl logs (probe-error) and blockerctl probe; blockerctl history shows when"))
    }

    /// Strict mode, when blockerd has it on: the delay and what waits.
    static func strict(_ facts: DoctorFacts) -> DoctorCheck? {
        guard case let .success(report) = facts.daemon, let delay = report.strictDelayMs else { return nil }
        if let problem = report.configProblem {
            return DoctorCheck(.warn, "strict", tr("on, running on the config in force from the ledger: {problem}", ["problem": "\(problem)"]),
                               fix: tr("fix blocker.toml (blockerctl config check), then blockerctl reload"))
        }
        let pending = report.pendingChanges == 0 ? tr("nothing pending")
            : trn("{count} config change pending (see: blockerctl config pending)",
                  "{count} config changes pending (see: blockerctl config pending)", count: Int(report.pendingChanges))
        return DoctorCheck(.ok, "strict", tr("on: changes that loosen wait {delay}; {pending}", ["delay": DurationText.format(delay), "pending": "\(pending)"]))
    }
}
