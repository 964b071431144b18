import BlockerBus
import BlockerCore
import BlockerSystem
import Glibc

// blocker-overlay: the full-screen cover over a shielded app. It follows
// blockerd's signals on the session bus; started by blocker-overlay.service.
// With --earn: the "Log exercise" window instead (the desktop entry's command).

// The cover's words in the session's language (LANG, LC_MESSAGES).
GettextCatalog.install(environment: Environment.current())

let usage = tr("usage: {program} [--earn]\n\nCovers the app in front while blockerd's shield is up, on every monitor,\nwith a form to log reps when the balance is spent. Everything it shows\n(the shield, the exercises) comes from blockerd on the session bus. Runs\nin the graphical session (systemctl --user start {program}).\n\n  --earn          open the \"{window}\" window instead: the same form to\n                  log reps, in an ordinary window, whether or not anything is\n                  covered; it runs beside the cover (Escape closes it)\n  -h, --help      this text\n  --version       print the version", ["program": OverlayIdentity.name, "window": LogExercise.title])

func fail(_ message: String, status: Int32) -> Never {
    var line = Array("\(OverlayIdentity.name): \(message)\n".utf8)
    _ = write(2, &line, line.count)
    exit(status)
}

let environment = Environment.current()
var logExercise = false

for argument in CommandLine.arguments.dropFirst() {
    switch argument {
    case "--earn":
        logExercise = true
    case "-h", "--help":
        print(usage)
        exit(0)
    case "--version":
        print("\(OverlayIdentity.name) \(BlockerVersion.current)")
        exit(0)
    default:
        fail(tr("unknown argument \"{argument}\"", ["argument": argument]) + "\n\n" + usage, status: 2)
    }
}

if logExercise {
    // Its own name (WM_CLASS, app id): the probes must not take it for the cover.
    guard Gtk.start(programName: LogExercise.appID) else {
        fail(tr("cannot open a display (DISPLAY / WAYLAND_DISPLAY); run it inside the graphical session"), status: 1)
    }
    do {
        try Gtk.applyStyleSheet(CoverStyle.css)
    } catch {
        fail("the window's style sheet: \(error)", status: 1)
    }
    let window = LogExerciseController(environment: environment, log: OverlayLog())
    window.start()
    Gtk.run()
    exit(0)
}

// The program's name is its WM_CLASS (instance and class) and app id: the
// probes recognise the cover by it and keep reporting the app beneath.
guard Gtk.start(programName: OverlayIdentity.name) else {
    fail(tr("cannot open a display (DISPLAY / WAYLAND_DISPLAY); run it inside the graphical session"), status: 1)
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
let controller = OverlayController(client: client, display: display, environment: environment, log: log)
do {
    try controller.start()
} catch {
    fail("\(error)", status: 1)
}
log.info("ready on \(display.name) (\(display.kind))")
Gtk.run()
exit(controller.exitStatus)
