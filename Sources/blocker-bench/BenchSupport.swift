import Glibc

/// Prints `message` to stderr and exits 1.
func benchFail(_ message: String) -> Never {
    let line = Array((message + "\n").utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(1)
}

/// A clock's reading in ns.
func clockNs(_ clock: clockid_t) -> Int64 {
    var t = timespec()
    clock_gettime(clock, &t)
    return Int64(t.tv_sec) * 1_000_000_000 + Int64(t.tv_nsec)
}
