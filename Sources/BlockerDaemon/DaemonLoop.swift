import BlockerCore
import Glibc

/// Drives a `Daemon` from one sd_event loop: a timer at `poll-interval`, the
/// probe's event fd, a wake-up at the instant the balance runs out, and
/// SIGTERM/SIGINT/SIGHUP. WATCHDOG=1 follows only a completed tick.
public final class DaemonLoop {
    public let daemon: Daemon
    public let loop: EventLoop
    private var pollTimer: Timer!
    private var zeroTimer: Timer!
    private var probeSource: EventSource?
    private var watched: (fd: Int32?, generation: Int) = (nil, 0)
    private let watchdog: Bool

    public init(daemon: Daemon) throws(SystemdError) {
        self.daemon = daemon
        loop = try EventLoop()
        watchdog = ServiceManager.watchdogInterval != nil
        pollTimer = try loop.timer { [unowned self] in self.tick() }
        zeroTimer = try loop.timer { [unowned self] in self.tick() }
        try loop.onSignal(SIGTERM) { [unowned self] in self.loop.exit(code: 0) }
        try loop.onSignal(SIGINT) { [unowned self] in self.loop.exit(code: 0) }
        try loop.onSignal(SIGHUP) { [unowned self] in self.reload() }
    }

    /// Ticks once, says READY=1, and runs until a stop signal; returns the exit status.
    public func run() -> Int32 {
        tick()
        ServiceManager.notify("READY=1\nSTATUS=\(daemon.statusLine)")
        let code: Int32
        do { code = try loop.run() } catch { code = 1 }
        daemon.shutdown()
        return code
    }

    public func reload() {
        ServiceManager.notify("RELOADING=1\nMONOTONIC_USEC=\(loop.now)")
        daemon.reload()
        watchProbe()
        tick()
        ServiceManager.notify("READY=1\nSTATUS=\(daemon.statusLine)")
    }

    /// One tick, then the next one armed a poll interval from now.
    public func tick() {
        daemon.tick()
        pollTimer.arm(afterMicroseconds: UInt64(daemon.config.daemon.pollInterval) * 1000)
        if let zeroAt = daemon.lastTick?.zeroAt {
            // Sample again the moment the balance runs out, not up to a poll later.
            zeroTimer.arm(atMicroseconds: UInt64(max(zeroAt, 0)) * 1000)
        } else {
            zeroTimer.disarm()
        }
        watchProbe()
        var state = "STATUS=\(daemon.statusLine)"
        if watchdog { state += "\nWATCHDOG=1" }
        ServiceManager.notify(state)
    }

    /// Event-driven probes: a focus change is handled at once, not on the next tick.
    private func watchProbe() {
        let fd = daemon.probe.eventDescriptor, generation = daemon.probe.eventGeneration
        guard fd != watched.fd || generation != watched.generation else { return }
        if let probeSource { loop.remove(probeSource) }
        probeSource = nil
        watched = (fd, generation)
        if let fd {
            probeSource = try? loop.onReadable(fd) { [unowned self] in
                self.daemon.probe.drainEvents()
                self.tick()
            }
        }
    }
}
