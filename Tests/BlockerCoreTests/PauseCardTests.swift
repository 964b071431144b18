import Testing
@testable import BlockerCore

@Suite struct PauseCardTests {
    let paris = zone("Europe/Paris")
    var now: WallInstant { at(paris, "2026-11-30", "14:00") }

    func pause(until: WallInstant?, group: String? = "social", askReason: Bool = false,
               passesLeft: Int? = 1) -> ShieldState {
        ShieldState(active: true, reason: .pause, app: "discord", group: group, until: until, balanceMs: 300_000,
                    askReason: askReason, passesLeft: passesLeft)
    }

    func shown(_ shield: ShieldState) -> OverlayModel {
        var model = OverlayModel()
        _ = model.shieldChanged(shield)
        return model
    }

    @Test func aPauseCardTakesABreathAndCountsDown() {
        let model = shown(pause(until: now + .seconds(10)))
        let card = model.card(now: now, zone: paris)
        let expected = OverlayCard.Pause(group: "social", question: "Still want discord?", until: now + .seconds(10),
                                         secondsLeft: 10,
                                         asksReason: false)
        #expect(card == OverlayCard(headline: "Take a breath", reason: "Still want discord?", balance: nil,
                                    offersEarning: false, footnote: nil, pause: expected, pass: nil))
        #expect(card?.pause?.canOpen == false)
    }

    @Test func openIsEnabledExactlyWhenTheCountdownEnds() {
        let until = now + .seconds(10)
        let model = shown(pause(until: until))
        #expect(model.card(now: until - Milliseconds(ms: 1), zone: paris)?.pause?.secondsLeft == 1)
        #expect(model.card(now: until - Milliseconds(ms: 1), zone: paris)?.pause?.canOpen == false)
        #expect(model.card(now: until, zone: paris)?.pause?.secondsLeft == 0)
        #expect(model.card(now: until, zone: paris)?.pause?.canOpen == true)
        // The shield stays after the countdown until answered: never below 0.
        #expect(model.card(now: until + .minutes(5), zone: paris)?.pause?.secondsLeft == 0)
        #expect(model.card(now: until + .minutes(5), zone: paris)?.pause?.canOpen == true)
    }

    @Test func theCountdownShowsWholeSecondsRoundedUp() {
        let until = now + .seconds(10)
        #expect(PauseCountdown.secondsLeft(until: until, now: now + Milliseconds(ms: 2_700)) == 8)
        #expect(PauseCountdown.secondsLeft(until: until, now: now + Milliseconds(ms: 3_000)) == 7)
        #expect(PauseCountdown.secondsLeft(until: until, now: now + Milliseconds(ms: 9_999)) == 1)
        #expect(PauseCountdown.secondsLeft(until: until, now: until + .days(1)) == 0)
    }

    @Test func theTimerWakesWhenTheNumberChangesAndStopsAtZero() {
        let until = now + .seconds(10)
        var model = shown(pause(until: until))
        #expect(model.nextTick(now: now) == .seconds(1))
        #expect(model.nextTick(now: now + Milliseconds(ms: 2_700)) == Milliseconds(ms: 300))
        #expect(model.nextTick(now: until - Milliseconds(ms: 1)) == Milliseconds(ms: 1))
        #expect(model.nextTick(now: until) == nil)
        #expect(model.nextTick(now: until + .seconds(3)) == nil)
        // No countdown under another shield, nor while the shell covers.
        _ = model.shieldChanged(ShieldState(active: true, reason: .balance, app: "discord", balanceMs: 0))
        #expect(model.nextTick(now: now) == nil)
        _ = model.shieldChanged(pause(until: until))
        _ = model.shellCoverChanged(true)
        #expect(model.nextTick(now: now) == nil)
    }

    @Test func thePauseAsksWhyOnlyWhenConfigured() {
        #expect(shown(pause(until: now + .seconds(5), askReason: true)).card(now: now, zone: paris)?.pause?.asksReason == true)
        #expect(shown(pause(until: now + .seconds(5))).card(now: now, zone: paris)?.pause?.asksReason == false)
    }

    @Test func aPauseOffersNoPassAndNoEarning() {
        let card = shown(pause(until: now + .seconds(5), passesLeft: 3)).card(now: now, zone: paris)
        #expect(card?.pass == nil)
        #expect(card?.offersEarning == false)
    }

    @Test func aPauseWithoutAGroupIsShownAsAPlainShield() {
        // No blockerd sends one (a pause is a group's): still covered, but nothing to answer for.
        let card = shown(pause(until: now + .seconds(5), group: nil)).card(now: now, zone: paris)
        #expect(card?.pause == nil)
        #expect(card?.headline == "discord")
        #expect(card?.reason == "Take a breath")
    }

    @Test func aChangeOfAskReasonOrPassesRedrawsTheCard() {
        var model = shown(pause(until: now + .seconds(5)))
        #expect(model.shieldChanged(pause(until: now + .seconds(5), askReason: true)) == .update)
        #expect(model.shieldChanged(pause(until: now + .seconds(5), askReason: true, passesLeft: 0)) == .update)
    }
}

