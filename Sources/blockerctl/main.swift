import BlockerBus
import BlockerCLI
import BlockerSystem
import Glibc

// blockerctl: everything but the bus connection lives in BlockerCLI, so tests
// run the same commands in-process with their own service.

// Words in the person's language (LANG, LC_MESSAGES); --json and the rest of what programs read never change.
GettextCatalog.install(environment: Environment.current())

let connect: ServiceFactory = { (environment: [String: String]) throws(BusFailure) -> any BlockerCalls in
    try BlockerClient.connect(environment: environment)
}

// Run as blocker-browser-host (the link the browsers' native messaging
// manifests name: they pass no arguments of ours), blockerctl is its host.
var arguments = Array(CommandLine.arguments.dropFirst())
if CommandLine.arguments.first?.split(separator: "/").last == "blocker-browser-host" {
    arguments = ["browser-host"] + arguments
}
exit(BlockerCtl.run(arguments, .process(connect: connect)))
