import BlockerBus
import BlockerCore
import BlockerSystem
import Glibc

// blocker-overlay: the full-screen cover over a shielded app. It follows
// blockerd's signals on the session bus; started by blocker-overlay.service.

let usage = """
    usage: \(OverlayIdentity.name) [--config FILE]

    Covers the app in front while blockerd's shield is up, on every monitor,
    with a form to log reps when the balance is spent. Runs in the graphical
    session (systemctl --user start \(OverlayIdentity.name)).

      --config FILE   where the [earn] exercises are read
                      (default $XDG_CONFIG_HOME/blocker/blocker.toml)
      -h, --help      this text
    """

func fail(_ message: String, status: Int32) -> Never {
    var line = Array("\(OverlayIdentity.name): \(message)\n".utf8)
    _ = write(2, &line, line.count)
    exit(status)
}

let environment = Environment.current()

var configPath: String?
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "-h", "--help":
        print(usage)
        exit(0)
    case "--config":
        guard let value = arguments.popFirst() else { fail("--config needs a FILE\n\n\(usage)", status: 2) }
        configPath = value
    case let other where other.hasPrefix("--config="):
        configPath = String(other.dropFirst("--config=".count))
    default:
        fail("unknown argument \"\(argument)\"\n\n\(usage)", status: 2)
    }
}
let config = configPath ?? BlockerPaths.configFile(environment: environment)

// The program's name is its WM_CLASS (instance and class) and app id: the
// probes recognise the cover by it and keep reporting the app beneath.
guard Gtk.start(programName: OverlayIdentity.name) else {
    fail("cannot open a display (DISPLAY / WAYLAND_DISPLAY); run it inside the graphical session", status: 1)
}
guard let display = Display() else { fail("GTK has no default display", status: 1) }
do {
    try Gtk.applyStyleSheet(CoverStyle.css)
} catch {
    fail("the cover's style sheet: \(error)", status: 1)
}

let client: BlockerClient
do {
    client = try BlockerClient.connect(environment: environment)
} catch {
    fail("\(error)", status: 1)
}
let log = OverlayLog()
let controller = OverlayController(client: client, display: display, configPath: config,
                                   environment: environment, log: log)
do {
    try controller.start()
} catch {
    fail("\(error)", status: 1)
}
log.info("ready on \(display.name) (\(display.kind)); exercises from \(config)")
Gtk.run()
exit(controller.exitStatus)
