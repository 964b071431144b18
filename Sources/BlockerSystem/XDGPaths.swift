/// The XDG base directories, from an environment. As the XDG Base Directory
/// Specification says, a value that is not an absolute path (unset, empty or
/// relative) is ignored: the default is used instead.
public struct XDGPaths: Equatable, Sendable {
    /// $XDG_CONFIG_HOME, else $HOME/.config.
    public var configHome: String
    /// $XDG_STATE_HOME, else $HOME/.local/state.
    public var stateHome: String
    /// $XDG_RUNTIME_DIR; the spec gives it no default.
    public var runtimeDirectory: String?
    /// Each of $XDG_CONFIG_DIRS (else /etc/xdg): where a system-wide default config lives.
    public var configDirectories: [String]
    /// $XDG_DATA_HOME (else $HOME/.local/share), then each of $XDG_DATA_DIRS
    /// (else /usr/local/share, /usr/share): where shell plugins are looked for.
    public var dataSearchPath: [String]

    public init(environment: [String: String]) {
        func absolute(_ name: String) -> String? {
            environment[name].flatMap { $0.hasPrefix("/") ? $0 : nil }
        }
        let home = environment["HOME"] ?? "/"
        configHome = absolute("XDG_CONFIG_HOME") ?? home + "/.config"
        stateHome = absolute("XDG_STATE_HOME") ?? home + "/.local/state"
        runtimeDirectory = absolute("XDG_RUNTIME_DIR")
        let configDirs = (environment["XDG_CONFIG_DIRS"] ?? "").split(separator: ":").map(String.init)
            .filter { $0.hasPrefix("/") }
        configDirectories = configDirs.isEmpty ? ["/etc/xdg"] : configDirs
        let dataDirs = (environment["XDG_DATA_DIRS"] ?? "").split(separator: ":").map(String.init)
            .filter { $0.hasPrefix("/") }
        dataSearchPath = [absolute("XDG_DATA_HOME") ?? home + "/.local/share"]
            + (dataDirs.isEmpty ? ["/usr/local/share", "/usr/share"] : dataDirs)
    }
}

/// Where blockerd, blockerctl and blocker-overlay look for blocker's files
/// unless told otherwise: the one place that names them.
public enum BlockerPaths {
    /// The config read unless one is named: the user's own
    /// ($XDG_CONFIG_HOME/blocker/blocker.toml) when it exists, else the first
    /// of $XDG_CONFIG_DIRS/blocker/blocker.toml that does (the Debian package
    /// ships /etc/xdg/blocker/blocker.toml), else the user's (whose absence is
    /// then the error to report).
    public static func configFile(environment: [String: String],
                                  exists: (String) -> Bool = FilePaths.isRegularFile) -> String {
        let paths = XDGPaths(environment: environment)
        let own = userConfigFile(environment: environment)
        if exists(own) { return own }
        return paths.configDirectories.map { $0 + "/" + configName }.first(where: exists) ?? own
    }

    /// $XDG_CONFIG_HOME/blocker/blocker.toml, whether it exists or not.
    public static func userConfigFile(environment: [String: String]) -> String {
        XDGPaths(environment: environment).configHome + "/" + configName
    }

    static let configName = "blocker/blocker.toml"

    /// $XDG_STATE_HOME/blocker
    public static func stateDirectory(environment: [String: String]) -> String {
        XDGPaths(environment: environment).stateHome + "/blocker"
    }

    /// The ledger's name inside the state directory.
    public static let ledgerFileName = "blocker.db"
    /// This machine's id in a `[sync]` folder, made once (BlockerSync's DeviceIdentity).
    public static let deviceIDFileName = "device-id"

    /// $XDG_STATE_HOME/blocker/blocker.db
    public static func ledger(environment: [String: String]) -> String {
        stateDirectory(environment: environment) + "/" + ledgerFileName
    }
}
