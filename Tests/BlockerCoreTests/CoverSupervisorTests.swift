import BlockerCore
import Testing

@Suite struct CoverSupervisorTests {
    let grace = CoverSupervisor.grace

    @Test func noShieldNeedsNoCover() {
        let covers = CoverSupervisor(startedAt: 0)
        #expect(covers.coverage(at: 100_000) == .noShield)
        #expect(covers.isCovered(at: 100_000))
    }

    @Test func withNobodyToDrawAShieldIsUncoveredAtOnce() {
        var covers = CoverSupervisor(startedAt: 0)
        covers.shieldChanged(up: true, at: 100_000)
        #expect(covers.coverage(at: 100_000) == .missing)
    }

    @Test func blockerdJustStartedGivesTheOverlayItsGraceToFindIt() {
        var covers = CoverSupervisor(startedAt: 100_000)
        covers.shieldChanged(up: true, at: 100_500)
        #expect(covers.coverage(at: 100_500) == .awaiting(until: 100_500 + grace))
        #expect(covers.coverage(at: 100_500 + grace) == .missing)
    }

    @Test func aClientDrawsWithinItsGraceOrTheShieldIsUncovered() {
        var covers = CoverSupervisor(startedAt: 0)
        covers.clientReported(":1.5", pid: 42, drawn: false, at: 50_000)
        covers.shieldChanged(up: true, at: 100_000)
        #expect(covers.coverage(at: 101_000) == .awaiting(until: 100_000 + grace))
        #expect(covers.coverage(at: 100_000 + grace) == .missing)
        covers.clientReported(":1.5", pid: 42, drawn: true, at: 104_000)
        #expect(covers.coverage(at: 104_000) == .drawn(by: "blocker-overlay"))
        #expect(covers.coverPIDs == [42])
        // Killed: its window is no cover any more, and nothing is drawn.
        covers.clientLeft(":1.5")
        #expect(covers.coverPIDs.isEmpty)
        #expect(covers.coverage(at: 104_001) == .missing)
        // A restarted overlay gets the grace from its arrival.
        covers.clientReported(":1.6", pid: 43, drawn: false, at: 110_000)
        #expect(covers.coverage(at: 110_000) == .awaiting(until: 110_000 + grace))
    }

    @Test func aCheckedShellDrawsWheneverAShieldIsUp() {
        var covers = CoverSupervisor(startedAt: 0)
        covers.shellChanged("gnome-shell")
        covers.shieldChanged(up: true, at: 100_000)
        #expect(covers.coverage(at: 100_000) == .drawn(by: "gnome-shell"))
        covers.shellChanged(nil)
        #expect(covers.coverage(at: 100_000) == .missing)
    }

    @Test func aShieldDownNeedsNoCover() {
        var covers = CoverSupervisor(startedAt: 0)
        covers.clientReported(":1.5", pid: 42, drawn: true, at: 50_000)
        covers.shieldChanged(up: true, at: 100_000)
        #expect(covers.coverage(at: 100_000) == .drawn(by: "blocker-overlay"))
        covers.shieldChanged(up: false, at: 101_000)
        #expect(covers.coverage(at: 101_000) == .noShield)
    }
}
