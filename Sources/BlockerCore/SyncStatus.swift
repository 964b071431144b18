/// What `[sync]` is doing, as Status's `sync` and `blockerctl devices` show
/// it: the folder, this machine's device id and log, why sync is off if it
/// is, and each other device blockerd has read.
public struct SyncStatus: Equatable, Sendable {
    public var folder: String
    /// Empty while the folder cannot be used (`problem` says why).
    public var device: String
    public var problem: String?
    /// Records this machine's log holds.
    public var records: Int
    public var devices: [Device]

    public struct Device: Equatable, Sendable {
        public var id: String
        public var records: Int
        /// The newest record's instant: how far behind that device's word is.
        public var lastAt: WallInstant?
        public var earnedMs: Milliseconds
        public var spentMs: Milliseconds

        public init(id: String, records: Int, lastAt: WallInstant?, earnedMs: Milliseconds, spentMs: Milliseconds) {
            self.id = id; self.records = records; self.lastAt = lastAt; self.earnedMs = earnedMs; self.spentMs = spentMs
        }
    }

    public init(folder: String, device: String, problem: String?, records: Int, devices: [Device]) {
        self.folder = folder; self.device = device; self.problem = problem; self.records = records; self.devices = devices
    }
}
