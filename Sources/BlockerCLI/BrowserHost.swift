import BlockerBus
import BlockerCore
import BlockerJSON

/// blocker's native messaging host, pure (issue 24): what the extension says
/// becomes `ReportTab` and `Earn` calls; what blockerd says becomes the
/// extension's verdicts. The host name the extension sends is cut down to its
/// site here and goes no further; blockerd hears only the site.
struct BrowserHostSession {
    /// What to do for one message of the extension.
    enum Action: Equatable {
        case report(BrowserTab, focused: Bool)
        case earn(exercise: String, reps: UInt32)
        /// A message back to the extension (an error it should show).
        case reply(JSONValue)
    }

    let suffixes: PublicSuffixList
    /// The active tab as last reported, and its host name (for the verdict's `host`).
    private(set) var tab = BrowserTab(site: nil)
    private(set) var host: String?
    private(set) var focused = false
    /// The site whose page the extension was last told to cover.
    private(set) var blockedSite: String?
    /// The browser, from `hello` ("chromium", "firefox").
    private(set) var browser: String?
    /// blockerd started again since the last report: it knows nothing of the tab.
    private(set) var needsReport = false

    init(suffixes: PublicSuffixList) {
        self.suffixes = suffixes
    }

    mutating func received(_ message: JSONValue) -> [Action] {
        switch message["type"]?.string {
        case "hello":
            browser = message["browser"]?.string.map { String($0.prefix(40)) }
            return []
        case "tab":
            let host = message["host"]?.string
            let site = host.flatMap(site(ofHost:))
            let tab = BrowserTab(site: site, isPrivate: message["private"]?.bool ?? false,
                                 covered: message["covered"]?.bool ?? false)
            let focused = message["focused"]?.bool ?? true
            self.host = site == nil ? nil : host
            guard tab != self.tab || focused != self.focused else { return [] }
            self.tab = tab
            self.focused = focused
            return [.report(tab, focused: focused)]
        case "earn":
            guard let exercise = message["exercise"]?.string, exercise.utf8.count <= BlockerLimits.nameBytes,
                  let reps = message["reps"]?.integer, let count = UInt32(exactly: reps),
                  EarnCommand.repsRange.contains(count) else {
                let range = EarnCommand.repsRange
                return [.reply(Self.earned(ok: false, text: "give an exercise and \(range.lowerBound) to \(range.upperBound) reps"))]
            }
            return [.earn(exercise: exercise, reps: count)]
        default:
            let type = message["type"]?.string.map { "\"\($0.prefix(40))\"" } ?? "none"
            return [.reply(.object([("type", .string("error")),
                                    ("text", .string("blocker's host does not know the message type \(type)"))]))]
        }
    }

    /// blockerd (re)started: the tab is said again before anything else.
    mutating func forgetReported() { needsReport = true }

    /// The report blockerd lacks, once.
    mutating func reported() -> Action? {
        guard needsReport else { return nil }
        needsReport = false
        return .report(tab, focused: focused)
    }

    /// A host name as a browser gives it (`m.youtube.com`, `[::1]`,
    /// `bücher.de`) → its site; nil when it is no host name.
    func site(ofHost host: String) -> String? {
        guard !host.isEmpty, host.utf8.count <= 253, !host.contains(where: { "/?#@\\ ".contains($0) }) else { return nil }
        return SiteAddress.site(ofURL: "https://" + host + "/", list: suffixes)
    }

    /// The extension's verdicts for what blockerd says now: cover the tab in
    /// front when its site's shield is up; uncover it when the site it covers
    /// is in front again and nothing covers it any more. A covered tab left
    /// behind stays covered until it is in front again.
    mutating func verdicts(_ status: StatusReport, words: (ShieldState) -> String) -> [JSONValue] {
        let shield = status.shield
        if focused, shield.active, let site = shield.site, site == tab.site {
            blockedSite = site
            return [Self.verdict(site: site, host: host, blocked: true, status: status, words: words(shield))]
        }
        if let blocked = blockedSite, blocked == tab.site, focused, !(shield.active && shield.site == blocked) {
            blockedSite = nil
            return [Self.verdict(site: blocked, host: host, blocked: false, status: status, words: "")]
        }
        return []
    }

    static func verdict(site: String, host: String?, blocked: Bool, status: StatusReport, words: String) -> JSONValue {
        var fields: [(String, JSONValue)] = [("type", .string("verdict")), ("host", .optional(host)),
                                             ("site", .string(site)), ("blocked", .bool(blocked))]
        if blocked {
            fields += [("reason", .optional(status.shield.reason?.rawValue)), ("words", .string(words)),
                       ("balance_ms", .integer(status.balanceMs.ms)),
                       ("exercises", .array(status.exercises.map { exercise in
                           .object([("name", .string(exercise.name)), ("per_rep_ms", .integer(exercise.perRep.ms))])
                       }))]
        }
        return .object(fields)
    }

    static func earned(ok: Bool, text: String) -> JSONValue {
        .object([("type", .string("earned")), ("ok", .bool(ok)), ("text", .string(text))])
    }
}
