import Testing
@testable import BlockerCore

@Suite struct ShieldTextTests {
    let paris = zone("Europe/Paris")

    @Test func saysWhyInWords() {
        let now = at(paris, "2026-11-30", "14:00")
        #expect(ShieldText.reason(.balance, group: nil, until: nil, now: now, zone: paris) == "Out of earned time")
        #expect(ShieldText.reason(.timedBlock, group: "social", until: at(paris, "2026-11-30", "14:35"), now: now, zone: paris)
                == "Blocked until 14:35")
        #expect(ShieldText.reason(.dailyLimit, group: "social", until: at(paris, "2026-12-01", "00:00"), now: now, zone: paris)
                == "Daily limit for social reached")
        #expect(ShieldText.reason(.schedule, group: "social", until: at(paris, "2026-12-01", "07:00"), now: now, zone: paris)
                == "Bedtime until 07:00")
        #expect(ShieldText.reason(.timedBlock, group: nil, until: at(paris, "2026-12-04", "09:00"), now: now, zone: paris)
                == "Blocked until Fri 09:00")
    }

    @Test func bedtimeUntilTomorrowMorningSaysTheTimeOnly() {
        let now = at(paris, "2026-11-30", "22:30")
        #expect(ShieldText.reason(.schedule, group: "social", until: at(paris, "2026-12-01", "07:00"), now: now, zone: paris)
                == "Bedtime until 07:00")
    }

    @Test func thePauseAndTheOpensCap() {
        let now = at(paris, "2026-11-30", "14:00")
        #expect(ShieldText.reason(.pause, group: "social", until: now + .seconds(10), now: now, zone: paris) == "Take a breath")
        #expect(ShieldText.reason(.opensCap, group: "social", until: at(paris, "2026-12-01", "00:00"), now: now, zone: paris,
                                  opensPerDay: 5) == "Opened 5 times today: the limit for social")
        #expect(ShieldText.reason(.opensCap, group: "social", until: nil, now: now, zone: paris, opensPerDay: 1)
                == "Opened 1 time today: the limit for social")
        #expect(ShieldText.reason(.opensCap, group: "social", until: nil, now: now, zone: paris) == "Opens for social used up today")
    }

    @Test func theReasonsInOrderOfPrecedence() {
        #expect(ShieldReason.allCases.map(\.rawValue) == ["timed-block", "schedule", "daily-limit", "opens-cap", "balance", "pause"])
    }
}
