// blocker's KWin script (Plasma 5.27 and 6): tells blockerd which window is
// in front, and keeps blocker's cover above the app it covers.
//
// KWin lets no other program ask which window is active, so this script
// pushes the whole state to blockerd's `kde` probe on every activation and on
// every caption change of the active window:
//   io.github.blockerd.Focus /io/github/blockerd/Focus
//   io.github.blockerd.Focus1.Report(a{sv} focus)
// KWin marshals the JS object as a QVariantMap, i.e. a{sv}. blockerd accepts
// reports only from the connection that owns org.kde.KWin, which is where
// callDBus calls come from. The probe reloads this script whenever it
// (re)connects, and the script reports once as it starts.

"use strict";

const FOCUS_SERVICE = "io.github.blockerd.Focus";
const FOCUS_PATH = "/io/github/blockerd/Focus";
const FOCUS_INTERFACE = "io.github.blockerd.Focus1";
const OVERLAY = "blocker-overlay";

// Every switch arrives as "nothing active" then the new window, both before
// the event loop runs again (measured on KWin 5.27 for Wayland and Xwayland
// windows, and for a window closing). blockerd would take a lone "nothing"
// as the metered app leaving: the shield drops and comes back (the cover
// flickers, a second "time's up" notification). So "nothing" is reported only
// if it is still true after this long; what that costs is at most this much
// of the previous window's time when the desktop really is left empty.
const NOTHING_SETTLES_MS = 100;

// Plasma 6 renamed clients to windows; feature-detect instead of asking the version.
const plasma6 = workspace.windowActivated !== undefined;
const api = plasma6 ? {
    activated: workspace.windowActivated,
    added: workspace.windowAdded,
    removed: workspace.windowRemoved,
    active: function () { return workspace.activeWindow; },
    activate: function (window) { workspace.activeWindow = window; },
    windows: function () { return workspace.windowList(); },
} : {
    activated: workspace.clientActivated,
    added: workspace.clientAdded,
    removed: workspace.clientRemoved,
    active: function () { return workspace.activeClient; },
    activate: function (window) { workspace.activeClient = window; },
    windows: function () { return workspace.clientList(); },
};

function text(value) {
    return value === undefined || value === null ? "" : String(value);
}

function isOverlay(window) {
    return [window.resourceClass, window.resourceName, window.desktopFileName]
        .some(function (name) { return text(name).toLowerCase() === OVERLAY; });
}

// --- reporting ------------------------------------------------------------

function focusOf(window) {
    if (!window) return { "focused": false };
    const focus = {
        "focused": true,
        "wm-class": text(window.resourceClass),
        "wm-instance": text(window.resourceName),
        "title": text(window.caption),
        "desktop-file": text(window.desktopFileName),
    };
    // blockerd refuses a report whose pid is not positive; KWin says 0 (or -1) when it does not know.
    if (typeof window.pid === "number" && window.pid > 0) focus["pid"] = window.pid;
    return focus;
}

// The window whose caption changes are reported: the active one.
let watched = null;

// A title may change many times a second (a terminal's progress, a player's
// clock): each change is reported, but at most one every CAPTION_COALESCE_MS,
// the latest title, so such a window costs blockerd at most a few ticks a second.
const CAPTION_COALESCE_MS = 200;
const captionTimer = new QTimer();
captionTimer.singleShot = true;
captionTimer.interval = CAPTION_COALESCE_MS;
captionTimer.timeout.connect(function () {
    if (watched && watched === api.active()) report(watched);
});

function report(window) {
    captionTimer.stop();
    callDBus(FOCUS_SERVICE, FOCUS_PATH, FOCUS_INTERFACE, "Report", focusOf(window));
}

function captionChanged() {
    if (!captionTimer.active) captionTimer.start();
}

function watch(window) {
    if (watched === window) return;
    if (watched) {
        // The window may be gone already; then there is nothing to disconnect from.
        try { watched.captionChanged.disconnect(captionChanged); } catch (e) { }
    }
    watched = window;
    if (window) window.captionChanged.connect(captionChanged);
}

