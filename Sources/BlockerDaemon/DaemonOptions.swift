import BlockerCore
import BlockerProbes
import BlockerSystem

/// `blockerd [--config FILE] [--state-dir DIR] [--probe NAME]`, with XDG defaults.
public struct DaemonOptions: Equatable, Sendable {
    public var configPath: String
    public var stateDirectory: String
    public var probe: ProbeChoice?
    /// A program that serves `--probe-launcher` (blockerd itself): the
    /// command probe runs through it. Not a flag; nil in tests (spawn in-process).
    public var probeLauncher: String?
    /// The blocker-overlay whose process is accepted as the cover
    /// (`CoverShown`): the one installed beside blockerd ("" when blockerd
    /// cannot read its own path: no process is accepted). Not a flag. nil: the
    /// cover is not supervised, every shield counts as covered — only for
    /// in-process tests that run no cover; blockerd always sets it.
    public var overlayExecutable: String?
    /// The blockerctl whose `browser-host` may report a browser's tab
    /// (`ReportTab`): the one installed beside blockerd. Not a flag. nil: no
    /// caller is believed.
    public var browserHostExecutable: String?
    /// Whether `configPath` was named (`--config`, tests). Otherwise the file
    /// is looked up again at each load: a user's own blocker.toml written after
    /// the start, over the system's default, counts from the next reload.
    public var configNamed = true

    public init(configPath: String, stateDirectory: String, probe: ProbeChoice? = nil) {
        self.configPath = configPath
        self.stateDirectory = stateDirectory
        self.probe = probe
    }

    /// The config file to read now, and whether it is the system's default
    /// (`$XDG_CONFIG_DIRS`, no file of the user's own): then nothing is metered.
    public func configSource(environment: [String: String]) -> (path: String, systemDefault: Bool) {
        guard !configNamed else { return (configPath, false) }
        let path = BlockerPaths.configFile(environment: environment)
        return (path, path != BlockerPaths.userConfigFile(environment: environment))
    }

    public struct UsageError: Error, CustomStringConvertible, Equatable, Sendable {
        public let message: String
        public var description: String { message }
    }

    public static let usage = """
        usage: blockerd [--config FILE] [--state-dir DIR] [--probe \(ProbeRegistry.choiceNames.joined(separator: "|"))]

        Earned screen time: spends your balance while a metered app is in front.
        Usually started by systemd: systemctl --user start blockerd

          --config FILE     default $XDG_CONFIG_HOME/blocker/blocker.toml, else $XDG_CONFIG_DIRS/blocker/blocker.toml
          --state-dir DIR   default $XDG_STATE_HOME/blocker (the ledger is blocker.db inside)
          --version         print the version
          --probe NAME      overrides [daemon] probe (auto tries \(ProbeRegistry.automatic.map(\.name).joined(separator: ", ")))

        Internal (run by systemd, not by hand):
          --record-stop [--state-dir DIR]
                            for ExecStopPost=: records what systemd says ended the last run
                            ($SERVICE_RESULT: killed, crashed, watchdog), so the next start names the gap
        """

    /// Returns nil for `--help`.
    /// Relative paths are taken from `workingDirectory` (the process's own by default).
    public static func parse(_ arguments: [String], environment: [String: String],
                             workingDirectory: String = FilePaths.workingDirectory) throws(UsageError) -> DaemonOptions? {
        var options = DaemonOptions(configPath: BlockerPaths.configFile(environment: environment),
                                    stateDirectory: BlockerPaths.stateDirectory(environment: environment))
        options.configNamed = false
        var rest = arguments[...]
        while let flag = rest.popFirst() {
            if flag == "--help" || flag == "-h" { return nil }
            let (name, inline) = flag.split(separator: "=", maxSplits: 1).map(String.init).pairOrSingle
            guard ["--config", "--state-dir", "--probe"].contains(name) else {
                throw UsageError(message: "unknown option \(flag) (see blockerd --help)")
            }
            guard let value = inline ?? rest.popFirst(), !value.isEmpty else {
                throw UsageError(message: "\(name) needs a value (see blockerd --help)")
            }
            switch name {
            case "--config":
                options.configPath = FilePaths.absolute(value, relativeTo: workingDirectory)
                options.configNamed = true
            case "--state-dir": options.stateDirectory = FilePaths.absolute(value, relativeTo: workingDirectory)
            default:
                guard let choice = ProbeChoice(rawValue: value) else {
                    let names = ProbeRegistry.choiceNames.joined(separator: ", ")
                    throw UsageError(message: "unknown probe \"\(value)\" (one of: \(names))")
                }
                options.probe = choice
            }
        }
        return options
    }
}

extension Array where Element == String {
    fileprivate var pairOrSingle: (String, String?) { (self[0], count > 1 ? self[1] : nil) }
}
