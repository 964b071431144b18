import BlockerCore
import BlockerSystem

/// What a browser's extension last said, through the native host that
/// browser started (`ReportTab`).
struct BrowserReport: Equatable {
    var tab: BrowserTab
    /// A window of that browser had the focus when it was said.
    var focused: Bool
    /// The host's connection on the bus: its report goes when it does.
    var host: String
}

/// blockerd's side of the browser extension (issue 24): a browser window in
/// front carries its active tab's site, so its groups are the site's; a site
/// shield is covered by the extension's page in that tab, not by a window cover.
extension Daemon {
    /// The extension of the browser `pid` says what its active tab shows.
    public func browserReported(_ tab: BrowserTab, focused: Bool, browser pid: Int32, host: String) {
        let report = BrowserReport(tab: tab, focused: focused, host: host)
        guard browserTabs[pid] != report else { return }
        if browserTabs[pid] == nil {
            log.write(LogEvent(priority: .info, "The browser extension reports for pid \(pid) (host \(host))"))
        }
        browserTabs[pid] = report
    }

    /// The native host's connection closed (the browser quit, or the
    /// extension went): its browser is judged by its window alone again.
    public func browserHostLeft(_ host: String) {
        for (pid, report) in browserTabs where report.host == host {
            browserTabs[pid] = nil
            log.write(LogEvent(priority: .info, "The browser extension of pid \(pid) stopped reporting"))
        }
    }

    /// The sample with the tab of the browser whose window is in front: the
    /// window's pid is the browser's that started the host.
    func withTheTab(_ reading: Reading) -> Reading {
        guard let window = reading.window else { return reading }
        guard let pid = window.pid, let report = browserTabs[pid] else {
            noteWithoutExtension(window)
            return reading
        }
        // The extension sees no window of its browser focused (a private
        // window it may not run in, its devtools): the tab it knows is not
        // the one in front; the window is judged as a window.
        guard report.focused else { return reading }
        // Its extension speaks now: doctor has nothing more to say of it.
        browsersWithoutExtension.remove(window.app)
        var sample = reading
        sample.window?.tab = report.tab
        return sample
    }

    /// A browser in front with no word from the extension while sites are
    /// configured: its tabs count by apps and titles only. Said once a browser.
    private func noteWithoutExtension(_ window: Window) {
        guard browsersWithoutExtension.count < 8, config.groups.contains(where: { !$0.sites.isEmpty }),
              !window.identifiers.isDisjoint(with: BrowserTab.knownBrowsers),
              browsersWithoutExtension.insert(window.app).inserted else { return }
        log.write(LogEvent(priority: .notice, "\(window.app) is in front without blocker's browser extension "
            + "reporting: its tabs' sites are not counted, only apps and titles (README, \"Websites\")"))
    }

    /// A shield over this window would be a site shield: then the extension's
    /// page is its cover, drawn or not; nil for any other window.
    func siteCover(of window: Window?) -> Bool? {
        guard let window, let site = window.tab?.site,
              meter.matcher.groups(for: window).contains(where: { $0.sites.contains { $0.matches(site: site) } })
        else { return nil }
        return window.tab?.covered ?? false
    }
}
