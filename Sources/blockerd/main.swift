import BlockerCore
import BlockerDaemon
import BlockerProbes
import BlockerSystem
import Glibc

// blockerd: the long-running service. Everything but argument handling and
// exit statuses lives in BlockerDaemon, so tests can run it in-process.

// Writes to a closed pipe or socket fail with EPIPE instead of killing us
// (children get the default back: Subprocess resets it).
signal(SIGPIPE, SIG_IGN)

let environment = Environment.current()
let log = LogDestination.automatic(environment: environment)

func fail(_ message: String, status: Int32) -> Never {
    var line = Array("blockerd: \(message)\n".utf8)
    _ = write(2, &line, line.count)
    exit(status)
}

// The command probe's helper (see ProbeLauncher): blockerd starts itself
// once with this, so its ticks never fork.
if CommandLine.arguments.dropFirst().first == "--probe-launcher" { ProbeLauncher.serve() }
if CommandLine.arguments.dropFirst().first == "--version" {
    print("blockerd \(BlockerVersion.current)")
    exit(0)
}

// `ExecStopPost=blockerd --record-stop`: systemd says what ended the run
// ($SERVICE_RESULT…); the ledger keeps it, so the next start names the gap.
let recordStop = CommandLine.arguments.dropFirst().first == "--record-stop"
var options: DaemonOptions
do {
    guard let parsed = try DaemonOptions.parse(Array(CommandLine.arguments.dropFirst(recordStop ? 2 : 1)),
                                               environment: environment) else {
        print(DaemonOptions.usage)
        exit(0)
    }
    options = parsed
} catch {
    fail("\(error)", status: 64)
}
if recordStop {
    if let failure = StopCause.record(stateDirectory: options.stateDirectory, environment: environment) {
        fail(failure, status: 73)
    }
    exit(0)
}
// This very binary, even after an upgrade replaced the file.
options.probeLauncher = "/proc/self/exe"

// The cover blockerd accepts and supervises: the blocker-overlay installed
// beside it (none, when its own path cannot be read).
func besideBlockerd(_ name: String) -> String {
    ProcessExecutable.current.flatMap { own in own.path.lastIndex(of: "/").map { own.path[..<$0] + "/" + name } } ?? ""
}
options.overlayExecutable = besideBlockerd(OverlayIdentity.name)
// The native messaging host a browser starts for blocker's extension.
options.browserHostExecutable = besideBlockerd("blockerctl")

do throws(StartFailure) {
    // Notifications and refusals in the session's language; the journal and the ledger's notes stay English.
    let loop = try DaemonLoop.start(options: options, log: log, environment: environment,
                                    personLanguage: GettextCatalog.open(environment: environment))
    let daemon = loop.daemon
    log.write(LogEvent(.start, "blockerd started (probe \(daemon.probe.name), config \(daemon.configFile.path))",
                       fields: [("PROBE", daemon.probe.name), ("BALANCE_MS", "\(daemon.ledger.balance)")]))
    exit(loop.run())
} catch let failure {
    if log is JournalSink {
        // Structured in the journal; the plain line below would only repeat it there.
        switch failure.exitStatus {
        case 78: log.write(LogEvent(.configError, failure.description))
        case 73: log.write(LogEvent(.storageError, failure.description))
        default: log.write(LogEvent(priority: .error, failure.description))
        }
        exit(failure.exitStatus)
    }
    fail(failure.description, status: failure.exitStatus)
}
