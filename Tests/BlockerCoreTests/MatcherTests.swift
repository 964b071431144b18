import Testing
@testable import BlockerCore

@Suite struct MatcherTests {
    let groups = [
        group("social", apps: ["Discord", "org.telegram.desktop"]),
        group("video", apps: ["firefox", "chromium"], titles: ["YouTube", "Twitch"]),
        group("browsers", apps: ["firefox"], metered: false),
    ]

    @Test func matchesByAnyIdentifierIgnoringCase() {
        let m = Matcher(groups: groups)
        #expect(m.groups(for: Window(appID: "discord")).map(\.name) == ["social"])
        #expect(m.groups(for: Window(wmInstance: "DISCORD", wmClass: "Whatever")).map(\.name) == ["social"])
        #expect(m.groups(for: Window(wmClass: "org.Telegram.Desktop")).map(\.name) == ["social"])
        #expect(m.groups(for: Window(exe: "discord")).map(\.name) == ["social"])
        #expect(m.groups(for: Window(appID: "foot")).isEmpty)
    }

    @Test func titlesFilterOnlyTheirGroup() {
        let m = Matcher(groups: groups)
        #expect(m.groups(for: Window(wmClass: "firefox", title: "Cats - youtube — Mozilla Firefox")).map(\.name)
                == ["video", "browsers"])
        #expect(m.groups(for: Window(wmClass: "firefox", title: "Swift docs")).map(\.name) == ["browsers"])
    }

    @Test func titleRegexesAreRegexes() {
        let m = Matcher(groups: [group("news", apps: ["firefox"], titles: ["^(BBC|CNN) "])])
        #expect(m.groups(for: Window(wmClass: "firefox", title: "BBC News")).count == 1)
        #expect(m.groups(for: Window(wmClass: "firefox", title: "Not BBC News")).isEmpty)
    }

    @Test func anUnchangedWindowIsMatchedOnce() {
        let m = Matcher(groups: groups)
        let youtube = Window(wmClass: "firefox", title: "Cats - YouTube", pid: 1)
        #expect(m.groups(for: youtube).map(\.name) == ["video", "browsers"])
        #expect(m.verdictsComputed == 1)
        for _ in 0..<10 { #expect(m.groups(for: youtube).map(\.name) == ["video", "browsers"]) }
        // Another pid shows the same window: the verdict does not depend on it.
        #expect(m.groups(for: Window(wmClass: "firefox", title: "Cats - YouTube", pid: 2)).count == 2)
        #expect(m.verdictsComputed == 1)
        // A new title, or a new app with the same title, is matched afresh.
        #expect(m.groups(for: Window(wmClass: "firefox", title: "Swift docs")).map(\.name) == ["browsers"])
        #expect(m.groups(for: Window(wmClass: "chromium", title: "Cats - YouTube")).map(\.name) == ["video"])
        #expect(m.verdictsComputed == 3)
        // Copies share the cache.
        let copy = m
        _ = copy.groups(for: youtube)
        #expect(m.verdictsComputed == 3)
    }

    @Test func theCacheIsBounded() {
        let m = Matcher(groups: groups)
        for n in 0..<1000 {
            let title = n.isMultiple(of: 2) ? "YouTube #\(n)" : "page #\(n)"
            #expect(m.groups(for: Window(wmClass: "firefox", title: title)).count == (n.isMultiple(of: 2) ? 2 : 1))
        }
        #expect(m.verdictsCached <= 64)
        #expect(m.verdictsComputed == 1000)
    }

    @Test func aReloadMatchesWithTheNewTitles() {
        let old = Config(groups: [group("video", apps: ["firefox"], titles: ["YouTube"])])
        var meter = Meter(config: old, zone: .utc)
        let window = Window(wmClass: "firefox", title: "Cats - YouTube")
        let ledger = LedgerSnapshot(balance: 0)
        #expect(meter.decide(window: window, ledger: ledger, now: 0).groups == ["video"])
        #expect(meter.decide(window: window, ledger: ledger, now: 0).shield != nil)
        meter.reconfigure(Config(groups: [group("video", apps: ["firefox"], titles: ["Twitch"])]))
        #expect(meter.decide(window: window, ledger: ledger, now: 0).groups == [])
        #expect(meter.decide(window: window, ledger: ledger, now: 0).shield == nil)
    }

    @Test func aTabsSiteComesBeforeTheBrowsersAppAndTitle() {
        let m = Matcher(groups: [
            AppGroup(name: "video", apps: [], sites: ["youtube.com", "*.twitch.tv"].map { SitePattern($0)! }),
            group("browsers", apps: ["chromium"], metered: false),
            group("titled", apps: ["chromium"], titles: ["Reddit"]),
        ])
        func tab(_ site: String?, title: String = "") -> Window {
            Window(wmClass: "chromium", title: title, pid: 7, tab: BrowserTab(site: site))
        }
        #expect(m.groups(for: tab("youtube.com")).map(\.name) == ["video"])
        #expect(m.groups(for: tab("twitch.tv")).map(\.name) == ["video"])
        #expect(m.groups(for: tab("clips.twitch.tv")).map(\.name) == ["video"])
        // A title the page chose cannot move a site's tab out of its group.
        #expect(m.groups(for: tab("youtube.com", title: "Reddit")).map(\.name) == ["video"])
        // A site no group names, a page with none, no extension: apps, then titles, as before.
        #expect(m.groups(for: tab("example.org", title: "Reddit")).map(\.name) == ["browsers", "titled"])
        #expect(m.groups(for: tab(nil)).map(\.name) == ["browsers"])
        #expect(m.groups(for: Window(wmClass: "chromium", title: "YouTube")).map(\.name) == ["browsers"])
        // The same window with another site is another verdict, not the cached one.
        #expect(m.groups(for: tab("youtube.com")).map(\.name) == ["video"])
        #expect(m.groups(for: tab("notyoutube.com")).map(\.name) == ["browsers"])
    }

    @Test func appNameForPeople() {
        #expect(Window(appID: "foot", wmClass: "x").app == "foot")
        #expect(Window(wmInstance: "navigator", wmClass: "firefox").app == "firefox")
        #expect(Window(exe: "java").app == "java")
        #expect(Window(appID: "", wmClass: "XTerm").app == "XTerm")
    }
}
