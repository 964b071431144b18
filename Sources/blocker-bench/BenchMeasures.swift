import BlockerSystem
import Glibc

/// What the probe benches share: waiting on a descriptor, the median, and
/// a value with its unit for the printed rows.

func waitReadable(_ fd: Int32, timeoutMs: Milliseconds) -> Bool {
    (try? Deadline.after(timeoutMs).wait(for: fd)) == true
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return 0 }
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

/// `value` to two decimals, then the unit when there is one.
func format(_ value: Double, _ unit: String) -> String {
    let rounded = (value * 100).rounded() / 100
    return unit.isEmpty ? "\(rounded)" : "\(rounded) \(unit)"
}
