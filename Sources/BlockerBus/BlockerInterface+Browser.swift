import BlockerCore
import BlockerSystemd

// The browser extension's method (issue 24), declared as every other method
// (BlockerInterface.swift), in a file of its own.
extension BlockerInterface {
    /// `ReportTab(s site, b private, b focused, b covered)`: blocker's native
    /// messaging host (`blockerctl browser-host`, started by the browser) says
    /// what the browser's active tab shows: its site ("" for a page with
    /// none), whether its window is private, whether a window of that
    /// browser has the focus, and whether the tab shows blocker's page.
    /// blockerd believes only the blockerctl installed beside it, and takes
    /// the browser to be that caller's parent process (whose windows the
    /// probe sees): the caller is the message's sender, never an argument.
    public static let reportTab = BlockerMethod<(tab: BrowserTab, focused: Bool, caller: String), Void>(
        member: "ReportTab",
        inputs: [BusArgument("site", "s"), BusArgument("private", "b"), BusArgument("focused", "b"),
                 BusArgument("covered", "b")],
        outputs: [],
        writeArguments: { (arguments: (tab: BrowserTab, focused: Bool, caller: String), call: BusMessage) throws(SystemdError) in
            try call.append(arguments.tab.site ?? "")
            try call.append(arguments.tab.isPrivate)
            try call.append(arguments.focused)
            try call.append(arguments.tab.covered)
        },
        readArguments: { (call: BusMessage) throws(SystemdError) in
            let site = try call.readString(), isPrivate = try call.readBool()
            let focused = try call.readBool(), covered = try call.readBool()
            return (BrowserTab(site: site.isEmpty ? nil : site, isPrivate: isPrivate, covered: covered), focused,
                    call.sender ?? "")
        },
        check: { (arguments: (tab: BrowserTab, focused: Bool, caller: String)) -> MethodError? in
            guard let site = arguments.tab.site else { return nil }
            if let long = tooLong(site, what: tr("a site"), outcome: tr("the tab was not reported")) { return long }
            // What blockerd keeps is a site as a config names one: ASCII, no scheme, path or port.
            guard SitePattern(site)?.description == site else {
                return .invalidArgument(tr("\"{site}\" is not a site in ASCII form (example: youtube.com); the tab was not reported", ["site": "\(site.prefix(100))"]))
            }
            return nil
        },
        perform: { (handler: any BlockerMethods, arguments: (tab: BrowserTab, focused: Bool, caller: String)) throws(MethodError) in
            try handler.reportTab(arguments.tab, focused: arguments.focused, caller: arguments.caller)
        },
        writeReply: { (_: Void, _: BusMessage) throws(SystemdError) in },
        readReply: { (_: BusMessage) throws(WireMismatch) in })
}
