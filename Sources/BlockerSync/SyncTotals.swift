import BlockerCore

/// What one device's own log has said, summed: the totals blockerd compares
/// its ledger with (what is not in the log yet is written), and its own
/// words on blocks, which must count against the other devices' later ones.
public struct SyncTotals: Equatable, Sendable {
    public var earned: Milliseconds = 0
    public var spent: Milliseconds = 0
    /// Each day's use per group (lowercased).
    public var usage: [CivilDate: [String: Milliseconds]] = [:]
    /// The newest word on each block target (lowercased): its end, or nil for an unblock.
    public var blocks: [String: BlockWord] = [:]
    public var records = 0

    public struct BlockWord: Equatable, Sendable {
        public var at: WallInstant
        public var until: WallInstant?
    }

    public init() {}

    public mutating func add(_ record: SyncRecord) {
        records += 1
        switch record.event {
        case let .earn(ms, _, _):
            earned += ms
        case let .spend(debit, used):
            spent += debit
            for (group, ms) in used { usage[record.day, default: [:]][group.lowercased(), default: 0] += ms }
        case let .block(target, until):
            note(target, BlockWord(at: record.at, until: until))
        case let .unblock(target):
            note(target, BlockWord(at: record.at, until: nil))
        case .pass:
            break
        }
    }

    private mutating func note(_ target: String, _ word: BlockWord) {
        let key = target.lowercased()
        if let newest = blocks[key], newest.at > word.at { return }
        blocks[key] = word
    }

    /// The blocks running at `now` by the newest word on each target among
    /// `self` and `others` (the later instant wins; a tie goes to the block).
    public func timedBlocks(with others: [String: BlockWord], activeAt now: WallInstant) -> [TimedBlock] {
        var newest = others
        for (target, word) in blocks {
            if let other = newest[target], other.at > word.at || (other.at == word.at && other.until != nil) { continue }
            newest[target] = word
        }
        return newest.compactMap { target, word in word.until.flatMap { $0 > now ? TimedBlock(target: target, until: $0) : nil } }
            .sorted { $0.target < $1.target }
    }
}
