/// The shield as blockerd announces it: `ShieldChanged`, `Status`'s `shield`
/// entry, and what the overlay draws. One type, so the signal and the reply
/// cannot drift apart.
public struct ShieldState: Equatable, Sendable {
    public var active: Bool
    /// Why it is up; nil while down (or for a reason this build does not know).
    public var reason: ShieldReason?
    /// The app covered; while down, the app it covered last ("" before any).
    public var app: String
    /// The group whose rule is shown (nil for `balance` and app-level timed blocks).
    public var group: String?
    /// When it lifts by itself; nil when only earning lifts it (or it is down).
    public var until: WallInstant?
    public var balanceMs: Milliseconds
    /// A pause asks "why now?" (`[pause] ask-reason`); false otherwise.
    public var askReason: Bool
    /// Emergency passes left this week (`[pass]`); nil when there is no `[pass]`.
    public var passesLeft: Int?
    /// The site covered in a browser tab: blocker's browser extension draws
    /// that cover (its page in the tab), and no window cover is drawn. nil
    /// for any other shield, and while down.
    public var site: String?

    public init(active: Bool, reason: ShieldReason?, app: String, group: String? = nil, until: WallInstant? = nil,
                balanceMs: Milliseconds, askReason: Bool = false, passesLeft: Int? = nil) {
        self.active = active; self.reason = reason; self.app = app; self.group = group
        self.until = until; self.balanceMs = balanceMs; self.askReason = askReason; self.passesLeft = passesLeft
    }

    /// Nothing covered yet.
    public static func down(balanceMs: Milliseconds, lastApp: String = "") -> ShieldState {
        ShieldState(active: false, reason: nil, app: lastApp, balanceMs: balanceMs)
    }

    /// What the daemon's `Shield` (nil: down) means on the wire; `coveredApp`
    /// names the app a shield that went down had covered.
    public init(_ shield: Shield?, coveredApp: String, balanceMs: Milliseconds) {
        guard let shield else {
            self = .down(balanceMs: balanceMs, lastApp: coveredApp)
            return
        }
        self.init(active: true, reason: shield.reason, app: shield.app, group: shield.group, until: shield.until,
                  balanceMs: balanceMs)
        site = shield.site
    }
}
