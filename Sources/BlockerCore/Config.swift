/// What the user wants, as read from blocker.toml. Built and validated by
/// `Config(document:file:)` (ConfigValidation.swift); `BlockerConfig` reads the file.
public struct Config: Sendable {
    public var daemon: DaemonSettings
    /// `[earn]` in file order: what one repetition of each exercise is worth.
    public var exercises: [Exercise]
    /// `[warn] before`, largest first.
    public var warnBefore: [Milliseconds]
    public var groups: [AppGroup]
    /// `[cover]`: what happens to the covered app's media and sound.
    public var cover: CoverSettings
    /// `[earn] max-per-day` and `min-gap`: how far a user lets their future self earn.
    public var earnLimits: EarnLimits
    /// `[strict] delay`: how long a loosening waits; nil = strict mode off.
    public var strict: StrictSettings
    /// `[pause]`, for every group (a group's `[group.pause]` replaces it key by
    /// key); nil: no table. What one group gets: `pauseRule(for:)` (PauseConfig.swift).
    public var pause: PauseSettings?
    /// `[pass]`; nil: no table, so no emergency passes.
    public var pass: PassRule?
    /// `[sync]`; nil: this machine's balance is its own.
    public var sync: SyncSettings?

    public init(daemon: DaemonSettings = DaemonSettings(), exercises: [Exercise] = [],
                warnBefore: [Milliseconds] = [], groups: [AppGroup] = [], cover: CoverSettings = CoverSettings(),
                earnLimits: EarnLimits = EarnLimits(), strict: StrictSettings = StrictSettings(),
                pause: PauseSettings? = nil, pass: PassRule? = nil, sync: SyncSettings? = nil) {
        self.daemon = daemon
        self.cover = cover
        self.earnLimits = earnLimits
        self.strict = strict
        self.pause = pause
        self.pass = pass
        self.sync = sync
        self.exercises = exercises
        self.warnBefore = warnBefore.sorted(by: >)
        self.groups = groups
    }

    public func exercise(named name: String) -> Exercise? {
        exercises.first { $0.name.lowercased() == name.lowercased() }
    }

    public func group(named name: String) -> AppGroup? {
        groups.first { $0.name.lowercased() == name.lowercased() }
    }
}

/// `[cover]`: a shield pauses the covered app's MPRIS players (and resumes
/// them after an earning) and mutes its audio streams while it is up.
public struct CoverSettings: Sendable, Equatable {
    /// `pause-media`
    public var pauseMedia: Bool
    /// `mute`
    public var mute: Bool

    public init(pauseMedia: Bool = true, mute: Bool = true) {
        self.pauseMedia = pauseMedia
        self.mute = mute
    }
}

/// `probe = …`: the names of BlockerProbes' `ProbeRegistry` backends, in its
/// order (a test keeps them in step), after `auto`. They are listed here
/// because the config is checked without linking the probes.
public enum ProbeChoice: String, Sendable, CaseIterable {
    case auto, gnome, kde, hyprland, sway, wlroots, x11, command
}

/// `probe-command-mode`: `once` runs the program at every sample (what it
/// prints is charged for the whole interval: sampled); `stream` starts it once
/// and takes each line it prints as a change, at the moment it comes (exact).
public enum ProbeCommandMode: String, Sendable, CaseIterable {
    case once, stream
}

public struct DaemonSettings: Sendable, Equatable {
    public var probe: ProbeChoice
    public var pollInterval: Milliseconds
    /// argv for `probe = "command"`; never run through a shell.
    public var probeCommand: [String]
    /// How the command probe runs its program: once per sample, or once for
    /// good, reading one JSON line per change (exact, like the event-driven probes).
    public var probeCommandMode: ProbeCommandMode
    /// Stop spending after this long without input; nil = off (videos have no input).
    public var idleAfter: Milliseconds?
    /// The zone days and schedules are counted in ("Europe/Paris"); nil: the
    /// system's (/etc/localtime), which the environment (TZ) cannot move.
    public var timeZone: String?

