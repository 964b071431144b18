import Testing
import TestSupport
@testable import BlockerCore

/// Every word the cover, the earn form and the notifications show goes through
/// the catalog (issue 26): in the pseudo-locale nothing may be left outside ⟦…⟧.
@Suite struct TranslationTests {
    let paris = zone("Europe/Paris")
    /// 2025-06-02 12:00 UTC, a Monday; 14:00 in Paris.
    let noon: WallInstant = .init(ms: 1_748_865_600_000)

    func expectAllMarked(_ text: String?, _ comment: Comment? = nil) {
        guard let text else { return }
        let words = PseudoCatalog.unmarkedWords(in: text)
        #expect(words.isEmpty, "\(text): \(words) \(comment?.description ?? "")")
    }

    @Test func everyShieldReasonIsOneMarkedSentenceWhateverItNames() {
        PseudoCatalog.speaking {
            for reason in ShieldReason.allCases {
                for group in [nil, "social"] as [String?] {
                    for until in [nil, noon + .hours(2), noon + .days(3)] as [WallInstant?] {
                        for opens in [nil, 1, 5] as [Int?] {
                            let text = ShieldText.reason(reason, group: group, until: until, now: noon, zone: paris,
                                                         opensPerDay: opens)
                            expectAllMarked(text, "\(reason)")
                            // One sentence: a group or a time is inside it, never glued on.
                            #expect(text.hasPrefix("⟦") && text.hasSuffix("⟧"), "\(text)")
                        }
                    }
                }
            }
        }
    }

    @Test func theCoverCardTheEarnFormAndThePassAreMarked() {
        PseudoCatalog.speaking {
            for reason in ShieldReason.allCases {
                var model = OverlayModel()
                _ = model.shieldChanged(ShieldState(active: true, reason: reason, app: "firefox", group: "social",
                                                    until: noon + .minutes(1), balanceMs: 90_000, passesLeft: 2))
                let card = model.card(now: noon, zone: paris)
                #expect(card != nil)
                // The headline is the app's own name, except on a pause.
                if reason == .pause { expectAllMarked(card?.headline) }
                for text in [card?.reason, card?.balance, card?.footnote, card?.pass?.label, card?.pause?.question] {
                    expectAllMarked(text, "\(reason)")
                }
            }
            let pushups = Exercise(name: "pushups", perRep: .seconds(30))
            expectAllMarked(RepsInput.label(pushups).replacingOccurrences(of: "pushups", with: ""))
            expectAllMarked(RepsInput.preview("20", exercise: pushups, allowed: 1...1000)?
                .replacingOccurrences(of: "pushups", with: ""))
            for error in [RepsInputError.empty, .notANumber("lots"), .outOfRange(1...1000)] {
                expectAllMarked(error.description.replacingOccurrences(of: "lots", with: ""))
            }
            expectAllMarked(LogExercise.earned(earnedMs: .minutes(10), balanceMs: .minutes(25)))
            expectAllMarked(PassText.used(until: noon + .minutes(20), now: noon, zone: paris))
            expectAllMarked(PassText.offer(passesLeft: 1))
            var window = LogExerciseForm()
            window.statusArrived(exercises: [], balanceMs: .minutes(2))
            expectAllMarked(window.hint.text)            // no exercises configured
            window.statusArrived(exercises: [pushups], balanceMs: .minutes(2))
            expectAllMarked(window.balanceLine)
            expectAllMarked(window.hint.text)
            expectAllMarked(window.earned(earnedMs: .minutes(1), balanceMs: .minutes(3)))
        }
    }

    @Test func notificationsAreMarked() {
        PseudoCatalog.speaking {
            var plan = NotificationPlan(thresholds: [.minutes(5), .minutes(1)])
            let tick = { (balance: Milliseconds, crossed: [Milliseconds]) in
                NotificationPlan.Tick(app: nil, metered: true, locked: false, balance: balance, crossed: crossed)
            }
            var requests = plan.plan(tick(.minutes(4), [.minutes(5)])) + plan.plan(tick(.seconds(50), [.minutes(1)]))
            for reason in [ShieldReason.balance, .dailyLimit] {
                let shield = Shield(reason: reason, reasons: [reason], app: "firefox", group: nil, until: nil)
                let why = ShieldText.reason(reason, group: nil, until: nil, now: noon, zone: paris)
                requests += plan.plan(NotificationPlan.Tick(app: "firefox", metered: true, locked: false, balance: 0,
                                                            crossed: [], shieldRaised: shield, shieldText: why))
            }
            #expect(requests.count == 4)
            for request in requests {
                expectAllMarked(request.summary.replacingOccurrences(of: "firefox", with: ""))
                expectAllMarked(request.body)
            }
        }
    }

    @Test func timesAndWeekdaysFollowTheLocale() {
        PseudoCatalog.speaking {
            // The pseudo-locale keeps a 12-hour clock: 14:00 in Paris is 2:00 pm; three days on, a Thursday.
            #expect(ShieldText.clock(noon, now: noon, zone: paris) == "2:00 pm")
            #expect(ShieldText.clock(noon + .days(3), now: noon, zone: paris) == "⟦JEU 2:00 pm⟧")
            #expect(ClockText.localTime(secondOfDay: 0) == "12:00 am")
            #expect(ClockText.localTime(secondOfDay: 12 * 3600 + 5 * 60) == "12:05 pm")
        }
        // Without a catalog: the C locale, as before.
        #expect(ShieldText.clock(noon + .days(3), now: noon, zone: paris) == "Thu 14:00")
        #expect(ClockText.localTime(secondOfDay: 14 * 3600) == "14:00")
    }

    @Test func durationsAreMarked() {
        PseudoCatalog.speaking {
            for ms in [Milliseconds.seconds(5), .seconds(65), .hours(2), .days(2), .zero] {
                expectAllMarked(DurationText.format(ms))
                expectAllMarked(DurationText.format(ms, precision: .minutes))
            }
        }
    }

    @Test func placeholdersAreFilledByNameAndTheRestStaysAsWritten() {
        #expect(PlaceholderText.fill("Daily limit for {group} reached", ["group": "social"]) == "Daily limit for social reached")
        #expect(PlaceholderText.fill("{a}{b} {c} {", ["a": "1", "b": "{c}"]) == "1{c} {c} {")   // a value is not filled again
        #expect(PlaceholderText.fill("print {app, title}", ["app": "x"]) == "print {app, title}")
        #expect(PlaceholderText.names(in: "{time} left for {app}, not {app, title} or {}") == ["time", "app"])
        #expect(trn("{count} rep", "{count} reps", count: 1) == "1 rep")
        #expect(trn("{count} rep", "{count} reps", count: 2) == "2 reps")
    }
}
