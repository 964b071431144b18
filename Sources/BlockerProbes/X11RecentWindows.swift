// What the x11 probe keeps of the windows it saw (pure): the recent ones,
// and the rule for the empty moment between two focus changes.
import BlockerCore

/// The last few windows seen active, most recent first, with what was read
/// of each (nil: to be read again). Pure: the probe selects and deselects
/// events as windows come and go.
struct RecentWindows<Value> {
    let capacity: Int
    private var entries: [(window: XWindow, value: Value?)] = []

    init(capacity: Int) { self.capacity = capacity }

    func contains(_ window: XWindow) -> Bool { entries.contains { $0.window == window } }

    subscript(window: XWindow) -> Value? {
        get { entries.first { $0.window == window }?.value }
        set {
            guard let i = entries.firstIndex(where: { $0.window == window }) else { return }
            entries[i].value = newValue
        }
    }

    /// Starts following `window` (to be read); returns the window pushed out, if any.
    mutating func follow(_ window: XWindow) -> XWindow? {
        entries.insert((window, nil), at: 0)
        return entries.count > capacity ? entries.removeLast().window : nil
    }

    /// `window` is active again: the last to be pushed out.
    mutating func touch(_ window: XWindow) {
        guard let i = entries.firstIndex(where: { $0.window == window }), i > 0 else { return }
        entries.insert(entries.remove(at: i), at: 0)
    }

    /// A property changed: read it again when it is next active.
    mutating func forget(_ window: XWindow) { self[window] = nil }

    /// Destroyed: nothing to follow any more.
    mutating func remove(_ window: XWindow) { entries.removeAll { $0.window == window } }
}

/// X11's own rule (blockerd's `OverlayFilter` comes after it): one empty
/// `_NET_ACTIVE_WINDOW` happens between focus changes and keeps the last
/// answer; two in a row mean the desktop is empty.
struct ForegroundSmoother {
    private var emptyInARow = 0

    /// What the last sample reported.
    private(set) var reported: Window?

    mutating func next(_ seen: Window?) -> Window? {
        if seen == nil {
            emptyInARow += 1
            if emptyInARow < 2 { return reported }
        } else {
            emptyInARow = 0
        }
        reported = seen
        return seen
    }
}
