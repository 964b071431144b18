import BlockerCore

/// Any probe, plus what the session knows: locked when either says so, idle
/// the smaller of the two (whichever saw input last is right).
public final class LockAwareProbe: ForegroundProbe {
    public let inner: ForegroundProbe
    public let session: SessionLock

    public init(_ inner: ForegroundProbe, session: SessionLock) {
        self.inner = inner
        self.session = session
    }

    public var name: String { inner.name }
    public var eventDescriptor: Int32? { inner.eventDescriptor }
    public var eventGeneration: Int { inner.eventGeneration }
    public func drainEvents() { inner.drainEvents() }
    public func drainEventsMayHaveChanged() -> Bool { inner.drainEventsMayHaveChanged() }
    public func shutdown() { inner.shutdown() }
    public var pidUnavailable: String? { inner.pidUnavailable }
    public var eventBurstUs: UInt64 { inner.eventBurstUs }
    public var nextCheck: MonotonicInstant? { inner.nextCheck }
    public func check() { inner.check() }
    public func hide(_ window: Window) -> HideResult { inner.hide(window) }
    public func takeSkippedFocus() -> [Window?] { inner.takeSkippedFocus() }

    public func sample() -> Result<Reading, ProbeFailure> {
        // A failed sample debits nothing anyway: no need to ask the session.
        inner.sample().map { $0.merged(with: session.read(), inputIdle: inner.inputIdle) }
    }

    public func inputIdle() -> Milliseconds? { inner.inputIdle() }

    static func merge(_ reading: Reading, _ state: SessionState) -> Reading {
        reading.merged(with: state)
    }
}

extension Reading {
    /// What the display probe saw with what the session says; a lock to
    /// check (a claim) asks `inputIdle`, the display server's, as evidence.
    public func merged(with state: SessionState, inputIdle: () -> Milliseconds?) -> Reading {
        var merged = self.merged(with: state)
        if merged.lockClaim != nil, merged.idle == nil { merged.idle = inputIdle() }
        return merged
    }

    func merged(with state: SessionState) -> Reading {
        let reading = self
        var merged = reading
        merged.locked = reading.locked || state.locked == true
        // The probe's own lock (the X server's screen saver, the shell) needs no check.
        if !reading.locked { merged.lockClaim = state.locked == true ? state.lockClaim : nil }
        switch (reading.idle, state.idle) {
        case let (a?, b?): merged.idle = min(a, b)
        case let (a, b): merged.idle = a ?? b
        }
        return merged
    }
}
