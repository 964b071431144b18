import BlockerBus
@testable import BlockerCLI
import Testing

/// blockerd's own error names (all io.github.blockerd.Error.*) and a name
/// owned by another user each read as what to do.
@Suite struct BusErrorMappingTests {
    @Test func blockerdsNewErrorNamesGetTheirFix() {
        let denied = BusFailureText.failure(.refused(name: "io.github.blockerd.Error.AccessDenied", message: "uid 1001"))
        #expect(denied.fix == "run blockerctl as the user blockerd runs as")
        let unavailable = BusFailureText.failure(.refused(name: BusErrorName.unavailable.rawValue,
                                                          message: "blockerd is shutting down; try again in a moment"))
        #expect(unavailable.message == "blockerd is shutting down; try again in a moment")
        #expect(unavailable.fix?.contains("systemctl --user status blockerd") == true)
        let internalError = BusFailureText.failure(.refused(name: BusErrorName.internalError.rawValue, message: "Earn: ENOMEM"))
        #expect(internalError.description == "blockerd failed: Earn: ENOMEM — see what it says with: blockerctl logs")
        // The old freedesktop name is no longer blockerd's: shown as it is, no fix guessed.
        #expect(BusFailureText.failure(.refused(name: "org.freedesktop.DBus.Error.AccessDenied", message: "no")).fix == nil)
    }

    @Test func anImpostorIsRefusedWithTheFix() {
        let run = blockerctl(["earn", "3"], service: {
            let service = RecordingCalls()
            service.failure = .untrustedOwner("io.github.blockerd.Blocker1 on this session bus belongs to pid 77 "
                + "running as uid 65534, not to your blockerd (you are uid 1000); refusing to talk to it")
            return service
        }())
        #expect(run.status == 1 && run.stdout.isEmpty)
        #expect(run.stderr.hasPrefix("blockerctl: error: io.github.blockerd.Blocker1 on this session bus belongs to pid 77"))
        #expect(run.stderr.contains("— stop that process, then start yours: systemctl --user start blockerd"))
    }
}
