import BlockerTime

/// What blockerd writes about its ledger where its user cannot rewrite it
/// (the journal; blockerd's side is LedgerAnchors.swift), at its start, after
/// an earning, every few minutes of commits and at its stop. The seal and the
/// earnings chain have no secret: whoever edits the file can recompute both,
/// or put an older copy of it back. A start compares the file with the last
/// anchor and names what blockerd's own writes never do.
public struct LedgerAnchor: Equatable, Sendable {
    /// The newest run the file records.
    public var runID: Int64
    /// The tables' digest (LedgerSeal) in `sealFormat`.
    public var seal: String
    public var sealFormat: Int64
    /// How many earnings, and the newest one's chain ("" before the first).
    public var earnings: Int64
    public var chain: String
    public var earnedTotalMs: Milliseconds
    public var spentTotalMs: Milliseconds
    /// The first earning not following from the one before, as last checked
    /// (already said then): only a different one is news.
    public var brokenEarning: Int64?
    /// Written at a clean stop: nothing may change the file until the next start.
    public var final: Bool
    public var at: WallInstant
    /// `[earn] max-per-day` and `min-gap` as blockerd knew them: what was
    /// earned on `day` and the newest earning's instant (moving an earning to
    /// another day in the file does not move it here).
    public var day: String = ""
    public var earnedOnDayMs: Milliseconds = 0
    public var lastEarningAt: WallInstant?
    /// How many opens and passes the file has: both only grow, and a pass
    /// removed is a pass given back (0: an anchor from before they were kept).
    public var opens: Int64 = 0
    public var passes: Int64 = 0

    public init(runID: Int64, seal: String, sealFormat: Int64, earnings: Int64, chain: String, earnedTotalMs: Milliseconds,
                spentTotalMs: Milliseconds, brokenEarning: Int64?, final: Bool, at: WallInstant) {
        self.runID = runID
        self.seal = seal
        self.sealFormat = sealFormat
        self.earnings = earnings
        self.chain = chain
        self.earnedTotalMs = earnedTotalMs
        self.spentTotalMs = spentTotalMs
        self.brokenEarning = brokenEarning
        self.final = final
        self.at = at
    }

    /// How the ledger `file` (read now, its seal in this anchor's format)
    /// departs from this anchor in ways blockerd's own writes never do, in
    /// words; empty when it follows from it. `chainAtAnchoredCount`: the
    /// file's chain at earning number `earnings` (nil: it has fewer).
    public func departures(of file: LedgerAnchor, chainAtAnchoredCount: String?) -> [String] {
        var found: [String] = []
        if file.runID < runID {
            found.append("its newest run is #\(file.runID), blockerd had written run #\(runID): an older copy of the file")
        }
        if file.earnings < earnings {
            found.append("it has \(file.earnings) earnings, blockerd had written \(earnings)")
        } else if earnings > 0, chainAtAnchoredCount != chain {
            found.append("its first \(earnings) earnings were rewritten (their chain recomputed)")
        }
        if file.earnedTotalMs < earnedTotalMs || file.spentTotalMs < spentTotalMs {
            found.append("its totals (earned \(file.earnedTotalMs) ms, spent \(file.spentTotalMs) ms) are below what blockerd "
                         + "had written (earned \(earnedTotalMs) ms, spent \(spentTotalMs) ms)")
        }
        if file.opens < opens || file.passes < passes {
            found.append("it has \(file.opens) opens and \(file.passes) passes, blockerd had written \(opens) and \(passes)")
        }
        if found.isEmpty, final, file.runID == runID, file.seal != seal {
            found.append("its tables changed after blockerd's stop (its seal recomputed, or not)")
        }
        if let broken = file.brokenEarning, broken != brokenEarning {
            found.append("earning #\(broken) does not follow from the one before it (changed, inserted, or one before it removed)")
        }
        return found
    }
}
