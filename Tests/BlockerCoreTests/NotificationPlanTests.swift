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
}
