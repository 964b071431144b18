import Testing
@testable import BlockerCore

@Suite struct NotificationPlanTests {
    func tick(_ balance: Milliseconds, crossed: [Milliseconds] = [], metered: Bool = true, locked: Bool = false,
              raised: Shield? = nil) -> NotificationPlan.Tick {
        .init(app: "firefox", metered: metered, locked: locked, balance: balance, crossed: crossed,
              shieldRaised: raised, shieldText: raised.map { _ in "Out of earned time" })
    }

    @Test func oneWarningPerCrossingThenACountdownUpdatedInPlace() {
        var plan = NotificationPlan(thresholds: [60_000, 300_000])
        #expect(plan.plan(tick(301_000)).isEmpty)
        let five = plan.plan(tick(299_000, crossed: [300_000]))
        #expect(five.map(\.kind) == [.warning])
        #expect(five[0].summary == "5m 00s left for firefox")
        #expect(plan.plan(tick(298_000)).isEmpty)                                  // no repeat
        let one = plan.plan(tick(59_500, crossed: [60_000]))
        #expect(one.map(\.kind) == [.countdown])                                   // the last threshold starts the countdown
        #expect(one[0].urgency == .low && one[0].summary == "59s left for firefox")
        #expect(plan.plan(tick(59_200)).isEmpty)                                   // same text: nothing re-sent
        #expect(plan.plan(tick(58_400)).map(\.summary) == ["58s left for firefox"])
    }

    @Test func timesUpWhenTheShieldGoesUp() {
        var plan = NotificationPlan(thresholds: [60_000])
        let shield = Shield(reason: .balance, reasons: [.balance], app: "firefox", group: nil, until: nil)
        let up = plan.plan(tick(0, raised: shield))
        #expect(up.map(\.summary) == ["Time's up for firefox"])
        #expect(up[0].body.hasPrefix("Out of earned time"))
    }

    @Test func nothingWhileLockedOrUnmetered() {
        var plan = NotificationPlan(thresholds: [60_000, 300_000])
        #expect(plan.plan(tick(299_000, crossed: [300_000], locked: true)).isEmpty)
        #expect(plan.plan(tick(30_000, metered: false)).isEmpty)
    }

    /// Row 9 of issue 20: an app id or group name a notification server
    /// would parse as markup (`<span size=…>` filling the screen).
    @Test func theBodyGoesOutAsTextAndTheSummaryStaysPlain() {
        var plan = NotificationPlan(thresholds: [60_000])
        let app = "a & <span size=\"99999\">x</span>"
        let shield = Shield(reason: .dailyLimit, reasons: [.dailyLimit], app: app, group: "games & <b>fun</b>", until: nil)
        let up = plan.plan(.init(app: app, metered: true, locked: false, balance: 0, crossed: [], shieldRaised: shield,
                                 shieldText: "Daily limit for games & <b>fun</b> reached"))
        #expect(up[0].summary == "\(app) is blocked")
        #expect(up[0].markupBody == "Daily limit for games &amp; &lt;b&gt;fun&lt;/b&gt; reached")
    }
}

@Suite struct MarkupTextTests {
    @Test func markupCharactersBecomeEntitiesAndControlsGo() {
        #expect(MarkupText.escaped("a & <span size=\"99999\">x</span> it's") ==
                "a &amp; &lt;span size=&quot;99999&quot;&gt;x&lt;/span&gt; it&apos;s")
        #expect(MarkupText.escaped("tab\there\nnew\u{01}line\u{7F}") == "tab\there\nnewline")
        #expect(MarkupText.escaped("été — 日本") == "été — 日本")
    }
}
