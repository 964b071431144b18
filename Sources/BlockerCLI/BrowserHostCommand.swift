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
        abstract: N_("The browser extension's native messaging host (the browser starts it)"),
        arguments: [.optional("ORIGIN", help: N_("what the browser passes: the extension's origin or the manifest's path")),
                    .optional("EXTENSION", help: N_("what Firefox passes: the extension's id"))],
        discussion: N_("Started by Chromium or Firefox for blocker's extension, through the native messaging host io.github.blockerd.browser; it reads the browser's messages on standard input and answers on standard output. It tells blockerd only the site of the active tab."),
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
                             + "package); until it is there a site is a host name's last two labels (news.bbc.co.uk counts as co.uk)")
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
        let browser = FileDescriptor(rawValue: 0)
        func send(_ message: JSONValue) {
            guard let frame = NativeMessaging.frame(Array(message.rendered.utf8)) else { return }
            SystemCalls.writeAll(1, frame)
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
            var fds = [pollfd(fd: browser.rawValue, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: client.fileDescriptor, events: client.pollEvents, revents: 0)]
            // Until the browser or the bus says something, the next report's
            // check, or sd-bus's own deadline (CLOCK_MONOTONIC µs).
            let deadlinesNs = [checkAt.map { $0.ms * 1_000_000 }, client.deadlineMicroseconds.map { Int64(clamping: $0) * 1000 }]
            let deadline = Deadline(atNs: deadlinesNs.compactMap { $0 }.min() ?? .max)
            do { _ = try deadline.wait(for: &fds) } catch { throw CommandFailure("blocker-browser-host: poll: \(error)") }
            if fds[0].revents != 0 {
                let bytes: [UInt8]
                do { bytes = try browser.read(upTo: 64 << 10) } catch {
                    throw CommandFailure("blocker-browser-host: reading from the browser: \(error)")
                }
                guard !bytes.isEmpty else {
                    // The browser closed the pipe: the extension or the browser went.
                    do { try reader.finish() } catch { throw CommandFailure("blocker-browser-host: \(error)") }
                    return
                }
                let messages: [[UInt8]]
                do { messages = try reader.feed(bytes) } catch {
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
