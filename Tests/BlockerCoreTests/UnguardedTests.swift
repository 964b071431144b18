import Testing
import BlockerCore

/// The unguarded part of a gap: a suffix from the earliest graphical session logind still has.
@Suite struct UnguardedTests {
    @Test func aSessionOlderThanTheGapMakesAllOfItUnguarded() {
        #expect(Unguarded.since(gapFrom: 1000, gapTo: 5000, sessionStarts: [200]) == 1000)
    }

    @Test func aSessionBornDuringTheGapCountsFromItsStartTheEarliestWins() {
        #expect(Unguarded.since(gapFrom: 1000, gapTo: 5000, sessionStarts: [4000, 2500]) == 2500)
    }

    @Test func noSessionOrOneBornAfterTheGapLeavesNothingUnguarded() {
        #expect(Unguarded.since(gapFrom: 1000, gapTo: 5000, sessionStarts: []) == 5000)
        #expect(Unguarded.since(gapFrom: 1000, gapTo: 5000, sessionStarts: [6000]) == 5000)
    }

    @Test func overlapOfIntervals() {
        #expect(Unguarded.overlap(0..<10, 5..<20) == 5)
        #expect(Unguarded.overlap(5..<20, 0..<10) == 5)
        #expect(Unguarded.overlap(0..<10, 10..<20) == 0)
        #expect(Unguarded.overlap(0..<10, 20..<30) == 0)
        #expect(Unguarded.overlap(0..<30, 10..<20) == 10)
    }

    @Test func aPartOfTheGapCountsOnlyItsShareOfTheUnguardedSuffix() {
        // Gap 0..<100, unguarded from 60: the part before midnight at 50 has none, the rest 40.
        #expect(Unguarded.within(0..<50, gapTo: 100, unguardedSince: 60) == 0)
        #expect(Unguarded.within(50..<100, gapTo: 100, unguardedSince: 60) == 40)
        #expect(Unguarded.within(0..<100, gapTo: 100, unguardedSince: 100) == 0)
        #expect(Unguarded.within(0..<100, gapTo: 100, unguardedSince: nil) == nil)
    }

    @Test(arguments: [
        ("x11", "user", "active", true), ("wayland", "user", "online", true), ("mir", "user", "active", true),
        ("tty", "user", "active", false), ("unspecified", "user", "active", false),
        ("wayland", "greeter", "active", false), ("x11", "user", "closing", false),
    ])
    func whichSessionsAreGraphical(_ type: String, _ sessionClass: String, _ state: String, _ graphical: Bool) {
        #expect(Unguarded.isGraphical(type: type, sessionClass: sessionClass, state: state) == graphical)
    }
}
