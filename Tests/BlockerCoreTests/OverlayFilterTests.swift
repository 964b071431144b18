import BlockerCore
import Testing

@Suite struct OverlayFilterTests {
    let app = Window(appID: "firefox", title: "News")
    let other = Window(wmInstance: "discord", wmClass: "discord", title: "general")

    @Test(arguments: [
        Window(appID: "blocker-overlay"),
        Window(wmInstance: "blocker-overlay", wmClass: "Blocker-overlay"),
        Window(wmInstance: "other", wmClass: "BLOCKER-OVERLAY"),
    ])
    func theOverlayIsKnownByAnyOfItsNamesInAnyCase(window: Window) {
        #expect(OverlayIdentity.isOverlay(window))
        #expect(OverlayFilter.Focus(window) == .overlay)
    }

    @Test func otherWindowsAreNotTheOverlay() {
        #expect(!OverlayIdentity.isOverlay(app))
        #expect(!OverlayIdentity.isOverlay(Window(appID: "blocker-overlay-2", title: "blocker-overlay")))
        #expect(!OverlayIdentity.isOverlay(names: [nil, ""]))
        #expect(OverlayFilter.Focus(nil) == .nothing)
        #expect(OverlayFilter.Focus(app) == .window(app))
    }

    @Test func theOverlayKeepsReportingTheLastRealWindow() {
        var filter = OverlayFilter()
        #expect(filter.foreground(app) == app)
        #expect(filter.foreground(.overlay) == app)
        #expect(filter.foreground(.overlay) == app)
        #expect(filter.foreground(other) == other)
        #expect(filter.foreground(.overlay) == other)
        #expect(filter.lastRealWindow == other)
    }

    @Test func nothingInFrontIsForgottenAndTheOverlayOverNothingIsNothing() {
        var filter = OverlayFilter()
        #expect(filter.foreground(.overlay) == nil)
        #expect(filter.foreground(app) == app)
        #expect(filter.foreground(nil) == nil)
        #expect(filter.foreground(.overlay) == nil)
    }

    @Test func theNameIsTheOverlaysProgramName() {
        #expect(OverlayIdentity.name == "blocker-overlay")
    }
}
