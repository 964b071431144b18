import Testing
@testable import BlockerBus
@testable import BlockerCLI
import BlockerCore
import BlockerJSON

/// `status --follow`'s own countdown between blockerd's signals.
@Suite struct StatusBarTests {
    func report(balance: Milliseconds, spending: Bool) -> StatusReport {
        StatusReport(balanceMs: balance, metered: spending, locked: false, foreground: nil,
                     shield: ShieldState(active: false, reason: nil, app: "", group: nil, until: nil, balanceMs: balance),
                     todayUsedMs: 0, todayEarnedMs: 0, probeName: "x11", probeOK: true, probeError: nil,
                     exercises: [], spending: spending)
    }

    @Test func whileSpendingTheBalanceIsCountedDownFromWhenItWasAsked() {
        let asked = report(balance: 60_000, spending: true)
        #expect(StatusBar.projected(asked, elapsedMs: 2_500)?.balanceMs == 57_500)
        #expect(StatusBar.projected(asked, elapsedMs: 2_500)?.todayUsedMs == 2_500)     // and counts as used
        #expect(StatusBar.projected(asked, elapsedMs: 90_000)?.balanceMs == 0)     // never below zero
        #expect(StatusBar.line(StatusBar.projected(asked, elapsedMs: 2_500), lowMs: 0, clock: LocalClock(zone: .utc, label: " UTC"), now: 0).text
                == "57s")
    }

    @Test func notSpendingTheBalanceStandsAndNothingWakesTheBar() {
        let asked = report(balance: 60_000, spending: false)
        #expect(StatusBar.projected(asked, elapsedMs: 5_000)?.balanceMs == 60_000)
        #expect(StatusBar.nextSecond(asked, elapsedMs: 5_000) == nil)
        #expect(StatusBar.nextSecond(nil, elapsedMs: 0) == nil)                    // blockerd away: signals only
    }

    @Test func theBarWakesWhenTheShownSecondChanges() {
        let asked = report(balance: 60_400, spending: true)
        #expect(StatusBar.nextSecond(asked, elapsedMs: 0) == 400)                // 60.4 s shows 1m 00s until 60.0
        #expect(StatusBar.nextSecond(asked, elapsedMs: 400) == 1000)
        #expect(StatusBar.nextSecond(asked, elapsedMs: 61_000) == nil)           // spent: the shield's signal comes
    }

    @Test func statusCarriesSpendingOnTheWireAndAnOlderBlockerdReadsAsNotSpending() throws {
        let spending = report(balance: 1000, spending: true)
        #expect(StatusReport(busDictionary: spending.busDictionary)?.spending == true)
        var old = spending.busDictionary
        old["spending"] = nil
        #expect(try #require(StatusReport(busDictionary: old)).spending == false)
    }

    /// Row 9 of issue 20: waybar reads `text` and `tooltip` as Pango markup,
    /// and any web page chooses its window's title.
    @Test func waybarGetsTheTitleAsTextNotMarkup() throws {
        var status = report(balance: 60_000, spending: true)
        status.foreground = .init(app: "firefox", title: "a & <span size=\"99999\">x</span>", pid: 7, groups: ["web"])
        let line = StatusBar.line(status, lowMs: 0, clock: LocalClock(zone: .utc, label: " UTC"), now: 0)
        let rendered = StatusBar.render(line, format: .waybar)
        let tooltip = try #require(try JSONReader.value(Array(rendered.utf8))["tooltip"]?.string)
        #expect(tooltip.contains("a &amp; &lt;span size=&quot;99999&quot;&gt;x&lt;/span&gt;"))
        #expect(!tooltip.contains("<"))
        // i3blocks and plain text show no title, and are not markup unless configured so.
        #expect(StatusBar.render(line, format: .text) == "1m 00s [ok]")
    }
}
