import BlockerSystem
import Testing

@Suite struct XDGPathsTests {
    @Test func absoluteValuesAreUsed() {
        let paths = XDGPaths(environment: ["HOME": "/home/me", "XDG_CONFIG_HOME": "/cfg",
                                           "XDG_STATE_HOME": "/state", "XDG_RUNTIME_DIR": "/run/user/1000"])
        #expect(paths.configHome == "/cfg")
        #expect(paths.stateHome == "/state")
        #expect(paths.runtimeDirectory == "/run/user/1000")
    }

    @Test func unsetEmptyOrRelativeValuesFallBackToHome() {
        for value in [nil, "", "relative/dir", "./dir", "~/dir"] as [String?] {
            var environment = ["HOME": "/home/me"]
            for name in ["XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR"] { environment[name] = value }
            let paths = XDGPaths(environment: environment)
            #expect(paths.configHome == "/home/me/.config", "\(value ?? "unset")")
            #expect(paths.stateHome == "/home/me/.local/state", "\(value ?? "unset")")
            #expect(paths.runtimeDirectory == nil, "\(value ?? "unset")")
        }
    }

    @Test func blockersFiles() {
        let environment = ["HOME": "/home/me", "XDG_STATE_HOME": "/state"]
        #expect(BlockerPaths.configFile(environment: environment) { _ in false } == "/home/me/.config/blocker/blocker.toml")
        #expect(BlockerPaths.stateDirectory(environment: environment) == "/state/blocker")
        #expect(BlockerPaths.ledger(environment: environment) == "/state/blocker/blocker.db")
    }

    @Test func theConfigFallsBackAlongXDGConfigDirsOnlyWhenTheUserHasNone() {
        let environment = ["HOME": "/home/me", "XDG_CONFIG_DIRS": "/opt/xdg:relative:/etc/xdg"]
        let own = "/home/me/.config/blocker/blocker.toml"
        #expect(BlockerPaths.configFile(environment: environment) { [own, "/etc/xdg/blocker/blocker.toml"].contains($0) } == own)
        #expect(BlockerPaths.configFile(environment: environment) { $0 == "/etc/xdg/blocker/blocker.toml" }
                == "/etc/xdg/blocker/blocker.toml")
        #expect(BlockerPaths.configFile(environment: environment) { $0.hasPrefix("/opt/xdg/") || $0.hasPrefix("/etc/") }
                == "/opt/xdg/blocker/blocker.toml")
        #expect(BlockerPaths.configFile(environment: environment) { _ in false } == own)
        #expect(BlockerPaths.configFile(environment: ["HOME": "/home/me"]) { $0 == "/etc/xdg/blocker/blocker.toml" }
                == "/etc/xdg/blocker/blocker.toml")
    }
}
