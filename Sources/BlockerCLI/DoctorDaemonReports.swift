import BlockerBus
import BlockerCore

/// Doctor's checks of what the running blockerd reports about the parts
/// beside the desktop: blocker's browser extension, the `[sync]` folder.
extension Doctor {
    static var browserExtensionFix: String {
        tr("load blocker's extension in the browser: README, \"Websites\" (make install puts it in ~/.local/share/blocker/browser-extension)")
    }

    /// `sites` count only in a browser where blocker's extension reports
    /// through its native messaging host: the host installed, and no browser
    /// seen in front without the extension's word.
    static func browserExtension(_ facts: DoctorFacts) -> DoctorCheck? {
        guard let manifests = facts.browserHostManifests else { return nil }
        let subject = "browser extension"
        if case let .success(report) = facts.daemon, !report.browsersWithoutExtension.isEmpty {
            return DoctorCheck(.warn, subject, tr("{browsers} was in front without blocker's extension reporting: its tabs' sites are not counted, only apps and titles", ["browsers": report.browsersWithoutExtension.joined(separator: ", ")]),
                fix: browserExtensionFix)
        }
        guard !manifests.isEmpty else {
            return DoctorCheck(.warn, subject, tr("sites are configured, but no browser's native messaging host for blocker is installed: no tab's site is counted"), fix: tr("make install, then {fix}", ["fix": browserExtensionFix]))
        }
        let families = manifests.keys.sorted().joined(separator: ", ")
        return DoctorCheck(.ok, subject, tr("the native messaging host is installed for {families}; sites count in a browser where the extension is loaded", ["families": "\(families)"]))
    }

    /// `[sync]`: the folder in use and the other machines seen, or why sync is off.
    static func sync(_ facts: DoctorFacts) -> DoctorCheck? {
        guard case let .success(report) = facts.daemon, let sync = report.sync else { return nil }
        let subject = "sync"
        if let problem = sync.problem {
            return DoctorCheck(.warn, subject, tr("{problem}: the balance is this machine's own", ["problem": "\(problem)"]),
                               fix: tr("create the folder and share it with your sync engine, or change [sync] folder (README, \"Several machines\")"))
        }
        return DoctorCheck(.ok, subject, trn("device {device} in {folder}, {count} other machine read (blockerctl devices)",
                                             "device {device} in {folder}, {count} other machines read (blockerctl devices)",
                                             count: sync.devices.count, ["device": "\(sync.device)", "folder": "\(sync.folder)"]))
    }
}
