import BlockerSystemd
import Glibc

/// Sends events to journald as structured fields.
public final class JournalSink: LogSink {
    public init() {}

    public func write(_ event: LogEvent) {
        // A line the journal refuses has nowhere better to go.
        try? Journal.send(event.journalFields)
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
