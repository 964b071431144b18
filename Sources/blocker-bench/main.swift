// blocker-bench: the measurements behind `make bench` (scripts/bench.sh
// starts the servers and prints the table).
let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "x11": benchX11(Array(arguments.dropFirst()))
case "x11-floor": benchX11Floor(Array(arguments.dropFirst()))
case "sway": benchSway(Array(arguments.dropFirst()))
case "wlroots": benchWlroots(Array(arguments.dropFirst()))
case "status-load": benchStatusLoad(Array(arguments.dropFirst()))
case "sync": benchSync(Array(arguments.dropFirst()))
default:
    print("usage: blocker-bench x11|x11-floor|sway|wlroots|status-load|sync [options]")
}
