/// What a shield does to the covered app's media and sound, decided without
/// I/O: which MPRIS players are the app's and playing (pause them), which of
/// its audio streams are not yet muted (mute them, and later unmute only
/// those). BlockerMedia asks the bus and PulseAudio; the daemon wires it.

/// `org.mpris.MediaPlayer2.Player.PlaybackStatus`.
public enum PlaybackStatus: String, Sendable {
    case playing = "Playing", paused = "Paused", stopped = "Stopped"
}

/// One `org.mpris.MediaPlayer2.*` name on the session bus, as asked.
public struct MediaPlayer: Equatable, Sendable {
    public var busName: String
    /// The pid of the name's owner, from the bus daemon.
    public var pid: Int32?
    public var identity: String?
    public var desktopEntry: String?
    public var status: PlaybackStatus?

    public init(busName: String, pid: Int32?, identity: String?, desktopEntry: String?, status: PlaybackStatus?) {
        self.busName = busName
        self.pid = pid
        self.identity = identity
        self.desktopEntry = desktopEntry
        self.status = status
    }
}

/// One PulseAudio sink input (a stream playing), as `pactl list sink-inputs` shows it.
public struct AudioStream: Equatable, Sendable {
    public var index: UInt32
    /// `application.process.id`
    public var pid: Int32?
    /// `application.process.binary`
    public var binary: String?
    public var muted: Bool

    public init(index: UInt32, pid: Int32?, binary: String? = nil, muted: Bool) {
        self.index = index
        self.pid = pid
        self.binary = binary
        self.muted = muted
    }
}

public enum CoverMedia {
    /// Whether `player` is named as the covered window's app: its
    /// DesktopEntry, Identity or bus name's first part (`org.mpris.MediaPlayer2.mpv.instance42`).
    public static func named(_ player: MediaPlayer, as window: Window) -> Bool {
        let names = window.identifiers
        // "org.mpris.MediaPlayer2.mpv.instance123" → "mpv"
        let busSuffix = player.busName.split(separator: ".").dropFirst(3).first.map { String($0).lowercased() }
        return [player.desktopEntry?.lowercased(), player.identity?.lowercased(), busSuffix]
            .contains { $0.map(names.contains) ?? false }
    }

    /// The covered window's players: those of its process when the probe
    /// gave a pid and a player runs there (two mpv windows are told apart);
    /// else (no pid, or the player lives in a helper process) those named
    /// after its app.
    public static func players(_ players: [MediaPlayer], of window: Window) -> [MediaPlayer] {
        if let pid = window.pid, pid > 1 {
            let own = players.filter { $0.pid == pid }
            if !own.isEmpty { return own }
        }
        return players.filter { named($0, as: window) }
    }

    /// The players a shield over `window` pauses: the window's, and playing
    /// (a paused or stopped one is left alone, so it is never resumed either).
    public static func toPause(_ found: [MediaPlayer], window: Window) -> [MediaPlayer] {
        players(found, of: window).filter { $0.status == .playing }
    }

    /// The streams a shield over `window` mutes: its own that are not muted
    /// already (those stay as the user left them, now and after). Its own:
    /// those of its process when the probe gave a pid and a stream comes
    /// from there, else those whose program has one of the window's names.
    public static func toMute(_ streams: [AudioStream], window: Window) -> [UInt32] {
        var own: [AudioStream] = []
        if let pid = window.pid, pid > 1 { own = streams.filter { $0.pid == pid } }
        if own.isEmpty {
            let names = window.identifiers
            own = streams.filter { $0.binary.map { names.contains($0.lowercased()) } ?? false }
        }
        return own.filter { !$0.muted }.map(\.index)
    }

    /// Of the streams blockerd muted, those still there to unmute.
    public static func toUnmute(_ muted: [UInt32], streams: [AudioStream]) -> [UInt32] {
        let present = Set(streams.map(\.index))
        return muted.filter(present.contains)
    }

    /// Parses `pactl list sink-inputs` (C locale): one stream per
    /// "Sink Input #N" block, with its `Mute:` line and
    /// `application.process.id = "PID"` and `application.process.binary`
    /// properties.
    public static func parseSinkInputs(_ text: String) -> [AudioStream] {
        var streams: [AudioStream] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            if trimmed.hasPrefix("Sink Input #"), let index = UInt32(trimmed.dropFirst("Sink Input #".count)) {
                streams.append(AudioStream(index: index, pid: nil, muted: false))
            } else if streams.isEmpty {
                continue
            } else if trimmed.hasPrefix("Mute:") {
                streams[streams.count - 1].muted = trimmed.dropFirst("Mute:".count)
                    .trimmingCharacters(in: " \t") == "yes"
            } else if let value = property(trimmed, "application.process.id") {
                streams[streams.count - 1].pid = Int32(value)
            } else if let value = property(trimmed, "application.process.binary") {
                streams[streams.count - 1].binary = value
            }
        }
        return streams
    }
}

/// `NAME = "VALUE"` → VALUE.
private func property(_ line: Substring, _ name: String) -> String? {
    guard line.hasPrefix(name + " = \"") else { return nil }
    return String(line.dropFirst(name.count + 4).prefix { $0 != "\"" })
}

extension Substring {
    fileprivate func trimmingCharacters(in set: String) -> Substring {
        var s = self
        while let first = s.first, set.contains(first) { s = s.dropFirst() }
        while let last = s.last, set.contains(last) { s = s.dropLast() }
        return s
    }
}
