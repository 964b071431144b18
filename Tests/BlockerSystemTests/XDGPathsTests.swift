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
        #expect(BlockerPaths.configFile(environment: environment) == "/home/me/.config/blocker/blocker.toml")
        #expect(BlockerPaths.stateDirectory(environment: environment) == "/state/blocker")
        #expect(BlockerPaths.ledger(environment: environment) == "/state/blocker/blocker.db")
    }
}
