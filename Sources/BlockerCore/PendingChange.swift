/// One config version waiting in strict mode: when it applies, when blockerd
/// read it, and what it loosens (one line each: `KEY: FROM → TO`). What the
/// daemon holds and what `PendingChanges()` carries over the bus.
public struct PendingChange: Equatable, Sendable {
    public var applyMs: Int64
    public var receivedMs: Int64
    public var changes: [String]
    public init(applyMs: Int64, receivedMs: Int64, changes: [String]) {
        self.applyMs = applyMs
        self.receivedMs = receivedMs
        self.changes = changes
    }
}
