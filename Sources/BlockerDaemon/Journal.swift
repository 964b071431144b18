import CSystemd
import Glibc

/// Sends events to journald as structured fields (sd_journal_sendv: the
/// variadic sd_journal_send does not import into Swift).
public final class JournalSink: LogSink {
    public init() {}

    public func write(_ event: LogEvent) {
        let lines = event.journalFields.map { strdup("\($0.0)=\($0.1)")! }
        defer { lines.forEach { free($0) } }
        var vectors = lines.map { iovec(iov_base: UnsafeMutableRawPointer($0), iov_len: strlen($0)) }
        sd_journal_sendv(&vectors, Int32(vectors.count))
    }
}

/// Outside journald: the same lines on stderr with `<N>` priority prefixes
/// (which systemd would parse too), fields appended as key=value.
public final class StderrSink: LogSink {
    public init() {}

    public func write(_ event: LogEvent) {
        var line = "<\(event.priority.rawValue)>\(event.message)"
        if let kind = event.kind { line += " event=\(kind.rawValue)" }
        for (key, value) in event.fields { line += " \(key.lowercased())=\(value)" }
        line += "\n"
        // One write(2) per line, so lines from a crash-looping daemon never interleave.
        var bytes = Array(line.utf8)
        _ = Glibc.write(2, &bytes, bytes.count)
    }
}

public enum LogDestination {
    /// journald when stderr is the journal stream systemd gave us
    /// (JOURNAL_STREAM=dev:ino matches fd 2), stderr otherwise.
    public static func automatic(environment: [String: String]) -> LogSink {
        guard let stream = environment["JOURNAL_STREAM"] else { return StderrSink() }
        var st = stat()
        guard fstat(2, &st) == 0, stream == "\(st.st_dev):\(st.st_ino)" else { return StderrSink() }
        return JournalSink()
    }
}

/// sd_notify: READY=1, STATUS=, WATCHDOG=1, RELOADING=1, STOPPING=1.
public enum ServiceManager {
    /// Sends `state` to the service manager; a no-op outside systemd.
    public static func notify(_ state: String) {
        _ = sd_notify(0, state)
    }

    /// The watchdog interval systemd expects pings within, or nil when it is off.
    public static var watchdogInterval: UInt64? {
        var usec: UInt64 = 0
        return sd_watchdog_enabled(0, &usec) > 0 ? usec : nil
    }
}
