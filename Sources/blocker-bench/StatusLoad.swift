import BlockerBus
import BlockerSystem
import Glibc

/// `blocker-bench status-load [--rate N] [--seconds S]`
///
/// Calls blockerd's `Status()` N times a second for S seconds over the
/// session bus (paced, one call at a time) and prints how many were answered,
/// the achieved rate and the call latency percentiles.
func benchStatusLoad(_ arguments: [String]) {
    var rate = 1000, seconds = 10
    var rest = arguments[...]
    while let option = rest.popFirst() {
        switch (option, rest.popFirst().flatMap { Int($0) }) {
        case let ("--rate", n?) where n > 0: rate = n
        case let ("--seconds", n?) where n > 0: seconds = n
        default: benchFail("usage: blocker-bench status-load [--rate N] [--seconds S]")
        }
    }
    var environment: [String: String] = [:]
    for key in ["DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR"] {
        if let value = getenv(key) { environment[key] = String(cString: value) }
    }
    let client: BlockerClient
    do { client = try BlockerClient.connect(environment: environment) } catch { benchFail("status-load: \(error)") }

    let total = rate * seconds
    let interval = 1_000_000_000 / Int64(rate)
    var latencies: [Int64] = []
    latencies.reserveCapacity(total)
    var failures = 0
    let start = MonotonicClock.nowNs
    for i in 0..<total {
        // Paced: call i is due at start + i × interval; never faster.
        let due = start + Int64(i) * interval
        while MonotonicClock.nowNs < due {}
        let before = MonotonicClock.nowNs
        do { _ = try client.status() } catch { failures += 1 }
        latencies.append(MonotonicClock.nowNs - before)
    }
    let elapsed = Double(MonotonicClock.nowNs - start) / 1e9
    latencies.sort()
    func percentile(_ p: Double) -> Double { Double(latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))]) / 1e6 }
    print("calls=\(total) failed=\(failures) seconds=\(String(format2(elapsed))) rate=\(String(format2(Double(total) / elapsed))) "
          + "p50_ms=\(format2(percentile(0.5))) p99_ms=\(format2(percentile(0.99))) max_ms=\(format2(percentile(1.0)))")
}

private func format2(_ x: Double) -> String {
    let scaled = Int((x * 100).rounded())
    return "\(scaled / 100).\(scaled % 100 < 10 ? "0" : "")\(scaled % 100)"
}
