import BlockerCore
import BlockerProbes
import BlockerSystem
import Glibc

// `blocker-bench x11 [--samples N] [--switches N] [--naive N]`
//
// Needs DISPLAY set to a running X server with a window manager that keeps
// _NET_ACTIVE_WINDOW (scripts/bench-x11.sh starts Xvfb + openbox). Opens two
// xterms of its own, measures, and closes them.
//
// - probe CPU: CLOCK_PROCESS_CPUTIME_ID over N samples with nothing changing
//   (answered from what the probe keeps: no request), µs per sample; and per
//   focus change, reading the events and sampling (two round trips);
// - event latency: from spawning `xdotool windowactivate OTHER` until the
//   probe's descriptor was readable and a sample reported OTHER (the xdotool
//   start-up is inside the number: an upper bound); median of the switches;
// - the naive loop: `xprop -id "$(xdotool getactivewindow)" WM_CLASS` through
//   /bin/sh once per sample, CPU of this process and its children per round.
func benchX11(_ arguments: [String]) {
    var samples = 2000, switches = 30, naiveRounds = 50
    var rest = arguments[...]
    while let flag = rest.popFirst() {
        guard let value = rest.popFirst().flatMap({ Int($0) }), value > 0 else { x11BenchUsage() }
        switch flag {
        case "--samples": samples = value
        case "--switches": switches = value
        case "--naive": naiveRounds = value
        default: x11BenchUsage()
        }
    }

    let environment = Environment.current()
    let probe: X11Probe
    switch X11Probe.open(environment: environment) {
    case let .success(opened): probe = opened
    case let .failure(why): x11BenchFail("\(why) (scripts/bench-x11.sh starts Xvfb + openbox)")
    }

    // Two windows to switch between.
    var windows: [(pid: pid_t, id: String, wmClass: String)] = []
    // exit() skips defers: every way out closes the xterms.
    func fail(_ message: String) -> Never {
        for window in windows { stopChild(window.pid) }
        x11BenchFail(message)
    }
    for wmClass in ["BlockerBenchA", "BlockerBenchB"] {
        guard let pid = spawnQuietly(["/usr/bin/xterm", "-class", wmClass, "-T", wmClass, "-e", "sleep", "3600"]) else {
            fail("cannot start xterm (apt-get install xterm)")
        }
        windows.append((pid, "", wmClass))
        guard let found = try? Subprocess.run(["/usr/bin/xdotool", "search", "--sync", "--onlyvisible", "--class", "^\(wmClass)$"],
                                              timeoutMs: 10_000).get(),
              let id = String(decoding: found.stdout, as: UTF8.self).split(separator: "\n").first else {
            fail("the \(wmClass) xterm never showed up (is a window manager running?)")
        }
        windows[windows.count - 1].id = String(id)
    }
    _ = try? Subprocess.run(["/usr/bin/xdotool", "windowactivate", "--sync", windows[0].id], timeoutMs: 5000).get()

    // 1. CPU per sample (the foreground does not change meanwhile).
    for _ in 0..<50 { _ = probe.sample() }
    var failures = 0
    let cpuStart = ProcessCPUClock.nowUs, wallStart = MonotonicClock.nowUs
    for _ in 0..<samples {
        if case .failure = probe.sample() { failures += 1 }
    }
    let cpuPerSample = Double(ProcessCPUClock.nowUs - cpuStart) / Double(samples)
    let wallPerSample = Double(MonotonicClock.nowUs - wallStart) / Double(samples)
    if failures > 0 { fail("\(failures) of \(samples) samples failed") }

    // 2. Focus change → descriptor readable → sample done.
    var latencies: [Double] = [], afterWake: [Double] = [], changeCPU: [Double] = []
    for round in 0..<switches {
        let target = windows[(round + 1) % 2]
        settle(probe)
        guard let fd = probe.eventDescriptor else { fail("the probe lost its connection") }
        let started = MonotonicClock.nowUs
        guard let xdotool = spawnQuietly(["/usr/bin/xdotool", "windowactivate", target.id]) else {
            fail("cannot run xdotool (apt-get install xdotool)")
        }
        var done = false
        while !done {
            guard waitReadable(fd, timeoutMs: 2000) else { fail("no event within 2 s of activating \(target.wmClass)") }
            let woke = MonotonicClock.nowUs, cpuWoke = ProcessCPUClock.nowUs
            probe.drainEvents()
            if case let .success(reading) = probe.sample(), reading.window?.wmClass == target.wmClass {
                let finished = MonotonicClock.nowUs
                changeCPU.append(Double(ProcessCPUClock.nowUs - cpuWoke))
                latencies.append(Double(finished - started) / 1000)
                afterWake.append(Double(finished - woke))
                done = true
            }
        }
        waitChild(xdotool)
    }

    // 3. The naive loop people write.
    let shellLine = "xprop -id \"$(xdotool getactivewindow)\" WM_CLASS"
    let naiveCPUStart = ProcessCPUClock.nowUs, childrenStart = childrenCPUMicroseconds()
    for _ in 0..<naiveRounds {
        guard case let .success(output) = Subprocess.run(["/bin/sh", "-c", shellLine], timeoutMs: 5000),
              output.status == 0 else { fail("the naive loop failed: /bin/sh -c '\(shellLine)'") }
    }
    let naivePerRound = Double(ProcessCPUClock.nowUs - naiveCPUStart + childrenCPUMicroseconds() - childrenStart) / Double(naiveRounds)
    let ratio = naivePerRound / cpuPerSample

    let latencyMedian = median(latencies)
    let rows: [(String, String, String, Bool?)] = [
        ("x11 sample CPU, nothing changed (µs/sample, \(samples) samples)", fixed(cpuPerSample, 1), "≤ 100",
         cpuPerSample <= 100),
        ("x11 CPU per focus change: events + sample (µs, median)", fixed(median(changeCPU), 1), "≤ 100",
         median(changeCPU) <= 100),
        ("x11 sample wall time (µs/sample)", fixed(wallPerSample, 1), "", nil),
        ("event latency median (ms, \(switches) switches)", fixed(latencyMedian, 2), "≤ 20", latencyMedian <= 20),
        ("event latency max (ms)", fixed(latencies.max() ?? 0, 2), "", nil),
        ("  of which fd readable → sample done (µs, median)", fixed(median(afterWake), 1), "", nil),
        ("naive xdotool+xprop CPU (µs/round, \(naiveRounds) rounds)", fixed(naivePerRound, 0), "", nil),
        ("naive / probe CPU", "\(fixed(ratio, 0))×", "≥ 30×", ratio >= 30),
    ]
    printTable(rows)
    for window in windows { stopChild(window.pid) }
}