const nothingTimer = new QTimer();
nothingTimer.singleShot = true;
nothingTimer.interval = NOTHING_SETTLES_MS;
nothingTimer.timeout.connect(function () {
    if (api.active()) return;
    watch(null);
    report(null);
});

// --- the cover ------------------------------------------------------------

// blocker-overlay's windows while they are shown (a hidden GTK window is
// unmapped, and KWin forgets it until it is shown again). Where KWin offers
// wlr-layer-shell (Plasma 5.27 and 6 on Wayland) the cover is a layer-shell
// surface on the overlay layer: KWin stacks it above every window, fullscreen
// ones included, and gives it the keyboard, so there is nothing to do (and
// KWin 5.27 crashes when asked to activate one as it is being unmapped). Where
// it is an ordinary fullscreen window (KWin on X11), KWin would let Alt+Tab or
// a click in the task manager raise the app above it: pin it, and take the
// focus back for it.
let covers = [];
// The cover that had the keyboard last (the one with the form).
let lastActiveCover = null;

// A layer-shell surface cannot be made fullscreen or moved: KWin places it.
function isOrdinaryWindow(window) {
    return window.fullScreenable === true;
}

function pinCover(window) {
    window.keepAbove = true;
    window.skipTaskbar = true;
    window.skipSwitcher = true;
    window.skipPager = true;
    window.onAllDesktops = true;
    window.fullScreen = true;
}

function coverAdded(window) {
    if (!isOverlay(window) || !isOrdinaryWindow(window) || covers.indexOf(window) >= 0) return;
    covers.push(window);
    pinCover(window);
}

function coverRemoved(window) {
    const index = covers.indexOf(window);
    if (index >= 0) covers.splice(index, 1);
    if (lastActiveCover === window) lastActiveCover = null;
    if (watched === window) watched = null;
}

// Another window took the focus while a cover is up: give it back to the
// cover, once KWin is done with this activation (not from inside its signal).
// If blockerd lets the new window be seen (not metered), the overlay hides
// itself and KWin activates that window again.
const restoreTimer = new QTimer();
restoreTimer.singleShot = true;
restoreTimer.interval = 0;
restoreTimer.timeout.connect(function () {
    if (covers.length === 0) return;
    const cover = lastActiveCover || covers[0];
    if (api.active() === cover) return;
    pinCover(cover);
    api.activate(cover);
});

function restoreCover() {
    if (covers.length > 0) restoreTimer.start();
}

// --- activations ----------------------------------------------------------

function activated(window) {
    if (!window) {
        nothingTimer.start();
        return;
    }
    nothingTimer.stop();
    if (isOverlay(window)) {
        coverAdded(window);
        if (covers.indexOf(window) >= 0) lastActiveCover = window;
        // Reported all the same, with its pid: any app may call itself
        // blocker-overlay, and blockerd knows its real cover by its process
        // (it keeps the window beneath in front then).
        watch(window);
        report(window);
        return;
    }
    watch(window);
    report(window);
    restoreCover();
}

api.activated.connect(activated);
api.added.connect(coverAdded);
api.removed.connect(coverRemoved);
api.windows().forEach(coverAdded);

// What the cover covers when it has the focus as this script starts: the
// topmost ordinary window beneath it. Plasma 5.27's scripts see no stacking
// order, only the windows in the order they came: the newest is a guess. A
// wrong guess heals itself: blockerd lowers the shield, the cover hides, and
// KWin activates the covered window again, which is reported.
function topWindowBeneath() {
    const stack = workspace.stackingOrder || api.windows();
    for (let i = stack.length - 1; i >= 0; i--) {
        const window = stack[i];
        if (window.normalWindow && !window.minimized && !isOverlay(window)) return window;
    }
    return null;
}

// The probe reloads this script when it (re)connects: say at once what is in front.
const first = api.active();
const front = first && isOverlay(first) ? topWindowBeneath() : first;
watch(front);
report(front);
restoreCover();
