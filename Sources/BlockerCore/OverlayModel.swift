/// What blocker-overlay shows and when: the pure half of the overlay, so it is
/// tested without a display. The GTK half only draws what this decides.

/// The words on the cover's card.
public struct OverlayCard: Equatable, Sendable {
    /// The covered app; "Take a breath" on a pause.
    public var headline: String
    /// "Out of earned time", "Bedtime until 07:00"…; "Still want discord?" on a pause.
    public var reason: String
    /// "Balance 0s"; nil on a pause (nothing is charged during it).
    public var balance: String?
    /// The honor-system form (exercise, reps, Log) — only when earning lifts the shield.
    public var offersEarning: Bool
    /// Under a hard block: why logging reps would not help.
    public var footnote: String?
    /// The countdown and its answers, on a pause only.
    public var pause: Pause?
    /// The emergency pass's button, when a pass is left and lifts this shield.
    public var pass: PassOffer?

    public init(headline: String, reason: String, balance: String?, offersEarning: Bool, footnote: String?,
                pause: Pause? = nil, pass: PassOffer? = nil) {
        self.headline = headline; self.reason = reason; self.balance = balance
        self.offersEarning = offersEarning; self.footnote = footnote; self.pause = pause; self.pass = pass
    }
}

/// Shown or hidden, and with what: follows blockerd's signals.
public struct OverlayModel: Sendable {
    /// What the cover must do after an event.
    public enum Change: Equatable, Sendable {
        /// Nothing visible changes.
        case none
        /// The cover appears (it was hidden).
        case show
        /// The cover stays up with new words.
        case update
        /// The cover goes away.
        case hide
    }

    /// The active shield to cover; nil while there is none.
    public private(set) var shield: ShieldState?
    public private(set) var balanceMs: Milliseconds = 0
    /// The desktop's shell draws the cover itself (GNOME Shell's blocker
    /// extension owns `io.github.blockerd.Cover`): ours stays hidden meanwhile.
    public private(set) var coveredByShell = false

    public init() {}

    public var isShown: Bool { shield != nil && !coveredByShell }

    /// A `ShieldChanged` signal or a `Status` reply. An inactive shield never
    /// shows, nor a site shield: blocker's browser extension covers that tab,
    /// and the browser's other tabs stay usable.
    public mutating func shieldChanged(_ new: ShieldState) -> Change {
        let balanceMoved = new.balanceMs != balanceMs
        balanceMs = new.balanceMs
        guard new.active, !new.app.isEmpty, new.site == nil else {
            defer { shield = nil }
            return visible(shield == nil ? .none : .hide)
        }
        defer { shield = new }
        guard let shown = shield else { return visible(.show) }
        var unchanged = new
        unchanged.balanceMs = shown.balanceMs
        return visible(shown != unchanged || balanceMoved ? .update : .none)
    }

    /// `BalanceChanged`: only the balance line moves.
    public mutating func balanceChanged(_ balanceMs: Milliseconds) -> Change {
        guard balanceMs != self.balanceMs else { return .none }
        self.balanceMs = balanceMs
        return visible(shield == nil ? .none : .update)
    }

    /// blockerd left the bus (stopped or crashed). Stopping must not block, so
    /// the cover goes; a restarted daemon re-announces what is shielded.
    public mutating func daemonStopped() -> Change {
        defer { shield = nil }
        return visible(shield == nil ? .none : .hide)
    }

    /// The shell's own cover came (`true`) or went: ours hides, or shows
    /// again for a shield still up.
    public mutating func shellCoverChanged(_ present: Bool) -> Change {
        guard present != coveredByShell else { return .none }
        coveredByShell = present
        guard shield != nil else { return .none }
        return present ? .hide : .show
    }

    /// What the screen sees of `change`: nothing while the shell covers.
    private func visible(_ change: Change) -> Change {
        coveredByShell ? .none : change
    }

    /// The card for the shield on screen, nil while hidden.
    public func card(now: WallInstant, zone: TimeZoneRules) -> OverlayCard? {
        guard let shield else { return nil }
        let words = shield.reason.map {
            ShieldText.reason($0, group: shield.group, until: shield.until, now: now, zone: zone)
        } ?? tr("Blocked")
        // A pause is answered for its group; one without (no blockerd sends it) is shown as any other shield.
        if shield.reason == .pause, let group = shield.group {
            let left = shield.until.map { PauseCountdown.secondsLeft(until: $0, now: now) } ?? 0
            let pause = OverlayCard.Pause(group: group, question: tr("Still want {app}?", ["app": shield.app]), until: shield.until,
                                          secondsLeft: left,
                                          asksReason: shield.askReason)
            return OverlayCard(headline: words, reason: pause.question, balance: nil, offersEarning: false,
                               footnote: nil, pause: pause)
        }
        let earning = shield.reason == .balance
        // A balance shield names no group, so no pass is offered over it.
        var pass: OverlayCard.PassOffer?
        if let group = shield.group, let left = shield.passesLeft, left > 0 {
            pass = OverlayCard.PassOffer(group: group, label: PassText.offer(passesLeft: left))
        }
        return OverlayCard(headline: shield.app, reason: words, balance: tr("Balance {time}", ["time": DurationText.format(balanceMs)]),
                           offersEarning: earning,
                           footnote: earning ? nil : tr("Logging reps does not lift this block."), pass: pass)
    }

