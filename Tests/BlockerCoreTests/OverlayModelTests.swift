import Testing
@testable import BlockerCore

@Suite struct OverlayModelTests {
    let paris = zone("Europe/Paris")

    func up(_ app: String = "firefox", _ reason: ShieldReason? = .balance, group: String? = nil, until: WallInstant? = nil,
            balanceMs: Milliseconds = 0) -> ShieldState {
        ShieldState(active: true, reason: reason, app: app, group: group, until: until, balanceMs: balanceMs)
    }
    func down(balanceMs: Milliseconds) -> ShieldState { .down(balanceMs: balanceMs, lastApp: "firefox") }

    @Test func showsOnceForAnActiveShieldAndHidesWhenItGoesDown() {
        var model = OverlayModel()
        #expect(model.shieldChanged(up()) == .show)
        #expect(model.isShown)
        #expect(model.shieldChanged(up()) == .none)
        #expect(model.shieldChanged(down(balanceMs: 600_000)) == .hide)
        #expect(!model.isShown)
        #expect(model.shieldChanged(down(balanceMs: 600_000)) == .none)
    }

    @Test func neverShowsForAShieldThatIsNotActive() {
        var model = OverlayModel()
        // A daemon's "down" signal carries the last app and may carry a reason: still nothing to show.
        let inactive = ShieldState(active: false, reason: .balance, app: "firefox", balanceMs: 0)
        #expect(model.shieldChanged(inactive) == .none)
        #expect(!model.isShown)
        #expect(model.card(now: 0, zone: paris) == nil)
        // Active but naming no app (a malformed Status): nothing to cover.
        #expect(model.shieldChanged(up("")) == .none)
        #expect(!model.isShown)
    }

    @Test func aSiteShieldIsTheBrowserExtensionsToCover() {
        var model = OverlayModel()
        var site = up("chromium")
        site.site = "youtube.com"
        #expect(model.shieldChanged(site) == .none)
        #expect(!model.isShown)
        // A window shield over the same browser (its app metered) is ours; a site shield after it hides ours.
        #expect(model.shieldChanged(up("chromium")) == .show)
        #expect(model.shieldChanged(site) == .hide)
    }

    @Test func anotherAppOrReasonUpdatesTheCoverInPlace() {
        var model = OverlayModel()
        _ = model.shieldChanged(up("firefox"))
        #expect(model.shieldChanged(up("discord")) == .update)
        #expect(model.shield?.app == "discord")
        #expect(model.shieldChanged(up("discord", .timedBlock, until: 5)) == .update)
        #expect(model.shieldChanged(up("discord", .timedBlock, until: 5, balanceMs: 90_000)) == .update)
    }

    @Test func balanceMovesTheLineOnlyWhileShown() {
        var model = OverlayModel()
        #expect(model.balanceChanged(5_000) == .none)
        _ = model.shieldChanged(up("firefox", .schedule, until: 1, balanceMs: 5_000))
        #expect(model.balanceChanged(5_000) == .none)
        #expect(model.balanceChanged(65_000) == .update)
        #expect(model.card(now: 0, zone: paris)?.balance == "Balance 1m 05s")
    }

    @Test func aStoppedDaemonTakesTheCoverAway() {
        var model = OverlayModel()
        #expect(model.daemonStopped() == .none)
        _ = model.shieldChanged(up())
        #expect(model.daemonStopped() == .hide)
        #expect(!model.isShown)
        // The restarted daemon's Status puts it back.
        #expect(model.shieldChanged(up()) == .show)
    }

