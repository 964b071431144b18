import BlockerCore

/// Syslog priorities, as journald stores them in PRIORITY=.
public enum Priority: Int, Sendable, Comparable {
    case emergency = 0, alert, critical, error, warning, notice, info, debug
    public static func < (a: Priority, b: Priority) -> Bool { a.rawValue < b.rawValue }
}

/// The kinds of things that happen, as `BLOCKER_EVENT=` values. Each has a
/// fixed MESSAGE_ID so `journalctl MESSAGE_ID=…` finds them across versions.
public enum EventKind: String, Sendable, CaseIterable {
    case start, stop, reload
    case shieldUp = "shield-up", shieldDown = "shield-down"
    case earn, warning
    case probeError = "probe-error", probeRecovered = "probe-recovered"
    case configError = "config-error", storageError = "storage-error"
    case mediaPaused = "media-paused", mediaResumed = "media-resumed"
    case audioMuted = "audio-muted", audioUnmuted = "audio-unmuted"
    case earnRefused = "earn-refused"
    case configPending = "config-pending", configApplied = "config-applied", configCancelled = "config-cancelled"
    case gap
    // The cover (CoverWatch.swift): none drawn under a shield, drawn again, a program posing as it.
    case coverMissing = "cover-missing", coverBack = "cover-back", coverRefused = "cover-refused"
    /// The ledger was changed outside blocker (its seal, its earnings chain or its anchor says so).
    case ledgerEdited = "ledger-edited"
    /// The ledger's state, kept in the journal where its user cannot rewrite it (LedgerAnchors.swift).
    case ledgerAnchor = "ledger-anchor"
    // What blockerd noticed that may be a way around it (IntegrityNote.Kind).
    case lockNotHonoured = "lock-not-honoured", stall, environment, configUnreadable = "config-unreadable"
    // Opens, pauses and passes (Daemon+Opens.swift).
    case open, pauseAnswered = "pause-answered", pass, passRefused = "pass-refused"
    // One balance on every machine (Daemon+Sync.swift): the folder unusable, a record refused.
    case syncError = "sync-error", syncRefused = "sync-refused"

    public var messageID: String {
        switch self {
        case .start: "4b50a9aedbba4b648b3effe3e0ff3147"
        case .stop: "b92ce9e03d2243928719a28a0dbece95"
        case .reload: "9b100c185502466b9c0738dcb6444b51"
        case .shieldUp: "4f0e237c07f64b8c99d0b8b9df4c40b6"
        case .shieldDown: "c757a366adba40fa8b2f78dea7ee5172"
        case .earn: "d560e43db2724a61aac7e7983d5f8334"
        case .warning: "8ff31984987f4946a197158d1a73b1c1"
        case .probeError: "81d8e200373d46fe8eac2b61c7e88b87"
        case .probeRecovered: "089bec00ae8d47a0888ad96f890beae2"
        case .configError: "6f776a71b0434aba86bb27658ee76852"
        case .storageError: "936bd49d04c443d998e379fb68fcd5df"
        case .mediaPaused: "39515a85e9674460be4f06089440c474"
        case .mediaResumed: "6249f3e62fc3449aa8390166a32cda88"
        case .audioMuted: "e6a7732beae24579bb35aed8d86a8019"
        case .audioUnmuted: "3a47808e562d4985919fda8ed68252b6"
        case .earnRefused: "1ec0251cad8b4969bd180bf8a55f8746"
        case .configPending: "65bc5d773c754e5cad459fc320501a7a"
        case .configApplied: "3f802ad722924cf3aa83ee48572ac5e1"
        case .configCancelled: "6a3bc420fc4d44ea9b34087eb04d9e03"
        case .gap: "f5ef8ab3e87742f18ed57f18e078bf5f"
        case .coverMissing: "0d6c1f3e8a4b4f2e9b7d5a1c3e6f8b20"
        case .coverBack: "5e2a9c7d1b3f4a6e8c0d2f4b6a8e1c39"
        case .coverRefused: "b7e41d9a2c5f4e8b9a3d6c1f0e7b2a54"
        case .ledgerEdited: "02c45e659ab5456f84df64328985f535"
        case .ledgerAnchor: "bad29fda64414cb7bec7fe8458c1ee5d"
        case .lockNotHonoured: "14fd19204b86411f9ea0f75538d08093"
        case .stall: "a2233d50b65d41dd859d4a7182ea378a"
        case .environment: "38d1e4d840a94ba0a7fe2a7d1d7a3a02"
        case .configUnreadable: "35487d4217fd456ab7e619df54013466"
        case .open: "28aa8efc8c1745e39a16a389446be2f6"
        case .pauseAnswered: "d3adcc9371b248ac9df868ecb6e9e64b"
        case .pass: "68114c952e614a4f9d0d29faa4d46a36"
        case .passRefused: "f808e26f23e44491864365b84183867a"
        case .syncError: "c5a732609f8e4d0c90a89b662fbe196e"
        case .syncRefused: "f05fee636be84342a751ca1242eba0a8"
        }
    }

