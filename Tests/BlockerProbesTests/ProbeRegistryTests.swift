import BlockerCore
@testable import BlockerProbes
import Testing

@Suite struct ProbeRegistryTests {
    @Test func everyProbeNameHasOneBackendInTheRegistrysOrder() {
        #expect(ProbeRegistry.backends.map(\.choice) == ProbeChoice.allCases.filter { $0 != .auto })
        #expect(ProbeRegistry.choiceNames == ProbeChoice.allCases.map(\.rawValue))
        #expect(ProbeRegistry.backend(.auto) == nil)
    }

    @Test func autoTriesTheDesktopsThenTheCompositorsThenX11AndNeverTheCommand() {
        #expect(ProbeRegistry.automatic.map(\.name) == ["gnome", "kde", "hyprland", "sway", "wlroots", "x11"])
        #expect(ProbeRegistry.backend(.command)?.readsDisplay == false)
        #expect(ProbeRegistry.sessionVariables
            == ["XDG_CURRENT_DESKTOP", "HYPRLAND_INSTANCE_SIGNATURE", "SWAYSOCK", "WAYLAND_DISPLAY", "DISPLAY"])
    }

    @Test func theDesktopProbesAreChosenByXDGCurrentDesktop() throws {
        let gnome = try #require(ProbeRegistry.backend(.gnome))
        let kde = try #require(ProbeRegistry.backend(.kde))
        #expect(gnome.autoPassesOver([:])?.description == "gnome: XDG_CURRENT_DESKTOP is not set")
        #expect(gnome.autoPassesOver(["XDG_CURRENT_DESKTOP": "ubuntu:GNOME"]) == nil)
        #expect(gnome.autoPassesOver(["XDG_CURRENT_DESKTOP": "gnome"]) == nil)
        #expect(gnome.autoPassesOver(["XDG_CURRENT_DESKTOP": "KDE"])?.description
            == "gnome: XDG_CURRENT_DESKTOP=KDE does not name GNOME")
        #expect(kde.autoPassesOver(["XDG_CURRENT_DESKTOP": "KDE"]) == nil)
        #expect(kde.autoPassesOver(["XDG_CURRENT_DESKTOP": "GNOME-Classic:GNOME"]) != nil)
    }

    @Test func detectionSaysWhyAutoPassesABackendOver() throws {
        let x11 = try #require(ProbeRegistry.backend(.x11))
        #expect(x11.autoPassesOver([:])?.description == "x11: DISPLAY is not set")
        #expect(x11.autoPassesOver(["DISPLAY": ""])?.description == "x11: DISPLAY is not set")
        #expect(x11.autoPassesOver(["DISPLAY": ":0"]) == nil)
        #expect(x11.autoPassesOver(["DISPLAY": ":0", "WAYLAND_DISPLAY": "wayland-1"])?.description
            == "x11: a Wayland session (WAYLAND_DISPLAY=wayland-1): X11 would only see XWayland windows")
        let sway = try #require(ProbeRegistry.backend(.sway))
        #expect(sway.autoPassesOver(["WAYLAND_DISPLAY": "wayland-1"])?.description == "sway: SWAYSOCK is not set")
        #expect(sway.autoPassesOver(["SWAYSOCK": "/run/user/1000/sway.sock"]) == nil)
        #expect(ProbeRegistry.backend(.command)?.autoPassesOver([:]) != nil)
        let wlroots = try #require(ProbeRegistry.backend(.wlroots))
        #expect(wlroots.autoPassesOver(["DISPLAY": ":0"])?.description == "wlroots: WAYLAND_DISPLAY is not set")
        #expect(wlroots.autoPassesOver(["WAYLAND_DISPLAY": "wayland-1"]) == nil)
    }

    @Test func doctorNeedsTheSessionForDisplayBackendsOnly() {
        for backend in ProbeRegistry.backends {
            #expect((backend.needsNoSessionEnvironment == nil) == backend.readsDisplay, "\(backend.name)")
            #expect(backend.sessionVariables.isEmpty == !backend.readsDisplay, "\(backend.name)")
        }
    }

    @Test func displayBackendsAreLockAwareTheCommandIsNot() throws {
        let context = ProbeContext(environment: [:], settings: DaemonSettings(probeCommand: ["/bin/true"]))
        let command = try ProbeRegistry.backend(.command)!.open(context).get()
        #expect(command is CommandProbe)
        // Nothing to connect to: each display backend says why, with its name.
        for backend in ProbeRegistry.automatic {
            guard case let .failure(why) = backend.open(context) else {
                Issue.record("\(backend.name) opened without its session")
                continue
            }
            #expect(why.probe == backend.name)
        }
    }
}
