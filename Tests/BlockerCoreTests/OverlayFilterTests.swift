import BlockerCore
import Testing

@Suite struct OverlayFilterTests {
    let app = Window(appID: "firefox", title: "News", pid: 100)
    let other = Window(wmInstance: "discord", wmClass: "discord", title: "general", pid: 200)
    /// blocker-overlay's process, as blockerd checked it.
    let coverPIDs: Set<Int32> = [4242]

    @Test(arguments: [
        Window(appID: "blocker-overlay", pid: 300),
        Window(wmInstance: "blocker-overlay", wmClass: "Blocker-overlay", pid: 300),
        Window(wmInstance: "other", wmClass: "BLOCKER-OVERLAY", pid: 300),
        Window(appID: "blocker-overlay"),
    ])
    func anAppNamedLikeTheCoverIsAnApp(window: Window) {
        // Row 1 of issue 20: `--class blocker-overlay` made any app pass for the cover.
        #expect(OverlayFilter.Focus(window, coverPIDs: coverPIDs) == .window(window))
    }

    @Test func theCoverIsKnownByItsProcessWhateverItsNames() {
        let cover = Window(appID: "anything", title: "blocker", pid: 4242)
        #expect(OverlayFilter.Focus(cover, coverPIDs: coverPIDs) == .overlay)
        #expect(OverlayFilter.Focus(cover, coverPIDs: []) == .window(cover), "no checked cover: no window is it")
        #expect(OverlayFilter.Focus(nil, coverPIDs: coverPIDs) == .nothing)
        #expect(OverlayFilter.Focus(app, coverPIDs: coverPIDs) == .window(app))
    }

    @Test func theOverlayKeepsReportingTheLastRealWindow() {
        var filter = OverlayFilter()
        #expect(filter.foreground(app, coverPIDs: coverPIDs) == app)
        #expect(filter.foreground(.overlay) == app)
        #expect(filter.foreground(.overlay) == app)
        #expect(filter.foreground(other, coverPIDs: coverPIDs) == other)
        #expect(filter.foreground(.overlay) == other)
        #expect(filter.lastRealWindow == other)
    }

    @Test func nothingInFrontIsForgottenAndTheOverlayOverNothingIsNothing() {
        var filter = OverlayFilter()
        #expect(filter.foreground(.overlay) == nil)
        #expect(filter.foreground(app, coverPIDs: coverPIDs) == app)
        #expect(filter.foreground(nil, coverPIDs: coverPIDs) == nil)
        #expect(filter.foreground(.overlay) == nil)
    }

    @Test func theNameIsTheOverlaysProgramName() {
        #expect(OverlayIdentity.name == "blocker-overlay")
        #expect(OverlayIdentity.unit == "blocker-overlay.service")
    }

    // MARK: which program a cover client runs

    @Test func theOverlayIsTheFileBesideBlockerd() {
        let expected = "/home/u/.local/bin/blocker-overlay"
        #expect(CoverProgram.classify(path: expected, ownerUID: 1000, mode: 0o100755, overlayPath: expected) == .overlay)
        #expect(CoverProgram.classify(path: "/tmp/blocker-overlay", ownerUID: 1000, mode: 0o100755, overlayPath: expected)
            == .unexpected("/tmp/blocker-overlay"), "a copy elsewhere is not it")
        #expect(CoverProgram.classify(path: expected, ownerUID: 1000, mode: 0o100755, overlayPath: nil)
            == .unexpected(expected), "none expected: none accepted")
    }

    @Test func aShellIsARootOwnedBinaryOfItsName() {
        #expect(CoverProgram.classify(path: "/usr/bin/gnome-shell", ownerUID: 0, mode: 0o100755, overlayPath: nil)
            == .shell("gnome-shell"))
        #expect(CoverProgram.classify(path: "/usr/bin/kwin_wayland", ownerUID: 0, mode: 0o100755, overlayPath: nil)
            == .shell("kwin_wayland"))
        // A copy of python3 named gnome-shell in the user's home is no shell.
        #expect(CoverProgram.classify(path: "/home/u/gnome-shell", ownerUID: 1000, mode: 0o100755, overlayPath: nil)
            == .unexpected("/home/u/gnome-shell"))
        #expect(CoverProgram.classify(path: "/opt/gnome-shell", ownerUID: 0, mode: 0o100777, overlayPath: nil)
            == .unexpected("/opt/gnome-shell"), "writable by others")
        #expect(CoverProgram.classify(path: "/usr/bin/python3.11", ownerUID: 0, mode: 0o100755, overlayPath: nil)
            == .unexpected("/usr/bin/python3.11"))
        #expect(CoverProgram.classify(path: nil, ownerUID: nil, mode: nil, overlayPath: "/x")
            == .unexpected("an unreadable executable"))
    }
}
