import Foundation
import Testing
import TestSupport
@testable import BlockerBus

/// The session bus going away left blockerd enforcing but unreachable for
/// good. It now exits with its own status, so Restart=always brings it back
/// on the session's (new) bus.
@Suite struct BusLossTests {
    @Test func losingTheSessionBusEndsBlockerdWithStatus69AndAReason() throws {
        let bus = try PrivateBus()
        let daemon = try Blockerd(on: bus)
        defer { daemon.stop() }
        try daemon.launch()
        let client = try bus.client()
        try daemon.waitUntilAnswering(client)
        bus.stop()
        #expect(try daemon.waitForExit(seconds: 5) == 69)
        #expect(daemon.log.contains("Lost the session bus; exiting (status 69)"), "\(daemon.log)")
        #expect(daemon.log.contains("blockerd stopping"), "the ledger was not flushed on the way out: \(daemon.log)")
    }
}
