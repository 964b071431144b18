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

    @Test func appNameForPeople() {
        #expect(Window(appID: "foot", wmClass: "x").app == "foot")
        #expect(Window(wmInstance: "navigator", wmClass: "firefox").app == "firefox")
        #expect(Window(exe: "java").app == "java")
        #expect(Window(appID: "", wmClass: "XTerm").app == "XTerm")
    }
}
