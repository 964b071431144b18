import BlockerCore
import BlockerJSON
import BlockerSystem

/// `probe = "command"`: runs `probe-command` once per sample (argv, never a
/// shell). Its stdout is one JSON object
/// `{"app":"firefox","title":"…","pid":123}` with optional `"locked": true`
/// and `"idle_ms": N`; empty output or `null` means nothing in front.
public final class CommandProbe: ForegroundProbe {
    private let executables = ExecutableNameCache()
    public let name = "command"
    public let argv: [String]
    /// A probe that hangs is killed after this long and its sample fails.
    public let timeoutMs: Milliseconds

    /// Runs the program for us when set (blockerd); else each sample spawns it here.
    private let launcher: ProbeLauncher?

    public init(argv: [String], timeoutMs: Milliseconds, launcher: ProbeLauncher? = nil) {
        self.argv = argv
        self.timeoutMs = timeoutMs
        self.launcher = launcher
    }

    public func sample() -> Result<Reading, ProbeFailure> {
        let result = launcher?.run(argv, timeoutMs: timeoutMs) ?? Subprocess.run(argv, timeoutMs: timeoutMs)
        switch result {
        case let .failure(failure):
            return .failure(ProbeFailure("probe command \(failure)"))
        case let .success(output) where output.status != 0:
            let said = output.stderrLine.map { ": \($0)" } ?? ""
            return .failure(ProbeFailure("probe command exited with status \(output.status)\(said)"))
        case let .success(output):
            return Self.parse(output.stdout, executables: executables)
        }
    }

    /// The JSON contract, strictly: garbage is a failed sample, not "nothing in front".
    static func parse(_ bytes: [UInt8], executables: ExecutableNameCache = ExecutableNameCache()) -> Result<Reading, ProbeFailure> {
        // Trim ASCII whitespace on bytes: this runs every tick.
        let isSpace = { (b: UInt8) in b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 }
        let start = bytes.firstIndex { !isSpace($0) } ?? bytes.endIndex
        let end = bytes.lastIndex { !isSpace($0) }.map { $0 + 1 } ?? start
        let trimmed = bytes[start..<max(start, end)]
        if trimmed.isEmpty || trimmed.elementsEqual("null".utf8) { return .success(Reading(window: nil)) }
        // The reader is small and strict: JSONDecoder would cost more than the rest of the tick.
        guard let object = try? JSONReader.value(trimmed), object.members != nil else {
            let text = String(decoding: trimmed, as: UTF8.self)
            let shown = text.count > 80 ? String(text.prefix(80)) + "…" : text
            return .failure(ProbeFailure("probe command printed something that is not a JSON object: \(shown)"))
        }
        // Each field is optional, but when present it must have its type.
        func field<T>(_ name: String, _ read: (JSONValue) -> T?) -> Result<T?, ProbeFailure> {
            guard let value = object[name], !value.isNull else { return .success(nil) }
            guard let typed = read(value) else {
                return .failure(ProbeFailure("probe command printed \"\(name)\" of the wrong type"))
            }
            return .success(typed)
        }
        do {
            let app = try field("app", \.string).get()
            let title = try field("title", \.string).get()
            let pid = try field("pid") { $0.integer.flatMap { Int32(exactly: $0) } }.get()
            let locked = try field("locked", \.bool).get()
            let idle = try field("idle_ms", \.integer).get()
            let window = app.map { app in
                Window(appID: app, exe: pid.flatMap(executables.name(pid:)), title: title ?? "", pid: pid)
            }
            return .success(Reading(window: window, locked: locked ?? false, idle: idle.map(Milliseconds.init(ms:))))
        } catch {
            return .failure(error)
        }
    }
}
