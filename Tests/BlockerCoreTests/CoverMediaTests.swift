import Testing
@testable import BlockerCore

private func player(_ name: String, pid: Int32?, _ status: PlaybackStatus?, identity: String? = nil,
                    desktopEntry: String? = nil) -> MediaPlayer {
    MediaPlayer(busName: "org.mpris.MediaPlayer2.\(name)", pid: pid, identity: identity,
                desktopEntry: desktopEntry, status: status)
}

@Suite struct CoverMediaTests {
    @Test func pausesOnlyTheFrontProcessesPlayersWhenThePidIsKnown() {
        let front = Window(appID: "mpv", title: "song", pid: 100)
        let players = [player("mpv", pid: 100, .playing, identity: "mpv"),
                       player("mpv.instance200", pid: 200, .playing, identity: "mpv"),
                       player("spotify", pid: 300, .playing)]
        #expect(CoverMedia.toPause(players, window: front).map(\.busName) == ["org.mpris.MediaPlayer2.mpv"])
    }

    @Test func fallsBackToNamesWithoutAPidOrWhenNoPlayerRunsInTheProcess() {
        let players = [player("firefox.instance_1_7", pid: 4242, .playing, identity: "Mozilla Firefox",
                              desktopEntry: "firefox"),
                       player("vlc", pid: 77, .playing, identity: "VLC media player", desktopEntry: "vlc")]
        // wlroots: no pid at all.
        #expect(CoverMedia.toPause(players, window: Window(appID: "firefox")).map(\.pid) == [4242])
        // The window's process is not the one owning the bus name (a helper process).
        #expect(CoverMedia.toPause(players, window: Window(wmClass: "firefox", pid: 4000)).map(\.pid) == [4242])
        // The bus name's first part counts too; nothing matches an unrelated app.
        #expect(CoverMedia.toPause([player("mpv", pid: nil, .playing)], window: Window(appID: "MPV")).count == 1)
        #expect(CoverMedia.toPause(players, window: Window(appID: "discord", pid: 9)).isEmpty)
    }

    @Test func leavesPausedAndStoppedPlayersAlone() {
        let front = Window(appID: "mpv", pid: 100)
        for status: PlaybackStatus? in [.paused, .stopped, nil] {
            #expect(CoverMedia.toPause([player("mpv", pid: 100, status)], window: front).isEmpty)
        }
    }

    @Test func mutesOnlyTheAppsUnmutedStreamsAndUnmutesOnlyThoseStillThere() {
        let streams = [AudioStream(index: 3, pid: 100, muted: false), AudioStream(index: 4, pid: 100, muted: true),
                       AudioStream(index: 5, pid: 200, muted: false), AudioStream(index: 6, pid: nil, muted: false)]
        #expect(CoverMedia.toMute(streams, window: Window(appID: "mpv", pid: 100)) == [3])
        #expect(CoverMedia.toUnmute([3, 9], streams: streams) == [3])
    }

    @Test func mutesByProgramNameWithoutAPidOrWhenNoStreamComesFromTheProcess() {
        let streams = [AudioStream(index: 1, pid: 50, binary: "chromium", muted: false),
                       AudioStream(index: 2, pid: 60, binary: "mpv", muted: false),
                       AudioStream(index: 3, pid: 70, binary: "Chromium", muted: true)]
        #expect(CoverMedia.toMute(streams, window: Window(appID: "chromium")) == [1])
        #expect(CoverMedia.toMute(streams, window: Window(wmClass: "chromium", pid: 40)) == [1])
        #expect(CoverMedia.toMute(streams, window: Window(appID: "mpv", pid: 60)) == [2])
        #expect(CoverMedia.toMute(streams, window: Window(appID: "discord", pid: 9)).isEmpty)
    }

    @Test func parsesPactlSinkInputs() {
        let text = """
        Sink Input #12
        \tDriver: protocol-native.c
        \tMute: no
        \tProperties:
        \t\tapplication.name = "mpv Media Player"
        \t\tapplication.process.id = "4242"
        \t\tapplication.process.binary = "mpv"

        Sink Input #13
        \tMute: yes
        \tProperties:
        \t\tapplication.process.id = "77"
        Sink Input #14
        \tMute: no
        """
        #expect(CoverMedia.parseSinkInputs(text) == [AudioStream(index: 12, pid: 4242, binary: "mpv", muted: false),
                                                     AudioStream(index: 13, pid: 77, muted: true),
                                                     AudioStream(index: 14, pid: nil, muted: false)])
        #expect(CoverMedia.parseSinkInputs("").isEmpty)
    }

    @Test func coverSettingsDefaultOnAndAreRead() throws {
        #expect(try Config(document: [:], file: "blocker.toml").cover == CoverSettings(pauseMedia: true, mute: true))
        let off = try Config(document: ["cover": ["pause-media": false, "mute": false]], file: "blocker.toml")
        #expect(off.cover == CoverSettings(pauseMedia: false, mute: false))
    }

    @Test func coverSettingsRefuseWhatTheyDoNotKnow() {
        func refusal(_ document: ConfigValue) -> String? {
            do { _ = try Config(document: document, file: "blocker.toml"); return nil } catch { return error.description }
        }
        #expect(refusal(["cover": ["pause": true]])?.contains("unknown key \"pause\" (known: pause-media, mute)") == true)
        #expect(refusal(["cover": ["mute": "yes"]])?.contains("mute = true") == true)
        #expect(refusal(["cover": true])?.contains("[cover]") == true)
    }
}