@Suite struct PassOfferTests {
    let paris = zone("Europe/Paris")
    var now: WallInstant { at(paris, "2026-11-30", "22:40") }

    func card(_ reason: ShieldReason, group: String?, passesLeft: Int?) -> OverlayCard? {
        var model = OverlayModel()
        _ = model.shieldChanged(ShieldState(active: true, reason: reason, app: "discord", group: group,
                                            until: at(paris, "2026-12-01", "00:00"), balanceMs: 0, passesLeft: passesLeft))
        return model.card(now: now, zone: paris)
    }

    @Test func aGroupsShieldOffersAPassWhileOneIsLeft() {
        #expect(card(.opensCap, group: "social", passesLeft: 1)?.pass
            == OverlayCard.PassOffer(group: "social", label: "Use a pass · 1 left this week"))
        #expect(card(.dailyLimit, group: "social", passesLeft: 2)?.pass?.label == "Use a pass · 2 left this week")
        #expect(card(.schedule, group: "social", passesLeft: 1)?.pass?.group == "social")
        #expect(card(.timedBlock, group: "social", passesLeft: 1)?.pass?.group == "social")
    }

    @Test func noPassWhenNoneIsLeftOrThereIsNoPassTable() {
        #expect(card(.opensCap, group: "social", passesLeft: 0)?.pass == nil)
        #expect(card(.opensCap, group: "social", passesLeft: nil)?.pass == nil)
    }

    @Test func noPassOverAShieldWithoutAGroup() {
        // The balance shield names no group (nor does an app's own timed block): nothing to pass.
        let balance = card(.balance, group: nil, passesLeft: 1)
        #expect(balance?.pass == nil)
        #expect(balance?.offersEarning == true)
        #expect(balance?.balance == "Balance 0s")
        #expect(card(.timedBlock, group: nil, passesLeft: 1)?.pass == nil)
    }

    @Test func theOpensCapSaysSoAndKeepsTheBalanceLine() {
        let capped = card(.opensCap, group: "social", passesLeft: 1)
        #expect(capped?.headline == "discord")
        #expect(capped?.reason == "Opens for social used up today")
        #expect(capped?.balance == "Balance 0s")
        #expect(capped?.footnote != nil)
    }

    @Test func aUsedPassSaysUntilWhen() {
        #expect(PassText.used(until: at(paris, "2026-11-30", "22:55"), now: now, zone: paris)
            == "Pass used: open until 22:55")
    }
}

@Suite struct PauseReasonInputTests {
    @Test func keepsAShortLineAsItIs() {
        #expect(PauseReasonInput.fitted("a friend asked", limitBytes: 200) == "a friend asked")
        #expect(PauseReasonInput.fitted("", limitBytes: 200) == "")
    }

    @Test func cutsAtACharacterToFitTheBytes() {
        #expect(PauseReasonInput.fitted(String(repeating: "a", count: 250), limitBytes: 200) == String(repeating: "a", count: 200))
        // "é" is 2 bytes: 100 fit in 200, the 101st does not; never half a character.
        let cut = PauseReasonInput.fitted(String(repeating: "é", count: 150), limitBytes: 200)
        #expect(cut == String(repeating: "é", count: 100))
        let odd = PauseReasonInput.fitted("a" + String(repeating: "é", count: 150), limitBytes: 200)
        #expect(odd.utf8.count == 199)
        // A flag is one character of 8 bytes: kept whole or not at all.
        #expect(PauseReasonInput.fitted(String(repeating: "a", count: 196) + "🇫🇷", limitBytes: 200) == String(repeating: "a", count: 196))
    }

    @Test func aPastedLineEndBecomesASpace() {
        #expect(PauseReasonInput.fitted("work\nchat\r\nnow", limitBytes: 200) == "work chat now")
    }
}
