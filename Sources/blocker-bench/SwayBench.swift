import BlockerCore
import BlockerProbes
import BlockerSystem
import Glibc

/// `blocker-bench sway [--samples N] [--switches N] [--apps A,B]`
///
/// Expects SWAYSOCK to name a running sway with windows whose app ids are A
/// and B (scripts/bench-sway.sh starts a headless one). Measures:
/// - per-sample CPU: CLOCK_PROCESS_CPUTIME_ID over N samples (and wall time);
/// - event latency: focus command sent over IPC → the probe's event fd
///   readable → events drained and the sample done, median of the switches.
func benchSway(_ arguments: [String]) {
    let options = ProbeBenchOptions(arguments, bench: "sway")
    let (samples, switches, apps) = (options.samples, options.switches, options.apps)
    var environment: [String: String] = [:]
    if let path = getenv("SWAYSOCK") { environment["SWAYSOCK"] = String(cString: path) }
    let probe: SwayProbe
    switch SwayProbe.open(environment: environment) {
    case let .success(opened): probe = opened
    case let .failure(why): benchFail("sway bench: \(why)")
    }
    let commands: SwayIPCConnection
    do { commands = try SwayIPCConnection.connect(path: probe.socketPath, timeoutMs: 1000) } catch {
        benchFail("sway bench: \(error)")
    }

    // Per-sample cost, with the window in front unchanged.
    for _ in 0..<50 { _ = probe.sample() }
    let cpuStart = ProcessCPUClock.nowNs, wallStart = MonotonicClock.nowNs
    for _ in 0..<samples {
        guard case .success = probe.sample() else { benchFail("sway bench: a sample failed") }
    }
    let cpuPerSampleUs = Double(ProcessCPUClock.nowNs - cpuStart) / Double(samples) / 1000
    let wallPerSampleUs = Double(MonotonicClock.nowNs - wallStart) / Double(samples) / 1000

    // Event latency: each switch focuses the other app, starting from the second one in front.
    do { _ = try commands.request(.runCommand, payload: "[app_id=\"\(apps[1])\"] focus") } catch {
        benchFail("sway bench: focus \(apps[1]): \(error)")
    }
    usleep(100_000)
    var readableMs: [Double] = [], sampledMs: [Double] = []
    for i in 0..<switches {
        let app = apps[i % 2]
        probe.drainEvents()
        let start = MonotonicClock.nowNs
        do { _ = try commands.request(.runCommand, payload: "[app_id=\"\(app)\"] focus") } catch {
            benchFail("sway bench: focus \(app): \(error)")
        }
        guard let fd = probe.eventDescriptor, waitReadable(fd, timeoutMs: 1000) else {
            benchFail("sway bench: no window event within 1 s of focusing \(app)")
        }
        let readable = MonotonicClock.nowNs
        probe.drainEvents()
        guard case let .success(reading) = probe.sample(), reading.window?.appID == app else {
            benchFail("sway bench: after focusing \(app) the probe did not report it (is there a window with app id \(app)?)")
        }
        let done = MonotonicClock.nowNs
        readableMs.append(Double(readable - start) / 1e6)
        sampledMs.append(Double(done - start) / 1e6)
    }
    commands.close()

    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    let rows: [(String, String)] = [
        ("per-sample CPU (\(samples) samples)", format(cpuPerSampleUs, "µs")),
        ("per-sample wall time", format(wallPerSampleUs, "µs")),
        ("focus → event fd readable, median of \(readableMs.count)", format(median(readableMs), "ms")),
        ("focus → event fd readable, max", format(readableMs.max() ?? 0, "ms")),
        ("focus → sample done, median of \(sampledMs.count)", format(median(sampledMs), "ms")),
        ("focus → sample done, max", format(sampledMs.max() ?? 0, "ms")),
        ("bench process max RSS", "\(usage.ru_maxrss / 1024) MiB"),
    ]
    let width = rows.map(\.0.count).max() ?? 0
    print("sway probe (\(probe.socketPath))")
    for (label, value) in rows {
        print("  " + label + String(repeating: " ", count: width - label.count) + "  " + value)
    }
}

