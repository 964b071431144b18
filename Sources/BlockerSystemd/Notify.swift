import CSystemd

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
