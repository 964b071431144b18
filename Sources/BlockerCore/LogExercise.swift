/// The "Log exercise" window (`blocker-overlay --earn`, the desktop entry of
/// the same name): the cover's earn form in an ordinary small window, for reps
/// done before anything is shielded. The pure half: what it says and what it
/// asks blockerd; the GTK half only draws it.
public enum LogExercise {
    /// The window's title and the desktop entry's Name.
    public static var title: String { tr("Log exercise") }

    /// Its program name: X11 WM_CLASS (instance and class) and Wayland app id,
    /// and the desktop entry's file name without `.desktop`, so docks and
    /// shells match the window to the entry. Not the cover's name on purpose:
    /// the probes must see it as a window of its own (the app it covers is not
    /// charged while you log reps), never as the cover.
    public static let appID = "io.github.blockerd.LogExercise"

    /// A stock icon (freedesktop icon naming): the window's and the desktop entry's Icon=.
    public static let iconName = "appointment-soon"

    /// The line after a credit: "Earned 10m 00s — balance 25m 00s" (the cover says the same).
    public static func earned(earnedMs: Milliseconds, balanceMs: Milliseconds) -> String {
        tr("Earned {earned} — balance {balance}",
           ["earned": DurationText.format(earnedMs), "balance": DurationText.format(balanceMs)])
    }
}

/// One `Earn(exercise, reps)` call to make.
public struct EarnRequest: Equatable, Sendable {
    /// "" asks for the only configured exercise (blockerd says which when there are several).
    public var exercise: String
    public var reps: UInt32

    public init(exercise: String, reps: UInt32) {
        self.exercise = exercise
        self.reps = reps
    }
}

/// The request id an earn form sends with `EarnOnce`. While a call has had
/// no answer (it timed out, and blockerd may have credited it all the same),
/// the same request again keeps its id, so the retry is not credited twice;
/// an answer, or another request, starts a new id.
public struct EarnRetry: Sendable {
    private var unanswered: (request: EarnRequest, id: String)?

    public init() {}

    public mutating func id(for request: EarnRequest, new: () -> String) -> String {
        if let unanswered, unanswered.request == request { return unanswered.id }
        let id = new()
        unanswered = (request, id)
        return id
    }

    /// blockerd answered (credited or refused): the next request is a new one.
    public mutating func answered() { unanswered = nil }
}

/// What the window knows of blockerd (from `Status` and `Earn` replies), and
/// the words that follow from it. It asks blockerd only when the user acts:
/// at start, before an Earn while blockerd was unreachable, and after a
/// refusal that says its exercises changed.
public struct LogExerciseForm: Equatable, Sendable {
    /// `[earn]` as blockerd last said, in its order.
    public private(set) var exercises: [Exercise] = []
    public private(set) var balanceMs: Milliseconds?
    /// Why blockerd could not be asked (not running, no session bus…): its
    /// message, which names the fix. Nil once blockerd answered.
    public private(set) var unreachable: String?

    public init() {}

    /// Whether to ask blockerd's `Status` before the next Earn: nothing known
    /// yet, or blockerd was not reachable last time.
    public var needsStatus: Bool { balanceMs == nil || unreachable != nil }

    /// `Status` answered.
    public mutating func statusArrived(exercises: [Exercise], balanceMs: Milliseconds) {
        self.exercises = exercises
        self.balanceMs = balanceMs
        unreachable = nil
    }

    /// blockerd could not be asked; `why` names the fix ("start it with: …").
    /// What was known stays (a restart does not change the exercises), but the
    /// balance is no longer trusted.
    public mutating func unreachable(_ why: String) {
        unreachable = why
        balanceMs = nil
    }

    /// `Earn` answered: the new balance, and the line to show.
    public mutating func earned(earnedMs: Milliseconds, balanceMs: Milliseconds) -> String {
        self.balanceMs = balanceMs
        unreachable = nil
        return LogExercise.earned(earnedMs: earnedMs, balanceMs: balanceMs)
    }

    /// The line above the form: "Balance 15m 00s", or "" while unknown.
    public var balanceLine: String {
        balanceMs.map { tr("Balance {time}", ["time": DurationText.format($0)]) } ?? ""
    }

    /// What the line under the form says before anything is typed: the
    /// trouble with blockerd first, since typing would not help.
    public var hint: Hint {
        if let unreachable { return Hint(text: unreachable, isProblem: true) }
        if balanceMs != nil && exercises.isEmpty {
            // As blockerd words it for an Earn with none configured.
            return Hint(text: tr("blockerd has no exercises: add one under [earn] in blocker.toml (for example: pushups = 0.5), then run: blockerctl reload"), isProblem: true)
        }
        return Hint(text: tr("Type your reps, then press Enter"), isProblem: false)
    }

    public struct Hint: Equatable, Sendable {
        public var text: String
        /// Shown as an error (red) rather than a note.
        public var isProblem: Bool
    }

    /// The Earn call for the typed reps and the chosen exercise: the chosen
    /// one while blockerd still lists it, else the first it lists, else ""
    /// (blockerd then names the exercises, or says none is configured).
    /// `allowed`: the reps blockerd accepts (`BlockerLimits.reps`).
    public func request(reps text: String, chosen: String?, allowed: ClosedRange<UInt32>)
        -> Result<EarnRequest, RepsInputError> {
        RepsInput.parse(text, allowed: allowed).map { reps in
            let names = exercises.map(\.name)
            let exercise = chosen.flatMap { names.contains($0) ? $0 : nil } ?? names.first ?? ""
            return EarnRequest(exercise: exercise, reps: reps)
        }
    }
}
