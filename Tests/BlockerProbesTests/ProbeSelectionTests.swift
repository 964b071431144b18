import Testing
@testable import BlockerProbes
import BlockerCore

@Suite struct ProbeSelectionTests {
    @Test func autoSaysWhyEachBackendCannotRun() {
        let selection = ProbeSelection.select(.auto, settings: DaemonSettings(), environment: [:])
        #expect(selection.probe.name == "none")
        // One reason per display backend, in the registry's order.
        #expect(selection.passedOver.map { String($0.prefix { $0 != ":" }) } == ProbeRegistry.automatic.map(\.name))
        #expect(selection.passedOver.contains("hyprland: HYPRLAND_INSTANCE_SIGNATURE is not set"))
        #expect(selection.passedOver.contains("sway: SWAYSOCK is not set"))
        #expect(selection.passedOver.contains("x11: DISPLAY is not set"))
        #expect(throws: ProbeFailure.self) { try selection.probe.sample().get() }
    }

    @Test func underWaylandAutoDoesNotFallBackToX11() {
        let selection = ProbeSelection.select(.auto, settings: DaemonSettings(),
                                              environment: ["WAYLAND_DISPLAY": "wayland-1", "DISPLAY": ":0"])
        #expect(selection.probe.name == "none")
        #expect(selection.passedOver.first { $0.hasPrefix("x11:") }?.contains("X11 would only see XWayland windows") == true)
    }

    @Test func anExplicitBackendThatCannotRunFailsEverySampleWithTheReason() {
        let selection = ProbeSelection.select(.sway, settings: DaemonSettings(),
                                              environment: ["SWAYSOCK": "/nonexistent/sway.sock"])
        #expect(selection.probe.name == "sway")
        guard case let .failure(failure) = selection.probe.sample() else {
            Issue.record("a sway probe with no sway answered")
            return
        }
        #expect(failure.message.contains("/nonexistent/sway.sock"))
    }

    @Test func commandUsesTwicePollIntervalAsItsTimeout() throws {
        let settings = DaemonSettings(probe: .command, pollInterval: 300, probeCommand: ["/bin/true"])
        let probe = try #require(ProbeSelection.select(.command, settings: settings, environment: [:]).probe as? CommandProbe)
        #expect(probe.timeoutMs == 600 && probe.argv == ["/bin/true"])
    }
}
