import BlockerCore
import BlockerMedia

/// While a shield is up, the covered app's media is paused and its sound
/// muted (`[cover] pause-media`, `mute`); when it lifts, what blockerd muted
/// is unmuted and, after an earning, what it paused is played again.
/// Nothing blockerd did not pause or mute is ever touched.
final class CoverMediaGuard {
    private let players: MediaPlayers?
    private let settings: () -> CoverSettings
    private let log: (LogEvent) -> Void
    /// Which cover the answers belong to: a survey that comes back after the
    /// shield it was for lifted changes nothing.
    private var generation = 0
    private var coveredApp: String?
    private var paused: [String] = []
    private var muted: [UInt32] = []
    /// No sound server (or no pactl) is said once, not at every shield.
    private var audioUnavailable = false

    init(players: MediaPlayers?, settings: @escaping () -> CoverSettings, log: @escaping (LogEvent) -> Void) {
        self.players = players
        self.settings = settings
        self.log = log
    }

    func shieldChanged(_ shield: Shield?, window: Window?, liftedByEarning: Bool) {
        guard let shield else { return lifted(resume: liftedByEarning) }
        // A new reason over the same app is the same cover.
        guard shield.app != coveredApp else { return }
        if coveredApp != nil { lifted(resume: false) }
        coveredApp = shield.app
        generation += 1
        guard let window else { return }
        let cover = settings()
        if cover.pauseMedia { pauseMedia(of: window, app: shield.app) }
        if cover.mute { mute(window, app: shield.app) }
    }

    private func pauseMedia(of window: Window, app: String) {
        guard let players else { return }
        let cover = generation
        players.survey { [weak self] found in
            guard let self, self.generation == cover else { return }
            for player in CoverMedia.toPause(found, window: window) {
                players.pause(player.busName) { [weak self] error in
                    guard let self else { return }
                    if let error {
                        self.log(LogEvent(priority: .warning, "Cannot pause \(player.busName) for \(app): \(error)"))
                        return
                    }
                    guard self.generation == cover else { return }
                    self.paused.append(player.busName)
                    self.log(LogEvent(.mediaPaused, "Paused \(player.identity ?? player.busName) under the cover of \(app)",
                                      fields: [("APP", app), ("PLAYER", player.busName)]))
                }
            }
        }
    }

    private func mute(_ window: Window, app: String) {
        switch AudioStreams.list() {
        case let .failure(why):
            if !audioUnavailable {
                log(LogEvent(priority: .info, "Cannot list audio streams to mute \(app) (said once until it works): \(why)"))
            }
            audioUnavailable = true
        case let .success(streams):
            audioUnavailable = false
            for index in CoverMedia.toMute(streams, window: window) {
                if let error = AudioStreams.setMute(index, true) {
                    log(LogEvent(priority: .warning, "Cannot mute stream \(index) of \(app): \(error)"))
                    continue
                }
                muted.append(index)
                log(LogEvent(.audioMuted, "Muted audio stream \(index) of \(app) under the cover",
                             fields: [("APP", app), ("STREAM", "\(index)"),
                                      ("PID", streams.first { $0.index == index }?.pid.map { "\($0)" } ?? "")]))
            }
        }
    }

    private func lifted(resume: Bool) {
        guard let app = coveredApp else { return }
        coveredApp = nil
        generation += 1
        if !muted.isEmpty {
            let streams = (try? AudioStreams.list().get()) ?? []
            for index in CoverMedia.toUnmute(muted, streams: streams) {
                if let error = AudioStreams.setMute(index, false) {
                    log(LogEvent(priority: .warning, "Cannot unmute stream \(index) of \(app): \(error)"))
                    continue
                }
                log(LogEvent(.audioUnmuted, "Unmuted audio stream \(index) of \(app)",
                             fields: [("APP", app), ("STREAM", "\(index)")]))
            }
            muted = []
        }
        let toResume = resume ? paused : []
        paused = []
        for name in toResume {
            players?.play(name) { [weak self] error in
                if let error {
                    self?.log(LogEvent(priority: .warning, "Cannot resume \(name) for \(app): \(error)"))
                } else {
                    self?.log(LogEvent(.mediaResumed, "Resumed \(name) after earning", fields: [("APP", app), ("PLAYER", name)]))
                }
            }
        }
    }
}