    public var priority: Priority {
        switch self {
        case .start, .stop, .reload, .earn, .earnRefused, .shieldDown, .probeRecovered: .info
        case .configApplied, .configCancelled: .info
        case .configPending, .gap: .notice
        case .ledgerAnchor: .info
        case .ledgerEdited: .warning
        case .mediaPaused, .mediaResumed, .audioMuted, .audioUnmuted: .info
        case .shieldUp, .warning: .notice
        case .probeError: .warning
        case .configError, .storageError: .error
        case .coverMissing, .coverRefused: .warning
        case .coverBack: .notice
        case .lockNotHonoured, .stall, .environment, .configUnreadable: .warning
        case .open, .pauseAnswered, .passRefused: .info
        // A pass lifts a shield: said as loudly as a shield going up.
        case .pass: .notice
        case .syncError, .syncRefused: .warning
        }
    }
}

/// One journal entry: a message for people plus fields for machines.
public struct LogEvent: Equatable, Sendable {
    public var kind: EventKind?
    public var priority: Priority
    public var message: String
    /// Extra fields without the BLOCKER_ prefix: APP, GROUP, REASON, BALANCE_MS…
    public var fields: [(String, String)]

    public init(_ kind: EventKind, _ message: String, fields: [(String, String)] = []) {
        self.kind = kind
        priority = kind.priority
        self.message = message
        self.fields = fields
    }

    public init(priority: Priority, _ message: String) {
        kind = nil
        self.priority = priority
        self.message = message
        fields = []
    }

    /// Every `KEY=value` pair journald gets.
    public var journalFields: [(String, String)] {
        var all: [(String, String)] = [("PRIORITY", "\(priority.rawValue)"), ("MESSAGE", message),
                                       ("SYSLOG_IDENTIFIER", "blockerd")]
        if let kind {
            all.append(("BLOCKER_EVENT", kind.rawValue))
            all.append(("MESSAGE_ID", kind.messageID))
        }
        all += fields.map { ("BLOCKER_" + $0.0, $0.1) }
        return all
    }

    public func field(_ name: String) -> String? { fields.first { $0.0 == name }?.1 }

    public static func == (a: LogEvent, b: LogEvent) -> Bool {
        a.kind == b.kind && a.priority == b.priority && a.message == b.message
            && a.fields.elementsEqual(b.fields) { $0 == $1 }
    }
}

/// Where log events go: journald in production, stderr elsewhere, memory in tests.
public protocol LogSink: AnyObject {
    func write(_ event: LogEvent)
}

/// Keeps events for tests to read.
public final class MemoryLog: LogSink {
    public private(set) var events: [LogEvent] = []
    public init() {}
    public func write(_ event: LogEvent) { events.append(event) }
    public func events(_ kind: EventKind) -> [LogEvent] { events.filter { $0.kind == kind } }
}

/// At most one journal line per `interval` for an event that can come in a
/// storm (`blockerctl reload` in a loop): the first line goes out, the next
/// ones within the interval are only counted, and the first line after it
/// says how many it stands for. Pure: the caller passes the monotonic time.
struct LogRateLimit<Clock: ClockKind> {
    let interval: Milliseconds
    private var windowStart: Instant<Clock>?
    private var folded = 0

    init(interval: Milliseconds) { self.interval = interval }

    /// nil: stay quiet. Otherwise log now, mentioning the returned count of
    /// lines folded into this one.
    mutating func admit(at now: Instant<Clock>) -> Int? {
        if let start = windowStart, now - start < interval {
            folded += 1
            return nil
        }
        defer { windowStart = now; folded = 0 }
        return folded
    }
}
