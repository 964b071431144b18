import Testing
@testable import BlockerCLI
import BlockerBus
import BlockerCore
import BlockerJSON

/// The native messaging host's logic (BrowserHost.swift): the extension's
/// messages in, ReportTab/Earn and the verdicts out. The list is a small one
/// written here; SitesTests reads Debian's.
@Suite struct BrowserHostTests {
    let suffixes = PublicSuffixList(text: "com\nco.uk\ntv\n*.ck\n!www.ck\n")

    func message(_ text: String) -> JSONValue { try! JSONReader.value(text) }

    func status(shield: ShieldState, balance: Milliseconds = 0) -> StatusReport {
        StatusReport(balanceMs: balance, metered: true, locked: false, foreground: nil, shield: shield,
                     todayUsedMs: 0, todayEarnedMs: 0, probeName: "x11", probeOK: true, probeError: nil,
                     exercises: [Exercise(name: "pushups", perRep: 30_000)], spending: false)
    }

    func siteShield(_ site: String) -> ShieldState {
        var shield = ShieldState(active: true, reason: .balance, app: "chromium", balanceMs: 0)
        shield.site = site
        return shield
    }

    @Test func aTabBecomesItsSiteAndOnlyTheSiteIsReported() {
        var session = BrowserHostSession(suffixes: suffixes)
        #expect(session.received(message(#"{"type":"hello","browser":"chromium","version":"0.1.0"}"#)).isEmpty)
        #expect(session.received(message(#"{"type":"tab","host":"m.youtube.com","private":true,"focused":true,"covered":false}"#))
                == [.report(BrowserTab(site: "youtube.com", isPrivate: true), focused: true)])
        // The same again says nothing new; another host of the same site neither.
        #expect(session.received(message(#"{"type":"tab","host":"m.youtube.com","private":true,"focused":true,"covered":false}"#)).isEmpty)
        #expect(session.received(message(#"{"type":"tab","host":"www.youtube.com","private":true,"focused":true,"covered":false}"#)).isEmpty)
        #expect(session.received(message(#"{"type":"tab","host":null,"private":false,"focused":true,"covered":false}"#))
                == [.report(BrowserTab(site: nil), focused: true)])
        #expect(session.received(message(#"{"type":"tab","host":"a.b.example.co.uk","private":false,"focused":false,"covered":false}"#))
                == [.report(BrowserTab(site: "example.co.uk"), focused: false)])
    }

    @Test(arguments: [("bücher.com", "xn--bcher-kva.com"), ("127.0.0.1", "127.0.0.1"), ("[::1]", "[::1]"),
                      ("localhost", "localhost"), ("a.www.ck", "www.ck"), ("x.y.ck", "x.y.ck"),
                      // A public suffix itself is its own site (github.io is a page too).
                      ("co.uk", "co.uk")])
    func hostNamesAsBrowsersGiveThem(host: String, site: String) {
        #expect(BrowserHostSession(suffixes: suffixes).site(ofHost: host) == site)
    }

    @Test(arguments: ["", "youtube.com/watch", "a b.com", "user@youtube.com", "youtube.com?x"])
    func aHostThatIsNoHostIsNoSite(host: String) {
        #expect(BrowserHostSession(suffixes: suffixes).site(ofHost: host) == nil)
    }

    @Test func earningsAreCheckedBeforeBlockerdIsAsked() {
        var session = BrowserHostSession(suffixes: suffixes)
        #expect(session.received(message(#"{"type":"earn","exercise":"pushups","reps":20}"#)) == [.earn(exercise: "pushups", reps: 20)])
        for bad in [#"{"type":"earn","exercise":"pushups","reps":0}"#, #"{"type":"earn","exercise":"pushups","reps":1001}"#,
                    #"{"type":"earn","exercise":"pushups","reps":"20"}"#, #"{"type":"earn","reps":20}"#] {
            #expect(session.received(message(bad))
                    == [.reply(BrowserHostSession.earned(ok: false, text: "give an exercise and 1 to 1000 reps"))], "\(bad)")
        }
        #expect(session.received(message(#"{"type":"navigate","url":"x"}"#))
                == [.reply(message(#"{"type":"error","text":"blocker's host does not know the message type \"navigate\""}"#))])
    }

    @Test func theTabInFrontIsCoveredWhileItsSiteIsShieldedAndUncoveredWhenItIsBackAndFree() {
        var session = BrowserHostSession(suffixes: suffixes)
        _ = session.received(message(#"{"type":"tab","host":"m.youtube.com","private":false,"focused":true,"covered":false}"#))
        let words: (ShieldState) -> String = { _ in "Out of earned time" }
        #expect(session.verdicts(status(shield: siteShield("youtube.com")), words: words)
                == [message(#"{"type":"verdict","host":"m.youtube.com","site":"youtube.com","blocked":true,"reason":"balance","words":"Out of earned time","balance_ms":0,"exercises":[{"name":"pushups","per_rep_ms":30000}]}"#)])
        // Another tab in front: the covered one stays covered, nothing is said.
        _ = session.received(message(#"{"type":"tab","host":"example.com","private":false,"focused":true,"covered":false}"#))
        #expect(session.verdicts(status(shield: .down(balanceMs: 0)), words: words).isEmpty)
        // Back on it after earning: uncovered.
        _ = session.received(message(#"{"type":"tab","host":"m.youtube.com","private":false,"focused":true,"covered":true}"#))
        #expect(session.verdicts(status(shield: .down(balanceMs: 60_000), balance: 60_000), words: words)
                == [message(#"{"type":"verdict","host":"m.youtube.com","site":"youtube.com","blocked":false}"#)])
        #expect(session.verdicts(status(shield: .down(balanceMs: 60_000), balance: 60_000), words: words).isEmpty)
        // A shield over another window (no site) is not the tab's.
        let window = ShieldState(active: true, reason: .balance, app: "discord", balanceMs: 0)
        #expect(session.verdicts(status(shield: window), words: words).isEmpty)
    }

    @Test func aBlockerdStartedAgainHearsTheTabOnce() {
        var session = BrowserHostSession(suffixes: suffixes)
        _ = session.received(message(#"{"type":"tab","host":"youtube.com","private":false,"focused":true,"covered":false}"#))
        #expect(session.reported() == nil)
        session.forgetReported()
        #expect(session.reported() == .report(BrowserTab(site: "youtube.com"), focused: true))
        #expect(session.reported() == nil)
    }
}