private func x11BenchUsage() -> Never {
    print("usage: blocker-bench x11 [--samples N] [--switches N] [--naive N]   (DISPLAY must be set)")
    exit(2)
}

private func x11BenchFail(_ message: String) -> Never {
    // stderr (the C global) is off limits in Swift 6: write(2) to fd 2.
    let line = Array("blocker-bench x11: \(message)\n".utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(1)
}

/// Drains events until none came for 50 ms, so the next wake-up is ours.
private func settle(_ probe: X11Probe) {
    while let fd = probe.eventDescriptor {
        probe.drainEvents()
        if !waitReadable(fd, timeoutMs: 50) { return }
    }
}

private func printTable(_ rows: [(String, String, String, Bool?)]) {
    let first = rows.map { $0.0.count }.max() ?? 0
    let second = rows.map { $0.1.count }.max() ?? 0
    let third = max(rows.map { $0.2.count }.max() ?? 0, "target".count)
    func pad(_ s: String, _ n: Int, right: Bool = false) -> String {
        let fill = String(repeating: " ", count: max(0, n - s.count))
        return right ? fill + s : s + fill
    }
    print(pad("x11 probe", first) + "  " + pad("value", second, right: true) + "  " + pad("target", third) + "  ")
    for (name, value, target, met) in rows {
        let verdict = met.map { $0 ? "ok" : "MISSED" } ?? ""
        print(pad(name, first) + "  " + pad(value, second, right: true) + "  " + pad(target, third) + "  " + verdict)
    }
}

private func fixed(_ value: Double, _ digits: Int) -> String {
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let rounded = (value * scale).rounded() / scale
    guard digits > 0 else { return String(Int(rounded)) }
    let whole = Int(rounded)
    let fraction = Int(((rounded - Double(whole)) * scale).rounded())
    let digitsText = String(fraction)
    return "\(whole)." + String(repeating: "0", count: max(0, digits - digitsText.count)) + digitsText
}

private func childrenCPUMicroseconds() -> Int64 {
    var usage = rusage()
    getrusage(RUSAGE_CHILDREN.rawValue, &usage)
    func us(_ t: timeval) -> Int64 { Int64(t.tv_sec) * 1_000_000 + Int64(t.tv_usec) }
    return us(usage.ru_utime) + us(usage.ru_stime)
}

/// Starts `argv` in the background, stdio on /dev/null, with default signal
/// handling (so SIGTERM stops it); nil when it cannot start.
private func spawnQuietly(_ argv: [String]) -> pid_t? {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var none = sigset_t(), all = sigset_t()
    sigemptyset(&none)
    sigfillset(&all)
    posix_spawnattr_setsigmask(&attributes, &none)
    posix_spawnattr_setsigdefault(&attributes, &all)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    let cArgs = argv.map { strdup($0) } + [nil]
    defer { cArgs.forEach { free($0) } }
    var pid: pid_t = 0
    return posix_spawn(&pid, argv[0], &actions, &attributes, cArgs, environ) == 0 ? pid : nil
}

private func waitChild(_ pid: pid_t) {
    var status: Int32 = 0
    _ = try? retryOnInterrupt { waitpid(pid, &status, 0) }
}

private func stopChild(_ pid: pid_t) {
    kill(pid, SIGTERM)
    waitChild(pid)
}