    /// How long until the pause's countdown on screen next changes; nil when
    /// no countdown runs (no pause shown, or it is over): the cover's timer.
    public func nextTick(now: WallInstant) -> Milliseconds? {
        guard isShown, let shield, shield.reason == .pause, shield.group != nil, let until = shield.until else { return nil }
        return PauseCountdown.nextTick(until: until, now: now)
    }
}

/// One cover per monitor: which covers to add and drop when monitors come and go.
public struct MonitorCovers<Monitor: Hashable> {
    /// The monitors that have a cover, in the display's order.
    public private(set) var monitors: [Monitor] = []

    public init() {}

    /// Brings the covers in line with `current`; returns what to create and what to destroy.
    public mutating func reconcile(_ current: [Monitor]) -> (added: [Monitor], removed: [Monitor]) {
        let have = Set(monitors), want = Set(current)
        let removed = monitors.filter { !want.contains($0) }
        var seen = Set<Monitor>()
        let added = current.filter { !have.contains($0) && seen.insert($0).inserted }
        var ordered: [Monitor] = []
        var kept = Set<Monitor>()
        for monitor in current where kept.insert(monitor).inserted { ordered.append(monitor) }
        monitors = ordered
        return (added, removed)
    }

    /// The one monitor whose cover holds the form and takes the keyboard:
    /// the primary one when the display names one we cover, else the first.
    public func formMonitor(primary: Monitor?) -> Monitor? {
        if let primary, monitors.contains(primary) { return primary }
        return monitors.first
    }
}

extension MonitorCovers: Sendable where Monitor: Sendable {}

/// Why the reps field cannot be logged; `description` is shown under it.
public enum RepsInputError: Error, Equatable, Sendable, CustomStringConvertible {
    case empty
    case notANumber(String)
    case outOfRange(ClosedRange<UInt32>)

    public var description: String {
        switch self {
        case .empty: tr("Type how many reps you did, then press Enter")
        case let .notANumber(text):
            tr("“{text}” is not a number of reps — type digits, like 20", ["text": text.count > 24 ? text.prefix(24) + "…" : text])
        case let .outOfRange(allowed):
            tr("Reps go from {low} to {high}", ["low": "\(allowed.lowerBound)", "high": "\(allowed.upperBound)"])
        }
    }
}

/// The reps field: digits only (spaces around are fine), within what blockerd accepts.
public enum RepsInput {
    public static func parse(_ text: String, allowed: ClosedRange<UInt32>) -> Result<UInt32, RepsInputError> {
        let trimmed = trimmed(text)
        guard !trimmed.isEmpty else { return .failure(.empty) }
        guard trimmed.allSatisfy({ $0.isASCII && $0.isNumber }) else { return .failure(.notANumber(trimmed)) }
        // More digits than any allowed count: out of range, not an overflow.
        let digits = trimmed.drop { $0 == "0" }
        guard digits.count <= 10, let value = UInt64(digits.isEmpty ? "0" : digits),
              value <= UInt64(UInt32.max), allowed.contains(UInt32(value)) else {
            return .failure(.outOfRange(allowed))
        }
        return .success(UInt32(value))
    }

    /// "20 pushups earn 10m 00s", under the field while typing; nil when the text is not a valid count.
    public static func preview(_ text: String, exercise: Exercise?, allowed: ClosedRange<UInt32>) -> String? {
        guard let exercise, case let .success(reps) = parse(text, allowed: allowed) else { return nil }
        let (earned, overflow) = exercise.perRep.ms.multipliedReportingOverflow(by: Int64(reps))
        guard !overflow else { return nil }
        return tr("{reps} {exercise} earn {time}",
                  ["reps": "\(reps)", "exercise": exercise.name, "time": DurationText.format(Milliseconds(ms: earned))])
    }

    /// Without the blanks and line ends around it (a paste may bring them).
    private static func trimmed(_ text: String) -> String {
        let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        return String(text.drop(while: isBlank).reversed().drop(while: isBlank).reversed())
    }

    /// The exercise menu's label: "pushups · 30s a rep".
    public static func label(_ exercise: Exercise) -> String {
        tr("{exercise} · {time} a rep", ["exercise": exercise.name, "time": DurationText.format(exercise.perRep)])
    }
}
