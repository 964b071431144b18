import BlockerBus
import BlockerCore

/// Doctor's checks of what the running blockerd reports about the parts
/// beside the desktop: blocker's browser extension, the `[sync]` folder.
extension Doctor {
    static let browserExtensionFix = "load blocker's extension in the browser: README, \"Websites\" "
        + "(make install puts it in ~/.local/share/blocker/browser-extension)"

    /// `sites` count only in a browser where blocker's extension reports
    /// through its native messaging host: the host installed, and no browser
    /// seen in front without the extension's word.
    static func browserExtension(_ facts: DoctorFacts) -> DoctorCheck? {
        guard let manifests = facts.browserHostManifests else { return nil }
        let subject = "browser extension"
        if case let .success(report) = facts.daemon, !report.browsersWithoutExtension.isEmpty {
            return DoctorCheck(.warn, subject, "\(report.browsersWithoutExtension.joined(separator: ", ")) was in front "
                + "without blocker's extension reporting: its tabs' sites are not counted, only apps and titles",
                fix: browserExtensionFix)
        }
        guard !manifests.isEmpty else {
            return DoctorCheck(.warn, subject, "sites are configured, but no browser's native messaging host for "
                + "blocker is installed: no tab's site is counted", fix: "make install, then " + browserExtensionFix)
        }
        let families = manifests.keys.sorted().joined(separator: ", ")
        return DoctorCheck(.ok, subject, "the native messaging host is installed for \(families); sites count in a browser "
            + "where the extension is loaded")
    }

    /// `[sync]`: the folder in use and the other machines seen, or why sync is off.
    static func sync(_ facts: DoctorFacts) -> DoctorCheck? {
        guard case let .success(report) = facts.daemon, let sync = report.sync else { return nil }
        let subject = "sync"
        if let problem = sync.problem {
            return DoctorCheck(.warn, subject, "\(problem): the balance is this machine's own",
                               fix: "create the folder and share it with your sync engine, or change [sync] folder "
                                   + "(README, \"Several machines\")")
        }
        let others = sync.devices.count == 1 ? "1 other machine" : "\(sync.devices.count) other machines"
        return DoctorCheck(.ok, subject, "device \(sync.device) in \(sync.folder), \(others) read (blockerctl devices)")
    }
}
