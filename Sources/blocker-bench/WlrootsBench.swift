import BlockerCore
import BlockerProbes
import BlockerSystem
import Glibc

/// `blocker-bench wlroots [--samples N] [--switches N] [--apps A,B]`
///
/// Expects WAYLAND_DISPLAY (and XDG_RUNTIME_DIR) to name a running wlroots
/// compositor with windows whose app ids are A and B (scripts/bench-wlroots.sh
/// starts a headless sway). A second connection switches the focus with the
/// protocol's `activate`, so the measured probe only receives. Measures:
/// - per-sample CPU with nothing changing: CLOCK_PROCESS_CPUTIME_ID over N
///   samples (each reads the socket once, nonblocking; no reply is awaited);
/// - CPU per focus change: from the probe's descriptor becoming readable to
///   the sample reporting the other app (drainEvents + sample), median;
/// - latency: activate sent → descriptor readable → sample done, median.
func benchWlroots(_ arguments: [String]) {
    let options = ProbeBenchOptions(arguments, bench: "wlroots")
    let (samples, switches, apps) = (options.samples, options.switches, options.apps)
    var environment: [String: String] = [:]
    for name in ["WAYLAND_DISPLAY", "XDG_RUNTIME_DIR"] {
        if let value = getenv(name) { environment[name] = String(cString: value) }
    }
    func open() -> WlrootsProbe {
        switch WlrootsProbe.open(environment: environment) {
        case let .success(opened): return opened
        case let .failure(why): benchFail("wlroots bench: \(why)")
        }
    }
    let cpuBeforeOpen = ProcessCPUClock.nowNs
    let probe = open()
    let openCPUUs = Double(ProcessCPUClock.nowNs - cpuBeforeOpen) / 1000
    let driver = open()
    let deadline = MonotonicClock.now + 10_000
    while !Set(apps).isSubset(of: driver.toplevelAppIDs) || !Set(apps).isSubset(of: probe.toplevelAppIDs) {
        guard MonotonicClock.now < deadline else {
            benchFail("wlroots bench: no windows with app ids \(apps) within 10 s (have \(probe.toplevelAppIDs))")
        }
        _ = driver.sample()
        _ = probe.sample()
        usleep(20_000)
    }

    // Per-sample cost, with the window in front unchanged.
    for _ in 0..<50 { _ = probe.sample() }
    let cpuStart = ProcessCPUClock.nowNs, wallStart = MonotonicClock.nowNs
    for _ in 0..<samples {
        guard case .success = probe.sample() else { benchFail("wlroots bench: a sample failed") }
    }
    let cpuPerSampleUs = Double(ProcessCPUClock.nowNs - cpuStart) / Double(samples) / 1000
    let wallPerSampleUs = Double(MonotonicClock.nowNs - wallStart) / Double(samples) / 1000

    // Each switch activates the other app, starting from the second one in front.
    _ = driver.requestActivation(appID: apps[1])
    usleep(100_000)
    var readableMs: [Double] = [], sampledMs: [Double] = [], changeCPUUs: [Double] = [], eventsPerChange: [Double] = []
    for i in 0..<switches {
        let app = apps[i % 2]
        settle(probe)
        _ = driver.sample()                     // the driver's own events, outside the measurement
        let events = probe.eventsReceived
        let start = MonotonicClock.nowNs
        guard driver.requestActivation(appID: app) else { benchFail("wlroots bench: cannot activate \(app)") }
        var reported = false
        var readable: Int64 = 0
        var cpu: Int64 = 0
        while !reported {
            guard let fd = probe.eventDescriptor, waitReadable(fd, timeoutMs: 1000) else {
                benchFail("wlroots bench: no event within 1 s of activating \(app)")
            }
            if readable == 0 { readable = MonotonicClock.nowNs }
            let cpuWoke = ProcessCPUClock.nowNs
            probe.drainEvents()
            guard case let .success(reading) = probe.sample() else { benchFail("wlroots bench: a sample failed") }
            cpu += ProcessCPUClock.nowNs - cpuWoke
            reported = reading.window?.appID == app
        }
        let done = MonotonicClock.nowNs
        readableMs.append(Double(readable - start) / 1e6)
        sampledMs.append(Double(done - start) / 1e6)
        changeCPUUs.append(Double(cpu) / 1000)
        eventsPerChange.append(Double(probe.eventsReceived - events))
    }

    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    let rows: [(String, String)] = [
        ("per-sample CPU, nothing changed (\(samples) samples)", format(cpuPerSampleUs, "µs")),
        ("per-sample wall time", format(wallPerSampleUs, "µs")),
        ("CPU per focus change: events + sample, median of \(changeCPUUs.count)", format(median(changeCPUUs), "µs")),
        ("CPU per focus change, max", format(changeCPUUs.max() ?? 0, "µs")),
        ("events read per focus change, median", format(median(eventsPerChange), "")),
        ("activate → event fd readable, median", format(median(readableMs), "ms")),
        ("activate → sample done, median", format(median(sampledMs), "ms")),
        ("activate → sample done, max", format(sampledMs.max() ?? 0, "ms")),
        ("CPU to connect (registry, bind, toplevels)", format(openCPUUs, "µs")),
        ("bench process max RSS (two connections)", "\(usage.ru_maxrss / 1024) MiB"),
    ]
    let width = rows.map(\.0.count).max() ?? 0
    print("wlroots probe (\(probe.socketPath))")
    for (label, value) in rows {
        print("  " + label + String(repeating: " ", count: width - label.count) + "  " + value)
    }
}

/// Drains events until none came for 50 ms, so the next wake-up is the switch's.
private func settle(_ probe: WlrootsProbe) {
    while let fd = probe.eventDescriptor {
        probe.drainEvents()
        _ = probe.sample()
        if !waitReadable(fd, timeoutMs: 50) { return }
    }
}

