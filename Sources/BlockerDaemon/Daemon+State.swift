import BlockerCore
import BlockerStore

/// Today's committed totals as read from the ledger, and the balance then:
/// until the next commit only pending debits move the balance, all of them
/// today's, so the day's use follows from the balance without a query.
struct TodayRead {
    var day: CivilDate
    var commits: Int
    var edits: Int
    var balance: Milliseconds
    var usedMs: Milliseconds
    var earnedMs: Milliseconds
}

extension DaemonSnapshot {
    /// Before the daemon's first state is built.
    static let none = DaemonSnapshot(
        balanceMs: 0, openSpend: nil, front: nil, decision: .nothingInFront, shield: nil,
        today: Today(day: CivilDate(daysSinceEpoch: 0), usedMs: 0, earnedMs: 0),
        probe: ProbeHealth(name: "", error: nil), locked: false, storageError: nil,
        strict: StrictState(delayMs: nil, pending: [], configProblem: nil), exercises: [], systemConfig: nil)
}

extension Daemon {
    /// Builds the state as of `wall` (on the local `day`, computed once a
    /// tick by the caller) and publishes it when it differs from the last.
    func publish(wall: WallInstant, day: CivilDate? = nil, afterEarning: Bool = false) {
        let day = day ?? meter.zone.localDate(at: wall)
        let balance = spendable
        let next = DaemonSnapshot(
            balanceMs: balance, openSpend: meter.openSpend, front: meter.lastWindow, decision: meter.lastDecision,
            // Today's use follows this machine's own spending, not what the others' records change.
            shield: shield, today: todayTotals(day, balance: sync?.ownBalance ?? balance),
            probe: DaemonSnapshot.ProbeHealth(name: probe.name, error: probeError), locked: locked,
            storageError: storageError,
            // One version (nothing waits), as almost always: no list to build.
            strict: DaemonSnapshot.StrictState(delayMs: config.strict.delay,
                                               pending: configVersions.count > 1 ? pendingChanges(now: wall) : [],
                                               configProblem: configProblem),
            exercises: config.exercises, systemConfig: configFile.systemDefault ? configFile.path : nil,
            afterEarning: afterEarning, browsersWithoutExtension: browsersWithoutExtension.sorted(), sync: syncStatus)
        guard next != state else { return }
        state = next
        stateVersion &+= 1
    }

    /// `day`'s use and earnings, pending writes included: read from the
    /// ledger after each commit (or a hand edit found), followed from the
    /// balance between.
    private func todayTotals(_ day: CivilDate, balance: Milliseconds) -> DaemonSnapshot.Today {
        if let read = todayRead, read.day == day, read.commits == ledger.commits, read.edits == ledger.editsFound {
            return DaemonSnapshot.Today(day: day, usedMs: read.usedMs + read.balance - balance, earnedMs: read.earnedMs)
        }
        let summary: DaySummary?
        do { summary = try ledger.history(fromDay: day, toDay: day).first } catch {
            // Read again at the next state; until then the last known totals of the day.
            return todayRead.map {
                DaemonSnapshot.Today(day: day, usedMs: $0.day == day ? $0.usedMs : 0, earnedMs: $0.day == day ? $0.earnedMs : 0)
            } ?? DaemonSnapshot.Today(day: day, usedMs: 0, earnedMs: 0)
        }
        let read = TodayRead(day: day, commits: ledger.commits, edits: ledger.editsFound, balance: balance,
                             usedMs: summary?.spentMs ?? 0, earnedMs: summary?.earnedMs ?? 0)
        todayRead = read
        return DaemonSnapshot.Today(day: day, usedMs: read.usedMs, earnedMs: read.earnedMs)
    }
}
