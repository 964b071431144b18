import BlockerBus
import BlockerCore
import BlockerJSON
import BlockerSystem
import Glibc

/// `blockerctl browser-host [ORIGIN] [EXTENSION]`: blocker's native messaging
/// host, which the browser starts for blocker's extension (its manifests name
/// `blocker-browser-host`, a link to blockerctl). Chromium passes the
/// extension's origin, Firefox the manifest's path and the extension's id.
struct BrowserHostCommand: BlockerCommand {
    static let spec = CommandSpec(
        ["browser-host"],
        abstract: "The browser extension's native messaging host (the browser starts it)",
        arguments: [.optional("ORIGIN", help: "what the browser passes: the extension's origin or the manifest's path"),
                    .optional("EXTENSION", help: "what Firefox passes: the extension's id")],
        discussion: "Started by Chromium or Firefox for blocker's extension, through the native messaging host "
            + "io.github.blockerd.browser; it reads the browser's messages on standard input and answers on standard "
            + "output. It tells blockerd only the site of the active tab.",
        hidden: true)

    /// The name the manifests give the host: blockerctl run under it is `browser-host`.
    static let linkName = "blocker-browser-host"
    /// How long after a report blockerd has surely decided on it (a tick comes at once).
    static let settle: Milliseconds = 300

    init(_ arguments: ParsedArguments) throws(UsageError) {}

    func run(_ context: CommandContext) throws(CommandFailure) {
        let suffixText = (try? FileContents.read(atPath: PublicSuffixList.systemPath, limit: 8 << 20)) ?? []
        if suffixText.isEmpty {
            context.err.line("blocker-browser-host: cannot read \(PublicSuffixList.systemPath) (install the publicsuffix "
                             + "package); sites are whole host names until it is there")
        }
        var session = BrowserHostSession(suffixes: PublicSuffixList(text: String(decoding: suffixText, as: UTF8.self)))
        guard let client = try context.service() as? BlockerClient else {
            throw CommandFailure("this connection to blockerd cannot follow its signals")
        }
        var stale = true
        let subscriptions: [BlockerSubscription]
        do {
            subscriptions = [
                try client.onShieldChanged { _ in stale = true },
                try client.onBalanceChanged { _ in stale = true },
                try client.onDaemonRunningChanged { running in
                    stale = true
                    // A blockerd started again knows nothing of the tab: say it again.
                    if running { session.forgetReported() }
                },
            ]
        } catch { throw BusFailureText.failure(error) }
        defer { withExtendedLifetime(subscriptions) {} }
        var reader = NativeMessageReader()
        var checkAt: MonotonicInstant?
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        func send(_ message: JSONValue) {
            guard let frame = NativeMessaging.frame(Array(message.rendered.utf8)) else { return }
            var written = 0
            while written < frame.count {
                let n = frame[written...].withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { return }
                written += n
            }
        }
        func perform(_ action: BrowserHostSession.Action) {
            switch action {
            case let .report(tab, focused):
                do { try client.reportTab(tab, focused: focused) } catch {
                    context.err.line("blocker-browser-host: \(BusFailureText.failure(error).message)")
                }
                checkAt = MonotonicClock.now + Self.settle
            case let .earn(exercise, reps):
                do {
                    let result = try client.earnOnce(requestID: EarnRequestID.make(), exercise: exercise, reps: reps)
                    send(BrowserHostSession.earned(ok: true, text: "+\(DurationText.format(result.earnedMs)), balance "
                                                   + DurationText.format(result.balanceMs)))
                } catch {
                    send(BrowserHostSession.earned(ok: false, text: BusFailureText.failure(error).message))
                }
                stale = true
            case let .reply(message):
                send(message)
            }
        }
        let clock = context.localClock
        while true {
            if let due = checkAt, MonotonicClock.now >= due {
                checkAt = nil
                stale = true
            }
            if stale {
                stale = false
                if session.needsReport { session.reported().map(perform) }
                if let status = try? client.status() {
                    for message in session.verdicts(status, words: { shield in
                        ShieldText.reason(shield.reason ?? .balance, group: shield.group, until: shield.until,
                                          now: context.invocation.clock(), zone: clock.zone)
                    }) { send(message) }
                }
            }
            var fds = [pollfd(fd: 0, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: client.fileDescriptor, events: client.pollEvents, revents: 0)]
            // poll's timeout in ms: the next report's check, or sd-bus's own deadline (µs).
            let now = MonotonicClock.now
            var waits: [Int64] = []
            if let checkAt { waits.append((checkAt - now).ms) }
            if let busDeadline = client.deadlineMicroseconds { waits.append(Int64(clamping: busDeadline / 1000) - now.ms) }
            let timeout = waits.min().map { Int32(clamping: max(0, $0) + 1) } ?? -1
            guard poll(&fds, 2, timeout) >= 0 || errno == EINTR else {
                throw CommandFailure("poll failed: \(Errno.current)")
            }
            if fds[0].revents != 0 {
                let n = read(0, &buffer, buffer.count)
                if n < 0 && (errno == EINTR || errno == EAGAIN) { continue }
                guard n > 0 else {
                    // The browser closed the pipe: the extension or the browser went.
                    do { try reader.finish() } catch { throw CommandFailure("blocker-browser-host: \(error)") }
                    return
                }
                let messages: [[UInt8]]
                do { messages = try reader.feed(Array(buffer[0..<n])) } catch {
                    throw CommandFailure("blocker-browser-host: \(error)")
                }
                for bytes in messages {
                    guard let message = try? JSONReader.value(bytes) else {
                        send(.object([("type", .string("error")), ("text", .string("blocker's host got a message that is not JSON"))]))
                        continue
                    }
                    session.received(message).forEach(perform)
                }
            }
            do { try client.dispatchPending() } catch { throw BusFailureText.failure(error) }
        }
    }
}
