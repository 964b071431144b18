import BlockerBus
import BlockerCLI
import Glibc

// blockerctl: everything but the bus connection lives in BlockerCLI, so tests
// run the same commands in-process with their own service.

let connect: ServiceFactory = { (environment: [String: String]) throws(BusFailure) -> any BlockerCalls in
    try BlockerClient.connect(environment: environment)
}

exit(BlockerCtl.run(Array(CommandLine.arguments.dropFirst()), .process(connect: connect)))