    @Test func cardForTheBalanceOffersTheForm() {
        var model = OverlayModel()
        _ = model.shieldChanged(up("firefox"))
        let card = model.card(now: at(paris, "2026-11-30", "14:00"), zone: paris)
        #expect(card == OverlayCard(headline: "firefox", reason: "Out of earned time", balance: "Balance 0s",
                                    offersEarning: true, footnote: nil))
    }

    @Test func cardsForHardBlocksSayWhyAndOfferNoForm() {
        let now = at(paris, "2026-11-30", "22:40")
        var model = OverlayModel()
        _ = model.shieldChanged(up("discord", .schedule, until: at(paris, "2026-12-01", "07:00"), balanceMs: 754_000))
        var card = model.card(now: now, zone: paris)
        #expect(card?.reason == "Bedtime until 07:00")
        #expect(card?.balance == "Balance 12m 34s")
        #expect(card?.offersEarning == false)
        #expect(card?.footnote != nil)

        _ = model.shieldChanged(up("discord", .dailyLimit, group: "social", until: at(paris, "2026-12-01", "00:00")))
        #expect(model.card(now: now, zone: paris)?.reason == "Daily limit for social reached")

        _ = model.shieldChanged(up("discord", .timedBlock, until: at(paris, "2026-11-30", "23:15")))
        card = model.card(now: now, zone: paris)
        #expect(card?.reason == "Blocked until 23:15")
        // The group comes with the shield: a change of group alone redraws the card.
        #expect(model.shieldChanged(up("discord", .timedBlock, group: "social", until: at(paris, "2026-11-30", "23:15")))
            == .update)
        #expect(card?.offersEarning == false)
    }

    @Test func anUnknownReasonStillCoversButOffersNoForm() {
        var model = OverlayModel()
        // A reason this build does not know arrives as nil (see ShieldState's wire form).
        #expect(model.shieldChanged(up("firefox", nil)) == .show)
        let card = model.card(now: 0, zone: paris)
        #expect(card?.reason == "Blocked")
        #expect(card?.offersEarning == false)
    }
}

@Suite struct MonitorCoversTests {
    @Test func addsAndDropsCoversAsMonitorsComeAndGo() {
        var covers = MonitorCovers<String>()
        var change = covers.reconcile(["DP-1", "HDMI-1"])
        #expect(change.added == ["DP-1", "HDMI-1"])
        #expect(change.removed.isEmpty)
        change = covers.reconcile(["DP-1", "HDMI-1"])
        #expect(change.added.isEmpty && change.removed.isEmpty)
        change = covers.reconcile(["HDMI-1", "eDP-1"])
        #expect(change.added == ["eDP-1"])
        #expect(change.removed == ["DP-1"])
        #expect(covers.monitors == ["HDMI-1", "eDP-1"])
        change = covers.reconcile([])
        #expect(change.removed == ["HDMI-1", "eDP-1"])
        #expect(covers.monitors.isEmpty)
    }

    @Test func aMonitorListedTwiceGetsOneCover() {
        var covers = MonitorCovers<Int>()
        let change = covers.reconcile([3, 3, 4])
        #expect(change.added == [3, 4])
        #expect(covers.monitors == [3, 4])
    }

    @Test func theFormGoesToThePrimaryMonitorElseTheFirst() {
        var covers = MonitorCovers<String>()
        #expect(covers.formMonitor(primary: "DP-1") == nil)
        _ = covers.reconcile(["DP-1", "HDMI-1"])
        #expect(covers.formMonitor(primary: "HDMI-1") == "HDMI-1")
        #expect(covers.formMonitor(primary: nil) == "DP-1")
        #expect(covers.formMonitor(primary: "gone") == "DP-1")
    }
}

@Suite struct RepsInputTests {
    let allowed: ClosedRange<UInt32> = 1...1000

    @Test func acceptsAWholeNumberInRange() {
        #expect(RepsInput.parse("20", allowed: allowed) == .success(20))
        #expect(RepsInput.parse("  7\n", allowed: allowed) == .success(7))
        #expect(RepsInput.parse("0001", allowed: allowed) == .success(1))
        #expect(RepsInput.parse("1000", allowed: allowed) == .success(1000))
    }

