import BlockerCore

/// Names of the D-Bus API (DESIGN.md, "D-Bus").
public enum BusNames {
    public static let service = "io.github.blockerd.Blocker1"
    public static let objectPath = "/io/github/blockerd/Blocker1"
    public static let interface = "io.github.blockerd.Blocker1"
}

/// The named errors of the API; `rawValue` is the D-Bus error name.
public enum BusErrorName: String, Sendable, CaseIterable {
    case invalidArgument = "io.github.blockerd.Error.InvalidArgument"
    case unknownExercise = "io.github.blockerd.Error.UnknownExercise"
    case unknownTarget = "io.github.blockerd.Error.UnknownTarget"
    case configError = "io.github.blockerd.Error.ConfigError"
    case storageError = "io.github.blockerd.Error.StorageError"
    case accessDenied = "org.freedesktop.DBus.Error.AccessDenied"
}

/// What a call to blockerd can end in, on the client side.
public enum BusFailure: Error, Equatable, Sendable, CustomStringConvertible {
    /// No session bus, or blockerd does not own its name.
    case notRunning(String)
    /// blockerd answered with an error (one of `BusErrorName`, or another name).
    case refused(name: String, message: String)
    /// Transport trouble: timeout, bad reply.
    case transport(String)

    public var description: String {
        switch self {
        case let .notRunning(why): why
        case let .refused(_, message): message
        case let .transport(why): why
        }
    }
}

/// `Status() → a{sv}`, decoded. Mirrors `blockerctl status --json`.
public struct StatusReport: Equatable, Sendable {
    public struct Foreground: Equatable, Sendable {
        public var app: String
        public var title: String
        public var pid: Int32?
        public var groups: [String]
        public init(app: String, title: String, pid: Int32?, groups: [String]) {
            self.app = app; self.title = title; self.pid = pid; self.groups = groups
        }
    }
    public struct ShieldState: Equatable, Sendable {
        public var active: Bool
        public var reason: String?      // balance | timed-block | schedule | daily-limit
        public var app: String?
        public var untilMs: Int64       // 0 when none
        public init(active: Bool, reason: String?, app: String?, untilMs: Int64) {
            self.active = active; self.reason = reason; self.app = app; self.untilMs = untilMs
        }
    }
    public var balanceMs: Int64
    public var metered: Bool
    public var locked: Bool
    public var foreground: Foreground?
    public var shield: ShieldState
    public var todayUsedMs: Int64
    public var todayEarnedMs: Int64
    public var probeName: String
    public var probeOK: Bool
    public var probeError: String?

    public init(balanceMs: Int64, metered: Bool, locked: Bool, foreground: Foreground?, shield: ShieldState,
                todayUsedMs: Int64, todayEarnedMs: Int64, probeName: String, probeOK: Bool, probeError: String?) {
        self.balanceMs = balanceMs; self.metered = metered; self.locked = locked; self.foreground = foreground
        self.shield = shield; self.todayUsedMs = todayUsedMs; self.todayEarnedMs = todayEarnedMs
        self.probeName = probeName; self.probeOK = probeOK; self.probeError = probeError
    }
}

/// One row of `History(u days) → a(ssxx)`: (day, group, used_ms, earned_ms).
/// The row with group "" carries the day's totals: metered time spent and time earned.
public struct HistoryRow: Equatable, Sendable {
    public var day: String
    public var group: String
    public var usedMs: Int64
    public var earnedMs: Int64
    public init(day: String, group: String, usedMs: Int64, earnedMs: Int64) {
        self.day = day; self.group = group; self.usedMs = usedMs; self.earnedMs = earnedMs
    }
}

/// blockerd as its clients see it. `BlockerClient` implements it over the session bus.
public protocol BlockerService {
    func status() throws(BusFailure) -> StatusReport
    func earn(exercise: String, reps: UInt32) throws(BusFailure) -> (earnedMs: Int64, balanceMs: Int64)
    func blockFor(target: String, seconds: UInt64) throws(BusFailure) -> Int64
    func unblock(target: String) throws(BusFailure)
    func history(days: UInt32) throws(BusFailure) -> [HistoryRow]
    func reload() throws(BusFailure)
}
