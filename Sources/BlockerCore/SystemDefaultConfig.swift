/// The machine's default config (`/etc/xdg/blocker/blocker.toml` from the
/// Debian package), read when a user has no `blocker.toml` of their own. The
/// package starts blockerd in every user's graphical session, and nobody but
/// the administrator chose that file: a second user's first login must not
/// find Slack covered. So on it blocker observes and records, and meters
/// nothing until the user writes a config of their own.
public enum SystemDefaultConfig {
    /// What blockerd runs on the default file: every group still counted in
    /// history, none metered, limited, scheduled, paused or capped in its
    /// opens (so nothing is covered by a rule; a `blockerctl block` the user
    /// asks for still covers).
    public static func observing(_ config: Config) -> Config {
        var observed = config
        observed.pause = nil
        for index in observed.groups.indices {
            observed.groups[index].metered = false
            observed.groups[index].dailyLimit = nil
            observed.groups[index].schedules = []
            observed.groups[index].pause = nil
            observed.groups[index].opensPerDay = nil
        }
        return observed
    }

    /// How to start metering, for the journal, `status` and `doctor`.
    public static func howToStart(systemFile: String, userFile: String) -> String {
        tr("to start: copy {system_file} to {file}, edit it, then blockerctl reload", ["system_file": systemFile, "file": userFile])
    }
}
