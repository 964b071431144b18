// The names of io.github.blockerd.Blocker1 (`BlockerInterface` declares its
// members), the errors blockerd answers with, and the bounds it holds callers to.

/// Names of the D-Bus API.
public enum BusNames {
    public static let service = "io.github.blockerd.Blocker1"
    public static let objectPath = "/io/github/blockerd/Blocker1"
    public static let interface = "io.github.blockerd.Blocker1"
    /// Owned by a desktop shell plugin that draws the cover itself (blocker's
    /// GNOME Shell extension) while it is enabled: blocker-overlay stays hidden
    /// while its owner is such a shell (`CoverProgram.shell`), and blockerd
    /// counts the cover drawn. Any other owner is ignored. A name only, no object.
    public static let shellCover = "io.github.blockerd.Cover"
}

/// Every error blockerd sends itself; `rawValue` is the D-Bus error name.
/// (sd-bus answers wrong signatures and unknown members with its own
/// `org.freedesktop.DBus.Error.*` before blockerd sees the call.)
public enum BusErrorName: String, Sendable, CaseIterable {
    case invalidArgument = "io.github.blockerd.Error.InvalidArgument"
    case unknownExercise = "io.github.blockerd.Error.UnknownExercise"
    case unknownTarget = "io.github.blockerd.Error.UnknownTarget"
    case configError = "io.github.blockerd.Error.ConfigError"
    case storageError = "io.github.blockerd.Error.StorageError"
    /// A rule the user set refuses the call (`[earn] max-per-day`, `min-gap`,
    /// strict mode); the message says why and when it becomes possible.
    case refused = "io.github.blockerd.Error.Refused"
    /// The caller runs as another uid than blockerd.
    case accessDenied = "io.github.blockerd.Error.AccessDenied"
    /// blockerd is shutting down; a retry in a moment reaches the next one.
    case unavailable = "io.github.blockerd.Error.Unavailable"
    /// blockerd's own fault (say, out of memory building the reply).
    case internalError = "io.github.blockerd.Error.Internal"
}

/// A refusal a handler sends back: one of the API's named errors with a
/// message that says what to do.
public struct MethodError: Error, Equatable, Sendable, CustomStringConvertible {
    public let name: BusErrorName
    public let message: String
    public var description: String { message }

    public init(_ name: BusErrorName, _ message: String) {
        self.name = name
        self.message = message
    }

    public static func invalidArgument(_ message: String) -> MethodError { MethodError(.invalidArgument, message) }
    public static func unknownExercise(_ message: String) -> MethodError { MethodError(.unknownExercise, message) }
    public static func unknownTarget(_ message: String) -> MethodError { MethodError(.unknownTarget, message) }
    public static func configError(_ message: String) -> MethodError { MethodError(.configError, message) }
    public static func storageError(_ message: String) -> MethodError { MethodError(.storageError, message) }
    public static func refused(_ message: String) -> MethodError { MethodError(.refused, message) }
    public static func internalError(_ message: String) -> MethodError { MethodError(.internalError, message) }
}

/// The bounds every caller of the API is held to (the CLI and the overlay check the same before calling).
public enum BlockerLimits {
    /// `Earn(s, u reps)`.
    public static let reps: ClosedRange<UInt32> = 1...1000
    /// `EarnOnce(s request_id, …)`, in UTF-8 bytes (`EarnRequestID.make()` gives 32).
    public static let requestIDBytes: ClosedRange<Int> = 1...128
    /// `BlockFor(s, t seconds)`: 1 minute to 7 days.
    public static let blockSeconds: ClosedRange<UInt64> = 60...604_800
    /// `History(u days)`.
    public static let historyDays: ClosedRange<UInt32> = 1...366
    /// An exercise or target name, in UTF-8 bytes: refused beyond this before any lookup.
    public static let nameBytes = 1024
    /// `AnswerPause(…, s reason)`: the one-line "why now?", in UTF-8 bytes.
    public static let reasonBytes = 200
    /// How much of a caller's text an error message quotes.
    public static let quotedCharacters = 40

    /// `text` in quotes, cut to `quotedCharacters`: an error reply never echoes a whole argument.
    public static func quoted(_ text: String) -> String {
        text.count > quotedCharacters ? "\"\(text.prefix(quotedCharacters))…\"" : "\"\(text)\""
    }
}