    public init(probe: ProbeChoice = .auto, pollInterval: Milliseconds = 1000,
                probeCommand: [String] = [], probeCommandMode: ProbeCommandMode = .once,
                idleAfter: Milliseconds? = nil, timeZone: String? = nil) {
        self.probe = probe
        self.pollInterval = pollInterval
        self.probeCommand = probeCommand
        self.probeCommandMode = probeCommandMode
        self.idleAfter = idleAfter
        self.timeZone = timeZone
    }

    /// The most one sample may debit: a stalled loop, SIGSTOP or suspend
    /// never costs more than the probe could have seen.
    public var sampleGapCap: Milliseconds { max(2 * pollInterval, 2000) }
}

public struct Exercise: Sendable, Equatable {
    public var name: String
    public var perRep: Milliseconds
    public init(name: String, perRep: Milliseconds) {
        self.name = name
        self.perRep = perRep
    }
}

public struct AppGroup: Sendable {
    public var name: String
    /// App ids / WM_CLASS / exe names, lowercased.
    public var apps: [String]
    /// When non-empty, only windows whose title matches one of these count.
    public var titles: [TitlePattern]
    /// `sites`: a browser tab showing one of these (its registrable domain,
    /// told by blocker's browser extension) is this group's, before `apps`.
    public var sites: [SitePattern]
    public var metered: Bool
    public var dailyLimit: Milliseconds?
    public var schedules: [Schedule]
    /// `opens-per-day`: the open after this many on a local day is capped
    /// (the group is covered until midnight); nil: no cap.
    public var opensPerDay: Int?
    /// `[group.pause]`, over `[pause]` key by key; nil: no table of its own.
    public var pause: PauseSettings?

    public init(name: String, apps: [String], titles: [TitlePattern] = [], sites: [SitePattern] = [],
                metered: Bool = true, dailyLimit: Milliseconds? = nil, schedules: [Schedule] = [],
                opensPerDay: Int? = nil, pause: PauseSettings? = nil) {
        self.name = name
        self.apps = apps.map { $0.lowercased() }
        self.titles = titles
        self.sites = sites
        self.metered = metered
        self.dailyLimit = dailyLimit
        self.schedules = schedules
        self.opensPerDay = opensPerDay
        self.pause = pause
    }
}

/// A title regex from `titles = [...]`, matched case-insensitively anywhere in the title.
///
/// Titles come from any window, so matching must not depend on what a pattern
/// or a title can do to a backtracking engine (`(a+)+$` against "aaa…a!"
/// stalls Swift's `Regex` for seconds): this is RE2, linear in the title by
/// construction. That is why BlockerCore, pure domain otherwise, links the
/// CRE2 wrapper: pure computation, no I/O. RE2 syntax has no backreferences or
/// lookaround, `.` is one Unicode code point, and `\w`, `\d`, `\b` are ASCII
/// (`\pL` is any letter); case folding is Unicode's simple one (é matches É).
public struct TitlePattern: Sendable {
    public let source: String
    private let regex: RE2Regex

    /// Characters in a pattern: titles are short, and a pattern many times
    /// longer is a mistake (a 1 MB one took seconds and 500 MB to compile).
    public static let maximumLength = 1000
    /// What one compiled pattern may take, program and matching automata
    /// together: room for any sensible title regex, not for a pathological one.
    public static let maximumMemory = 1 << 20

    public enum Refusal: Error, Equatable, CustomStringConvertible {
        case tooLong(characters: Int)
        /// RE2's reason.
        case invalid(String)

        public var description: String {
            switch self {
            case .tooLong(let characters): "\(characters) characters, more than \(TitlePattern.maximumLength)"
            case .invalid(let reason): reason
            }
        }
    }

    public init(_ source: String) throws(Refusal) {
        let characters = source.count
        guard characters <= Self.maximumLength else { throw .tooLong(characters: characters) }
        self.source = source
        do {
            regex = try RE2Regex(source, caseInsensitive: true, maxMemory: Self.maximumMemory)
        } catch {
            throw .invalid(error.description)
        }
    }

    public func matches(_ title: String) -> Bool {
        regex.matchesAnywhere(in: title)
    }
}
