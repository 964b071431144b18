import Glibc
import Testing
@testable import BlockerSystemd

/// A libsystemd failure carries BlockerSystem's `Errno` and reads as
/// "call: strerror", as it did when it held a raw errno.
@Suite struct SystemdErrorTests {
    @Test func aRealFailureNamesTheCallAndWhatFailed() {
        let path = "/nonexistent-blocker-dir/bus"
        let error = #expect(throws: SystemdError.self) { _ = try BusConnection(address: "unix:path=\(path)") }
        #expect(error?.call == "sd_bus_start")
        #expect(error?.errno.rawValue == ENOENT)
        #expect(error?.description == "sd_bus_start: \(String(cString: strerror(ENOENT)))")
    }

    @Test func aNegativeResultIsItsErrno() throws {
        #expect(throws: SystemdError(call: "sd_event_add_io", returned: -EBADF)) {
            try SystemdError.check(-EBADF, "sd_event_add_io")
        }
        #expect(try SystemdError.check(3, "sd_bus_get_fd") == 3)
    }
}
