/// Websites as blocker counts them (issue 24): a site is a registrable
/// domain (`youtube.com` for `m.youtube.com`), by the Public Suffix List
/// (Debian's `publicsuffix` package, /usr/share/publicsuffix/public_suffix_list.dat).

/// The Public Suffix List's rules (https://publicsuffix.org/list/): a plain
/// rule (`co.uk`), a wildcard (`*.ck`: every label under `ck`) and an
/// exception (`!www.ck`: not a suffix). All kept in ASCII form (`Punycode`),
/// as browsers give hosts.
public struct PublicSuffixList: Sendable {
    /// Where Debian's `publicsuffix` package puts the list.
    public static let systemPath = "/usr/share/publicsuffix/public_suffix_list.dat"

    private var rules: Set<String> = []
    /// `*.ck` kept as `ck`.
    private var wildcards: Set<String> = []
    /// `!www.ck` kept as `www.ck`.
    private var exceptions: Set<String> = []

    /// The list's text: a rule a line, up to its first white space; `//` comments and blank lines skipped.
    public init(text: String) {
        for line in text.split(whereSeparator: \.isNewline) {
            guard let rule = line.split(whereSeparator: \.isWhitespace).first, !rule.hasPrefix("//") else { continue }
            if rule.hasPrefix("!") {
                exceptions.insert(Punycode.asciiHost(String(rule.dropFirst())))
            } else if rule.hasPrefix("*.") {
                wildcards.insert(Punycode.asciiHost(String(rule.dropFirst(2))))
            } else {
                rules.insert(Punycode.asciiHost(String(rule)))
            }
        }
    }

    public var ruleCount: Int { rules.count + wildcards.count + exceptions.count }

    /// How many of `labels`' last labels are its public suffix: the longest
    /// matching rule, an exception first; no rule matching: the last label ("*").
    func suffixLength(_ labels: [Substring]) -> Int {
        for start in labels.indices {
            let candidate = labels[start...].joined(separator: ".")
            if exceptions.contains(candidate) { return labels.count - start - 1 }
            if rules.contains(candidate) { return labels.count - start }
            if start + 1 < labels.count, wildcards.contains(labels[(start + 1)...].joined(separator: ".")) {
                return labels.count - start
            }
        }
        return 1
    }

    /// `m.youtube.com` → `youtube.com`, `a.b.example.co.uk` → `example.co.uk`;
    /// nil for a public suffix itself (`co.uk`), an empty host, or an empty label.
    public func registrableDomain(of host: String) -> String? {
        let ascii = Punycode.asciiHost(host.hasSuffix(".") ? String(host.dropLast()) : host)
        let labels = ascii.split(separator: ".", omittingEmptySubsequences: false)
        guard !ascii.isEmpty, !labels.contains(where: \.isEmpty) else { return nil }
        let suffix = suffixLength(labels)
        guard labels.count > suffix else { return nil }
        return labels.suffix(suffix + 1).joined(separator: ".")
    }
}

/// The site of a page, from its URL: only `http` and `https` pages have one
/// (`file:`, `about:`, `chrome:`, `moz-extension:` … none). An IP address is
/// its own site; so is a host the list cannot split (`localhost`).
public enum SiteAddress {
    public static func site(ofURL url: String, list: PublicSuffixList) -> String? {
        guard let colon = url.firstIndex(of: ":") else { return nil }
        let scheme = url[..<colon].lowercased()
        guard scheme == "http" || scheme == "https" else { return nil }
        var rest = url[url.index(after: colon)...]
        guard rest.hasPrefix("//") else { return nil }
        rest = rest.dropFirst(2)
        var authority = rest.prefix { !"/?#".contains($0) }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        let host: Substring
        if authority.hasPrefix("[") {
            // An IPv6 literal, brackets and all: its own site.
            guard let close = authority.firstIndex(of: "]") else { return nil }
            return String(authority[...close]).lowercased()
        } else {
            host = authority.prefix { $0 != ":" }
        }
        guard !host.isEmpty else { return nil }
        if isIPv4(host) { return String(host) }
        return list.registrableDomain(of: String(host)) ?? Punycode.asciiHost(String(host))
    }

    static func isIPv4(_ host: Substring) -> Bool {
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { part in
            !part.isEmpty && part.count <= 3 && part.allSatisfy(\.isASCII) && part.allSatisfy(\.isNumber) && Int(part)! <= 255
        }
    }
}

/// One entry of a group's `sites`: `youtube.com` is that site; `*.twitch.tv`
/// is `twitch.tv` and every site under it (`foo.blogspot.com` under
/// `*.blogspot.com`, which is itself a public suffix).
public struct SitePattern: Equatable, Sendable, CustomStringConvertible {
    /// The site, in ASCII form.
    public var domain: String
    public var withSubdomains: Bool

    /// nil when `text` is no site: empty, a URL, a path, a port, or a `*` anywhere but a leading `*.`.
    public init?(_ text: String) {
        var text = String(text.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed()).lowercased()
        withSubdomains = text.hasPrefix("*.")
        if withSubdomains { text.removeFirst(2) }
        if text.hasSuffix(".") { text.removeLast() }
        guard !text.isEmpty, !text.contains(where: { "*/:@?# ".contains($0) }),
              !text.split(separator: ".", omittingEmptySubsequences: false).contains(where: \.isEmpty) else { return nil }
        domain = Punycode.asciiHost(text)
    }

    public func matches(site: String) -> Bool {
        site == domain || (withSubdomains && site.hasSuffix("." + domain))
    }

    public var description: String { (withSubdomains ? "*." : "") + domain }
}

/// What blocker's browser extension says of the focused browser window's
/// active tab, through the native host the browser started.
public struct BrowserTab: Equatable, Hashable, Sendable {
    /// The page's site (registrable domain); nil for a page with none.
    public var site: String?
    /// The window is private (incognito).
    public var isPrivate: Bool
    /// The tab shows blocker's page in place of the site's.
    public var covered: Bool

    /// App names (lowercased app ids, WM_CLASS, executables) of the browsers
    /// the extension runs in: one in front without its word is said (doctor).
    public static let knownBrowsers: Set<String> = ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable",
                                                   "firefox", "firefox-esr", "org.mozilla.firefox", "brave-browser", "vivaldi-stable"]

    public init(site: String?, isPrivate: Bool = false, covered: Bool = false) {
        self.site = site
        self.isPrivate = isPrivate
        self.covered = covered
    }
}
