import BlockerProbes
import BlockerSystem
import Glibc

// `blocker-bench x11-floor`: blockerd's X11 probe alone, woken and read as
// blockerd's loop does it — poll its descriptor, wait out the burst, drain
// the events, sample when they may have changed — and nothing else, until
// SIGTERM. scripts/bench-peers.sh runs it beside blockerd: what a focus
// change costs before any of blocker's own work (the wake-ups and one
// read), so the table shows how much of blockerd's row is blocker's.
func benchX11Floor(_ arguments: [String]) {
    guard arguments.isEmpty else { benchFail("usage: blocker-bench x11-floor (needs DISPLAY; runs until SIGTERM)") }
    let probe: X11Probe
    switch X11Probe.open(environment: Environment.current()) {
    case let .success(opened): probe = opened
    case let .failure(why): benchFail("blocker-bench x11-floor: \(why)")
    }
    if case let .failure(why) = probe.sample() { benchFail("blocker-bench x11-floor: the first sample failed: \(why.message)") }
    while let fd = probe.eventDescriptor {
        do throws(Errno) {
            // An hour with nothing changing: wait again.
            guard try Deadline.after(.hours(1)).wait(for: fd) else { continue }
        } catch {
            benchFail("blocker-bench x11-floor: poll: \(error)")
        }
        usleep(UInt32(clamping: probe.eventBurstUs))
        if probe.drainEventsMayHaveChanged() { _ = probe.sample() }
    }
    benchFail("blocker-bench x11-floor: the X server closed the connection")
}
