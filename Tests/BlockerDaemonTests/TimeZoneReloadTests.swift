import Foundation
import Testing
@testable import BlockerDaemon
import BlockerCore

/// `reload` (SIGHUP, `blockerctl reload`) reads the time zone again: after
/// `timedatectl set-timezone` schedules and days follow the new zone.
@Suite struct TimeZoneReloadTests {
    /// 2026-07-01 12:00 UTC: Paris is at +2 h, Tokyo at +9 h.
    let summer: Int64 = 1_782_907_200

    @Test func reloadReadsTheZoneAgainAndKeepsTheOldOneWhenTheNewCannotBeRead() throws {
        let box = try Sandbox()
        let zoneFile = box.root + "/localtime"
        func point(at zone: String) throws {
            try? FileManager.default.removeItem(atPath: zoneFile)
            try FileManager.default.copyItem(atPath: "/usr/share/zoneinfo/" + zone, toPath: zoneFile)
        }
        try point(at: "Europe/Paris")
        let log = MemoryLog()
        let daemon = try Daemon(options: box.options, log: log, environment: ["TZ": zoneFile, "HOME": box.root])
        #expect(daemon.meter.zone.utcOffset(atUnixSeconds: summer) == 7_200)

        try point(at: "Asia/Tokyo")
        #expect(daemon.meter.zone.utcOffset(atUnixSeconds: summer) == 7_200)         // nothing reads it by itself
        #expect(throws: Never.self) { try daemon.reload().get() }
        #expect(daemon.meter.zone.utcOffset(atUnixSeconds: summer) == 32_400)

        // Gone: the zone in force stays, and the journal says why.
        try FileManager.default.removeItem(atPath: zoneFile)
        #expect(throws: Never.self) { try daemon.reload().get() }                    // the config itself was fine
        #expect(daemon.meter.zone.utcOffset(atUnixSeconds: summer) == 32_400)
        let kept = log.events.map(\.message).filter { $0.hasPrefix("Keeping the time zone") }
        #expect(kept.count == 1 && kept.first?.contains("no such time zone file") == true, "\(kept)")
    }
}
