import Testing
@testable import BlockerCore

/// `busctl call … SetLockedHint true`, or a script owning
/// org.freedesktop.ScreenSaver, made blockerd believe the screen locked:
/// nothing charged. A claim nothing vouches for is now checked.
@Suite struct LockClaimCheckTests {
    let discord = Window(appID: "discord", title: "chat", pid: 42)
    let firefox = Window(appID: "firefox", title: "news", pid: 7)
    let claim = "logind's LockedHint"

    func claimed(_ window: Window?, idle: Milliseconds? = nil) -> Reading {
        Reading(window: window, locked: true, idle: idle, lockClaim: claim)
    }

    @Test func aQuietLockIsHonoured() {
        var check = LockClaimCheck()
        for second in 0..<120 {
            let (reading, event) = check.judge(claimed(discord, idle: .seconds(Int64(second)) + 500), monotonic: MonotonicInstant(ms: Int64(second) * 1000), wall: 0)
            #expect(reading.locked && event == nil)
        }
        #expect(check.isChecking)
    }

    @Test func aFocusChangeWhileLockedIsNotHonoured() {
        var check = LockClaimCheck()
        _ = check.judge(claimed(discord), monotonic: 0, wall: 1000)
        let (reading, event) = check.judge(claimed(firefox), monotonic: 4000, wall: 5000)
        #expect(!reading.locked)
        #expect(event == .notHonoured(source: claim, reason: "the window in front changed (discord → firefox)", sinceWall: 1000))
        // Not honoured until the claim ends, even back on the first window.
        #expect(!check.judge(claimed(discord), monotonic: 5000, wall: 6000).reading.locked)
        #expect(check.isOverruled && !check.isChecking)
        let end = check.judge(Reading(window: discord), monotonic: 6000, wall: 7000)
        #expect(end.event == .ended(sinceWall: 1000) && !check.isOverruled)
    }

    /// A password is typed in seconds; using the app behind a "lock" is input for minutes.
    @Test func inputGoingOnForHalfAMinuteIsNotHonoured() {
        var check = LockClaimCheck()
        _ = check.judge(claimed(discord, idle: 100), monotonic: 0, wall: 0)     // the key that locked it
        #expect(check.judge(claimed(discord, idle: 2000), monotonic: 5000, wall: 0).reading.locked)
        #expect(check.judge(claimed(discord, idle: 1000), monotonic: 20_000, wall: 0).reading.locked)
        let (reading, event) = check.judge(claimed(discord, idle: 300), monotonic: 35_000, wall: 0)
        #expect(!reading.locked)
        #expect(event == .notHonoured(source: claim, reason: "input went on for 30s while it said locked", sinceWall: 0))
    }

    @Test func aPauseEndsAStretchOfInput() {
        var check = LockClaimCheck()
        _ = check.judge(claimed(discord, idle: 60_000), monotonic: 0, wall: 0)
        #expect(check.judge(claimed(discord, idle: 1000), monotonic: 10_000, wall: 0).reading.locked)   // a wrong password
        #expect(check.judge(claimed(discord, idle: 12_000), monotonic: 22_000, wall: 0).reading.locked)
        #expect(check.judge(claimed(discord, idle: 1000), monotonic: 45_000, wall: 0).reading.locked)   // and another
        #expect(check.judge(claimed(discord, idle: 1000), monotonic: 50_000, wall: 0).reading.locked)
    }

    /// A lock the probe itself saw (the X server's screen saver, the shell) is no claim.
    @Test func aProbesOwnLockIsNotChecked() {
        var check = LockClaimCheck()
        _ = check.judge(Reading(window: discord, locked: true), monotonic: 0, wall: 0)
        #expect(check.judge(Reading(window: firefox, locked: true), monotonic: 1000, wall: 0).reading.locked)
        #expect(!check.isChecking)
    }

    @Test func knownLockersInstalledBySystemVouch() {
        func vouches(_ path: String, uid: UInt32? = 0, mode: UInt32? = 0o100755) -> Bool {
            ScreenLockers.vouches(executablePath: path, ownerUID: uid, mode: mode)
        }
        #expect(vouches("/usr/bin/xfce4-screensaver"))
        #expect(vouches("/usr/libexec/gsd-screensaver-proxy"))
        #expect(!vouches("/usr/bin/python3.11"))
        #expect(!vouches("/home/me/bin/xfce4-screensaver", uid: 1000))
        #expect(!vouches("/usr/bin/../../home/me/xscreensaver"))
        #expect(!vouches("/usr/bin/xscreensaver", uid: 1000))          // not root's
        #expect(!vouches("/usr/bin/xscreensaver", mode: 0o100777))     // anyone may rewrite it
        #expect(!vouches("/usr/bin/xscreensaver", uid: nil, mode: nil)) // gone, or not stat'able
    }
}
