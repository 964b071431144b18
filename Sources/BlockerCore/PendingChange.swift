/// One config version waiting in strict mode: when it applies, when blockerd
/// read it, and what it loosens (one line each: `KEY: FROM → TO`). What the
/// daemon holds and what `PendingChanges()` carries over the bus.
public struct PendingChange: Equatable, Sendable {
    public var applyAt: WallInstant
    public var receivedAt: WallInstant
    public var changes: [String]
    public init(applyAt: WallInstant, receivedAt: WallInstant, changes: [String]) {
        self.applyAt = applyAt
        self.receivedAt = receivedAt
        self.changes = changes
    }
}
