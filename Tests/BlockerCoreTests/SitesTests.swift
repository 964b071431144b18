import Foundation
import Testing
@testable import BlockerCore

/// Sites (issue 24): the registrable domain by Debian's real Public Suffix
/// List, IDN hosts, ports, `*.` patterns, and pages that have no site.
@Suite struct SitesTests {
    static let listPath = "/usr/share/publicsuffix/public_suffix_list.dat"
    let list: PublicSuffixList

    init() throws {
        // Debian's publicsuffix package (scripts/deps.sh installs it).
        list = PublicSuffixList(text: try String(contentsOfFile: Self.listPath, encoding: .utf8))
    }

    @Test func theRealListIsRead() {
        #expect(list.ruleCount > 5000, "\(list.ruleCount) rules")
    }

    @Test(arguments: [
        ("youtube.com", "youtube.com"), ("m.youtube.com", "youtube.com"), ("WWW.YouTube.COM", "youtube.com"),
        ("a.b.example.co.uk", "example.co.uk"), ("example.co.uk.", "example.co.uk"), ("foo.blogspot.com", "foo.blogspot.com"),
        ("x.y.foo.blogspot.com", "foo.blogspot.com"), ("shop.example.unknowntld", "example.unknowntld"),
        // The wildcard *.ck and its exception !www.ck.
        ("a.b.ck", "a.b.ck"), ("www.ck", "www.ck"), ("x.www.ck", "www.ck"),
        // IDN: Unicode or ASCII, the same site.
        ("bücher.de", "xn--bcher-kva.de"), ("www.xn--bcher-kva.de", "xn--bcher-kva.de"), ("例え.日本", "xn--r8jz45g.xn--wgv71a"),
    ])
    func registrableDomains(host: String, site: String) {
        #expect(list.registrableDomain(of: host) == site)
    }

    @Test(arguments: ["co.uk", "com", "", "a..com", "ck", "blogspot.com"])
    func aPublicSuffixOrABrokenHostHasNone(host: String) {
        #expect(list.registrableDomain(of: host) == nil)
    }

    @Test(arguments: [
        ("https://m.youtube.com/watch?v=1", "youtube.com"), ("http://user:pw@news.ycombinator.com:8080/item", "ycombinator.com"),
        ("https://www.reddit.com#top", "reddit.com"), ("HTTPS://Example.CO.UK", "example.co.uk"),
        ("http://127.0.0.1:8000/x", "127.0.0.1"), ("http://[::1]:8080/", "[::1]"), ("http://localhost:3000/", "localhost"),
        ("https://xn--bcher-kva.de/", "xn--bcher-kva.de"),
    ])
    func theSiteOfAPage(url: String, site: String) {
        #expect(SiteAddress.site(ofURL: url, list: list) == site)
    }

    @Test(arguments: ["file:///home/u/a.html", "about:blank", "about:newtab", "chrome://settings", "moz-extension://x/y",
                      "data:text/html,hi", "https://", "javascript:void(0)", "view-source:https://a.com", "no url"])
    func pagesWithoutASite(url: String) {
        #expect(SiteAddress.site(ofURL: url, list: list) == nil)
    }

    @Test func patternsMatchTheSiteOrWithStarDotItsSubdomains() throws {
        let youtube = try #require(SitePattern("youtube.com"))
        #expect(youtube.matches(site: "youtube.com") && !youtube.matches(site: "notyoutube.com") && !youtube.matches(site: "m.youtube.com"))
        let twitch = try #require(SitePattern(" *.Twitch.tv "))
        #expect(twitch.description == "*.twitch.tv")
        #expect(twitch.matches(site: "twitch.tv") && twitch.matches(site: "clips.twitch.tv") && !twitch.matches(site: "nottwitch.tv"))
        let blogs = try #require(SitePattern("*.blogspot.com"))
        #expect(blogs.matches(site: list.registrableDomain(of: "me.blogspot.com")!))
        #expect(SitePattern("bücher.de")?.matches(site: "xn--bcher-kva.de") == true)
    }

    @Test(arguments: ["", "*", "*.", "youtube.com/watch", "https://youtube.com", "youtube.com:443", "you*tube.com", "a..b",
                      "**.a.com", "user@a.com"])
    func notASitePattern(text: String) {
        #expect(SitePattern(text) == nil)
    }

    @Test(arguments: [("bücher", "bcher-kva"), ("例え", "r8jz45g"), ("münchen", "mnchen-3ya"), ("ü", "tda")])
    func punycodeOfALabel(label: String, code: String) {
        #expect(Punycode.encode(label) == code)
    }
}
