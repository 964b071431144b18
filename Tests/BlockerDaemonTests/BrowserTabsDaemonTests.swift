import Foundation
import Testing
@testable import BlockerDaemon
import BlockerCore
import BlockerStore
import TestSupport

/// Sites through the daemon (issue 24), against the real ledger and the
/// command probe, whose window has pid 1: the browser. The extension's
/// reports come as `ReportTab` hands them over (the endpoint has checked the
/// native host and found its parent); here they go straight in.
@Suite struct BrowserTabsDaemonTests {
    let pushups = Exercise(name: "pushups", perRep: 30_000)

    static let sections = """
        [[group]]
        name = "video"
        sites = ["youtube.com", "*.twitch.tv"]

        [[group]]
        name = "browsers"
        apps = ["chromium"]
        metered = false
        """

    /// `reps` pushups (30 s each) earned, chromium (pid 1) in front for a tick.
    func started(reps: Int = 10, log: MemoryLog = MemoryLog()) throws -> (Sandbox, Daemon, Clock) {
        let box = try Sandbox()
        try box.write(commandProbeConfig(frontFile: box.frontPath, warnBefore: nil, sections: Self.sections), to: box.configPath)
        let daemon = try box.daemon(log: log)
        var clock = Clock()
        _ = try daemon.earn(exercise: pushups, reps: reps, wall: clock.wall)
        box.front("chromium")
        daemon.tick(clock)
        clock.advance(.seconds(1))
        return (box, daemon, clock)
    }

    /// `seconds` of ticks a second apart (a longer gap is capped at two polls).
    func pass(_ seconds: Int, _ daemon: Daemon, _ clock: inout Clock) {
        for _ in 0..<seconds {
            clock.advance(.seconds(1))
            daemon.tick(clock)
        }
    }

    @Test func aMeteredSitesTabIsChargedAnotherSitesIsNot() throws {
        var (box, daemon, clock) = try started()
        defer { withExtendedLifetime(box) {} }
        daemon.browserReported(BrowserTab(site: "youtube.com"), focused: true, browser: 1, host: ":1.7")
        daemon.tick(clock)
        #expect(daemon.state.front?.tab?.site == "youtube.com")
        pass(4, daemon, &clock)
        #expect(daemon.ledger.balance == .seconds(296), "4 s on youtube.com")
        daemon.browserReported(BrowserTab(site: "example.org"), focused: true, browser: 1, host: ":1.7")
        daemon.tick(clock)
        pass(4, daemon, &clock)
        #expect(daemon.ledger.balance == .seconds(296), "charged on example.org, in no group but the browser's")
        let today = daemon.meter.zone.localDate(at: clock.wall)
        #expect(daemon.ledger.usedToday(day: today)["video"] == .seconds(4))
    }

    @Test func aBrowserWithoutTheExtensionIsItsWindowAndAnotherPidsReportIsNotItsTab() throws {
        let log = MemoryLog()
        var (box, daemon, clock) = try started(log: log)
        defer { withExtendedLifetime(box) {} }
        daemon.browserReported(BrowserTab(site: "youtube.com"), focused: true, browser: 4242, host: ":1.7")
        daemon.tick(clock)
        pass(4, daemon, &clock)
        #expect(daemon.state.front?.tab == nil)
        #expect(daemon.ledger.balance == .seconds(300))
        // Said once in the journal, and kept for doctor.
        #expect(daemon.state.browsersWithoutExtension == ["chromium"])
        #expect(log.events.filter { $0.message.contains("without blocker's browser extension") }.count == 1)
        // The extension loaded since: it reports, and doctor has nothing more to say.
        daemon.browserReported(BrowserTab(site: "example.org"), focused: true, browser: 1, host: ":1.8")
        daemon.tick(clock)
        #expect(daemon.state.browsersWithoutExtension.isEmpty)
    }

    @Test func aBrowserWindowTheExtensionDoesNotSeeFocusedIsJudgedAsAWindow() throws {
        var (box, daemon, clock) = try started()
        defer { withExtendedLifetime(box) {} }
        // A private window the extension may not run in: it says no window of its browser has the focus.
        daemon.browserReported(BrowserTab(site: "youtube.com"), focused: false, browser: 1, host: ":1.7")
        daemon.tick(clock)
        pass(3, daemon, &clock)
        #expect(daemon.state.front?.tab == nil)
        #expect(daemon.ledger.balance == .seconds(300), "the last tab it saw is not the one in front")
    }

    @Test func atZeroTheSiteShieldIsTheTabsAndItsTimeIsChargedUntilThePageIsDrawn() throws {
        var (box, daemon, clock) = try started(reps: 1)
        defer { withExtendedLifetime(box) {} }
        daemon.browserReported(BrowserTab(site: "twitch.tv"), focused: true, browser: 1, host: ":1.7")
        daemon.tick(clock)
        pass(31, daemon, &clock)
        #expect(daemon.ledger.balance == 0)
        let shield = try #require(daemon.shield)
        #expect(shield.reason == .balance && shield.site == "twitch.tv" && shield.group == nil)
        #expect(!daemon.windowCoverWanted, "no window cover for a tab the extension covers")
        // Another tab of the browser: no site of a group, no shield; the site's again: the shield.
        daemon.browserReported(BrowserTab(site: "example.org"), focused: true, browser: 1, host: ":1.7")
        daemon.tick(clock)
        #expect(daemon.shield == nil)
        daemon.browserReported(BrowserTab(site: "twitch.tv", covered: true), focused: true, browser: 1, host: ":1.7")
        daemon.tick(clock)
        #expect(daemon.shield?.site == "twitch.tv")
        // The host left (the browser quit): the window is judged as a window again.
        daemon.browserHostLeft(":1.7")
        daemon.tick(clock)
        #expect(daemon.shield == nil && daemon.state.front?.tab == nil)
    }

    @Test func aBlockOnTheSiteGroupIsChargedUntilTheExtensionCoversTheTab() throws {
        var (box, daemon, clock) = try started()
        defer { withExtendedLifetime(box) {} }
        _ = try daemon.block(target: "video", until: clock.wall + .minutes(30), wall: clock.wall)
        daemon.browserReported(BrowserTab(site: "youtube.com"), focused: true, browser: 1, host: ":1.7")
        daemon.tick(clock)
        #expect(daemon.shield?.reason == .timedBlock && daemon.shield?.site == "youtube.com")
        pass(2, daemon, &clock)
        #expect(daemon.ledger.balance == .seconds(298), "uncovered: the page could be used")
        daemon.browserReported(BrowserTab(site: "youtube.com", covered: true), focused: true, browser: 1, host: ":1.7")
        daemon.tick(clock)
        pass(5, daemon, &clock)
        #expect(daemon.ledger.balance == .seconds(298), "charged under blocker's page")
    }
}