    @Test func refusesWhatIsNotACount() {
        #expect(RepsInput.parse("", allowed: allowed) == .failure(.empty))
        #expect(RepsInput.parse("   ", allowed: allowed) == .failure(.empty))
        // What a command typed at the cover looks like: refused, never partly read as reps.
        #expect(RepsInput.parse("touch /tmp/x1", allowed: allowed) == .failure(.notANumber("touch /tmp/x1")))
        #expect(RepsInput.parse("2 0", allowed: allowed) == .failure(.notANumber("2 0")))
        #expect(RepsInput.parse("-5", allowed: allowed) == .failure(.notANumber("-5")))
        #expect(RepsInput.parse("1.5", allowed: allowed) == .failure(.notANumber("1.5")))
        #expect(RepsInput.parse("٣", allowed: allowed) == .failure(.notANumber("٣")))
    }

    @Test func refusesCountsOutsideWhatBlockerdAccepts() {
        #expect(RepsInput.parse("0", allowed: allowed) == .failure(.outOfRange(allowed)))
        #expect(RepsInput.parse("1001", allowed: allowed) == .failure(.outOfRange(allowed)))
        #expect(RepsInput.parse("4294967296", allowed: allowed) == .failure(.outOfRange(allowed)))
        #expect(RepsInput.parse(String(repeating: "9", count: 40), allowed: allowed) == .failure(.outOfRange(allowed)))
    }

    @Test func errorsReadAsAdvice() {
        #expect(RepsInputError.empty.description == "Type how many reps you did, then press Enter")
        #expect(RepsInputError.outOfRange(allowed).description == "Reps go from 1 to 1000")
        let long = RepsInputError.notANumber(String(repeating: "a", count: 40)).description
        #expect(long.hasPrefix("“aaaaaaaaaaaaaaaaaaaaaaaa…” is not a number of reps"))
    }

    @Test func previewSaysWhatTheRepsEarn() {
        let pushups = Exercise(name: "pushups", perRep: 30_000)
        #expect(RepsInput.preview("20", exercise: pushups, allowed: allowed) == "20 pushups earn 10m 00s")
        #expect(RepsInput.preview("abc", exercise: pushups, allowed: allowed) == nil)
        #expect(RepsInput.preview("20", exercise: nil, allowed: allowed) == nil)
        #expect(RepsInput.label(pushups) == "pushups · 30s a rep")
    }
}

@Suite struct OverlayModelShellCoverTests {
    func up(_ app: String = "firefox") -> ShieldState {
        ShieldState(active: true, reason: .balance, app: app, balanceMs: 0)
    }

    @Test func staysHiddenWhileTheShellCoversAndShowsWhenItStops() {
        var model = OverlayModel()
        #expect(model.shellCoverChanged(true) == .none)
        #expect(model.shieldChanged(up()) == .none)
        #expect(!model.isShown)
        #expect(model.balanceChanged(1_000) == .none)
        #expect(model.shieldChanged(up("discord")) == .none)
        // The extension is disabled with the shield still up: ours covers.
        #expect(model.shellCoverChanged(false) == .show)
        #expect(model.isShown)
        #expect(model.card(now: 0, zone: .utc)?.headline == "discord")
    }

    @Test func hidesAShownCoverWhenTheShellStartsCovering() {
        var model = OverlayModel()
        #expect(model.shieldChanged(up()) == .show)
        #expect(model.shellCoverChanged(true) == .hide)
        #expect(model.shellCoverChanged(true) == .none)
        // The shield went down meanwhile: nothing to show when the shell lets go.
        #expect(model.shieldChanged(.down(balanceMs: 60_000, lastApp: "firefox")) == .none)
        #expect(model.shellCoverChanged(false) == .none)
        #expect(!model.isShown)
    }

    @Test func aDaemonStopWhileTheShellCoversChangesNothingVisible() {
        var model = OverlayModel()
        _ = model.shellCoverChanged(true)
        _ = model.shieldChanged(up())
        #expect(model.daemonStopped() == .none)
        #expect(model.shellCoverChanged(false) == .none)
    }
}
