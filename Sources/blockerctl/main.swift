import BlockerBus
import BlockerCLI
import Glibc

// blockerctl: everything but the bus connection lives in BlockerCLI, so tests
// run the same commands in-process with their own service.

// LEAD: wire BlockerClient.connect here
let connect: ServiceFactory = { (_: [String: String]) throws(BusFailure) -> any BlockerService in
    throw BusFailure.notRunning("blockerctl was built without its bus client")
}

exit(BlockerCtl.run(Array(CommandLine.arguments.dropFirst()), .process(connect: connect)))
