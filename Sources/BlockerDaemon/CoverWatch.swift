import BlockerCore
import BlockerSystem

/// A shield with no cover drawn over it, while it lasts (wall ms).
struct UncoveredStretch: Equatable {
    var from: WallInstant
    var to: WallInstant
    var app: String
    /// Why nothing was drawn, in words.
    var why: String
    /// What the meter charged meanwhile (the app could be used).
    var chargedMs: Milliseconds = 0

    var text: String {
        "no cover over \(app) under its shield (\(why)): \(DurationText.format(chargedMs)) charged"
    }
}

/// blockerd's side of the cover: which windows are the cover (by process),
/// whether one is drawn while a shield is up, and the record when none is.
extension Daemon {
    /// The probe's answer with blocker's own cover taken out: while it holds
    /// the focus, the window beneath stays in front. The windows the probe
    /// heard before it (a switch the cover took the focus back from at once)
    /// say which window that is.
    func withoutTheCover(_ reading: Result<Reading, ProbeFailure>) -> Result<Reading, ProbeFailure> {
        let skipped = probe.takeSkippedFocus()
        guard case var .success(sample) = reading else { return reading }
        for window in skipped { _ = overlayFilter.foreground(window, coverPIDs: covers.coverPIDs) }
        sample.window = overlayFilter.foreground(sample.window, coverPIDs: covers.coverPIDs)
        return .success(sample)
    }

    /// A shield is up that a window cover draws: a site shield is the
    /// browser extension's to cover, in the tab.
    var windowCoverWanted: Bool { shield != nil && shield?.site == nil }

    /// Whether a shield over `window`, were it up from now, has a cover: the
    /// meter charges the coming interval under a shield only when it has none.
    /// A browser tab's site shield has the extension's page, once it is drawn.
    func coveredIfShielded(_ window: Window?, at monotonic: MonotonicInstant) -> Bool {
        if let drawn = siteCover(of: window) { return drawn }
        guard supervisesCover else { return true }
        var prospective = covers
        prospective.shieldChanged(up: true, at: monotonic)
        return prospective.isCovered(at: monotonic)
    }

    /// When a cover client's grace ends: the loop samples then, to start
    /// charging if it has not drawn.
    public var coverDeadline: MonotonicInstant? {
        guard supervisesCover else { return nil }
        if case let .awaiting(until) = covers.coverage(at: MonotonicClock.now) { return until }
        return nil
    }

    /// After a tick: follows the shield, keeps the record of a stretch with
    /// no cover, and asks for blocker-overlay back when none is on the bus.
    func superviseCover(_ outcome: TickOutcome, monotonic: MonotonicInstant, wall: WallInstant) {
        covers.shieldChanged(up: windowCoverWanted, at: monotonic)
        uncovered?.chargedMs += outcome.uncoveredMs
        guard supervisesCover, covers.coverage(at: monotonic) == .missing, let shield else {
            endUncovered(wall: wall)
            return
        }
        if uncovered == nil {
            let why = covers.clients.isEmpty ? "no \(OverlayIdentity.name) running" : "\(OverlayIdentity.name) drew nothing"
            uncovered = UncoveredStretch(from: wall, to: wall, app: shield.app, why: why)
            log.write(LogEvent(.coverMissing, "No cover drawn over \(shield.app) under its shield (\(why)): "
                               + "its time is charged until one is", fields: [("APP", shield.app)]))
        }
        uncovered?.to = wall
        if covers.clients.isEmpty { observer?.coverMissing() }
    }

    /// A cover is drawn again, the shield went down, or blockerd stops: the
    /// stretch without a cover is said with how long it lasted and what it charged.
    func endUncovered(wall: WallInstant) {
        guard var stretch = uncovered else { return }
        uncovered = nil
        stretch.to = max(wall, stretch.from)
        log.write(LogEvent(.coverBack, "Uncovered \(DurationText.format(stretch.to - stretch.from)): \(stretch.text)",
                           fields: [("APP", stretch.app), ("FROM_MS", "\(stretch.from)"), ("TO_MS", "\(stretch.to)"),
                                    ("CHARGED_MS", "\(stretch.chargedMs)")]))
        keep(IntegrityNote(kind: .uncovered, from: stretch.from, to: stretch.to, text: stretch.text))
    }

    /// Whether blockerd follows its cover (always, but in tests that run none).
    var supervisesCover: Bool { options.overlayExecutable != nil }

    // MARK: what the bus says

    /// A checked blocker-overlay (`client`: its unique name) drew or hid its cover.
    public func coverReported(client: String, pid: Int32, drawn: Bool, at monotonic: MonotonicInstant = MonotonicClock.now) {
        covers.clientReported(client, pid: pid, drawn: drawn, at: monotonic)
    }

    /// Its connection closed (stopped, killed, crashed).
    public func coverClientLeft(_ client: String) {
        guard covers.clients[client] != nil else { return }
        covers.clientLeft(client)
        if shield != nil {
            log.write(LogEvent(priority: .notice, "\(OverlayIdentity.name) left the bus while a shield is up"))
        }
    }

    /// A checked shell draws the cover (owns `io.github.blockerd.Cover`), or none does.
    public func shellCoverChanged(_ shell: String?) {
        guard shell != covers.shell else { return }
        covers.shellChanged(shell)
        log.write(LogEvent(priority: .info, shell.map { "\($0) draws blocker's cover (its plugin owns the cover name)" }
            ?? "No desktop shell draws blocker's cover: \(OverlayIdentity.name) does"))
    }

    /// A program claimed to be blocker's cover and is not (`what` says who
    /// and how): ignored, and said.
    public func coverRefused(_ what: String) {
        log.write(LogEvent(.coverRefused, "Ignored a cover that is not blocker's: \(what)", fields: [("WHO", what)]))
        let now = WallClock.now
        keep(IntegrityNote(kind: .coverRefused, from: now, to: now, text: "ignored a cover that is not blocker's: \(what)"))
    }
}
