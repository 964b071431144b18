// blocker's WebExtension: tells blocker (through the native messaging host
// io.github.blockerd.browser) the host name of the tab in front, and covers
// that tab with blocker's page when blocker says the site is blocked.
//
// Privacy rule: only the active tab's HOST NAME leaves the extension. Never a
// path, a query, a full URL or history. The URL a block page replaced is kept
// in memory and in storage.session (memory only, gone with the browser) so it
// can come back; it is never sent.
//
// One source for Chromium (service worker) and Firefox (background script).
"use strict";

const api = globalThis.browser ?? globalThis.chrome;
const HOST_NAME = "io.github.blockerd.browser";
const VERSION = api.runtime.getManifest().version;
const BLOCK_PAGE = api.runtime.getURL("block.html");
const BROWSER = BLOCK_PAGE.startsWith("moz-extension:") ? "firefox" : "chromium";
const BACKOFF_FIRST_MS = 1000;
const BACKOFF_MAX_MS = 30000;
const EARN_TIMEOUT_MS = 10000;
const FOCUS_CHECK_MS = 1000;

// --- the port to the host: one, long-lived, reconnected with backoff ---------

let port = null;
let backoffMs = BACKOFF_FIRST_MS;
let reconnectTimer = null;
let lastSent = null;        // the last tab message sent, as JSON
let browserFocused = true;  // whether a browser window has the focus (updateFocus)
const verdicts = new Map(); // site → the host's last verdict for it
const pendingEarns = [];    // sendResponse callbacks, answered in order by "earned"

function connect() {
    reconnectTimer = null;
    let p;
    try {
        p = api.runtime.connectNative(HOST_NAME);
    } catch (error) {
        console.warn("blocker: connectNative failed:", error);
        scheduleReconnect();
        return;
    }
    port = p;
    p.onMessage.addListener((message) => {
        backoffMs = BACKOFF_FIRST_MS; // the host answers: it is really there
        onHostMessage(message);
    });
    p.onDisconnect.addListener(() => {
        const why = (p.error && p.error.message) || (api.runtime.lastError && api.runtime.lastError.message) || "closed";
        console.warn("blocker: host disconnected:", why);
        if (port === p) port = null;
        // Verdicts came from that host; the next one says again what is blocked.
        verdicts.clear();
        while (pendingEarns.length > 0) pendingEarns.shift()({ type: "earned", ok: false, text: "blocker is not running" });
        scheduleReconnect();
    });
    post({ type: "hello", browser: BROWSER, version: VERSION });
    lastSent = null;
    updateFocus(true);
}

function scheduleReconnect() {
    if (reconnectTimer !== null) return;
    const delay = backoffMs;
    backoffMs = Math.min(backoffMs * 2, BACKOFF_MAX_MS);
    reconnectTimer = setTimeout(connect, delay);
}

function post(message) {
    if (port === null) return false;
    try {
        port.postMessage(message);
        return true;
    } catch (error) {
        console.warn("blocker: postMessage failed:", error);
        return false;
    }
}

// --- what is in front ----------------------------------------------------------

// The host name of an http(s) URL, else null (file:, about:, chrome:, the new tab page…).
function hostOf(url) {
    if (!url) return null;
    try {
        const u = new URL(url);
        if (u.protocol !== "http:" && u.protocol !== "https:") return null;
        return u.hostname.replace(/\.$/, "").toLowerCase() || null;
    } catch {
        return null;
    }
}

// For blocker's own page: {host, site} from its fragment, else null.
function blockPageOf(url) {
    if (!url || !url.startsWith(BLOCK_PAGE)) return null;
    const params = new URLSearchParams(new URL(url).hash.slice(1));
    const host = params.get("host");
    return host ? { host, site: params.get("site") || host } : null;
}

function siteMatches(host, site) {
    return host === site || host.endsWith("." + site);
}

function tabUrl(tab) {
    return tab.url || tab.pendingUrl || "";
}

// The tab message for TAB (the active tab of the last focused window), or for no tab.
function describe(tab) {
    if (!tab) return { type: "tab", host: null, private: false, focused: browserFocused, covered: false };
    const page = blockPageOf(tabUrl(tab));
    return {
        type: "tab",
        host: page ? page.host : hostOf(tabUrl(tab)),
        private: Boolean(tab.incognito),
        focused: browserFocused,
        covered: page !== null,
    };
}

async function activeTab() {
    const tabs = await api.tabs.query({ active: true, lastFocusedWindow: true });
    return tabs[0] || null;
}

// Sends the state of the tab in front; ALWAYS even when it is what was sent last.
let reportChain = Promise.resolve();
function report(always) {
    reportChain = reportChain.then(async () => {
        let tab = null;
        try {
            tab = await activeTab();
        } catch (error) {
            console.warn("blocker: tabs.query failed:", error);
        }
        const message = describe(tab);
        const json = JSON.stringify(message);
        if (!always && json === lastSent) return;
        if (post(message)) lastSent = json;
        // A site blocker already said is blocked is covered at once, without
        // waiting for the host to answer this message.
        if (tab && !message.covered && message.host) {
            for (const verdict of verdicts.values()) {
                if (verdict.blocked && siteMatches(message.host, verdict.site)) {
                    await cover(tab, verdict);
                    break;
                }
            }
        }
    });
    return reportChain;
}

api.tabs.onActivated.addListener(() => report(true));
api.tabs.onUpdated.addListener((tabId, change, tab) => {
    if (tab.active && (change.url !== undefined || change.status !== undefined)) report(false);
});
// Whether a browser window has the focus: the last focused window's own
// `focused` decides, not the event. Chromium 156 on X11 sends WINDOW_ID_NONE
// at times while its window keeps the focus (the omnibox's suggestions
// closing) and nothing at all when the focus goes to another program's window;
// Firefox sends both right. So while connected the window is also asked once
// a second (one call inside the browser), and a change is told at once.
api.windows.onFocusChanged.addListener(() => updateFocus(true));
setInterval(() => {
    if (port !== null) updateFocus(false);
}, FOCUS_CHECK_MS);

async function updateFocus(always) {
    let focused;
    try {
        focused = (await api.windows.getLastFocused()).focused === true;
    } catch {
        focused = false; // no browser window at all
    }
    const changed = focused !== browserFocused;
    browserFocused = focused;
    if (changed || always) await report(true);
}

api.tabs.onRemoved.addListener((tabId) => forgetTab(tabId));

// --- covering and uncovering -----------------------------------------------------

// tabId → the URL the block page replaced, in memory and in storage.session.
const replaced = new Map();
const restored = (async () => {
    try {
        const stored = await api.storage.session.get("replaced");
        for (const [tabId, url] of Object.entries(stored.replaced || {})) {
            if (!replaced.has(Number(tabId))) replaced.set(Number(tabId), url);
        }
    } catch (error) {
        console.warn("blocker: storage.session:", error);
    }
})();

function saveReplaced() {
    return api.storage.session.set({ replaced: Object.fromEntries(replaced) }).catch(() => {});
}

function forgetTab(tabId) {
    if (replaced.delete(tabId)) saveReplaced();
}

// Chromium refuses to show a "spanning" extension's page in an incognito tab
// (ERR_BLOCKED_BY_CLIENT): the site is still replaced, by Chromium's error page,
// without the earn form; the desktop's Log exercise form earns then.
function blockPageUrl(host, site) {
    return BLOCK_PAGE + "#" + new URLSearchParams({ host, site }).toString();
}

async function cover(tab, verdict) {
    const host = hostOf(tabUrl(tab));
    if (!host) return;
    replaced.set(tab.id, tabUrl(tab));
    await saveReplaced();
    try {
        await api.tabs.update(tab.id, { url: blockPageUrl(host, verdict.site) });
    } catch (error) {
        console.warn("blocker: could not cover tab", tab.id, error);
    }
}

async function uncover(site) {
    await restored;
    const tabs = await api.tabs.query({});
    for (const tab of tabs) {
        const page = blockPageOf(tabUrl(tab));
        if (!page || page.site !== site) continue;
        const url = replaced.get(tab.id) || "https://" + page.host + "/";
        replaced.delete(tab.id);
        try {
            await api.tabs.update(tab.id, { url });
        } catch (error) {
            console.warn("blocker: could not uncover tab", tab.id, error);
        }
    }
    await saveReplaced();
}

async function applyVerdict(verdict) {
    verdicts.set(verdict.site, verdict);
    if (verdict.blocked) {
        // Every window's active tab on that site (what can be seen); a tab in
        // the background is covered when it comes to the front (report()).
        const tabs = await api.tabs.query({ active: true });
        for (const tab of tabs) {
            const host = hostOf(tabUrl(tab));
            if (host && siteMatches(host, verdict.site)) await cover(tab, verdict);
        }
    } else {
        await uncover(verdict.site);
    }
    // Block pages already showing update their words and balance.
    api.runtime.sendMessage({ type: "verdict", verdict }).catch(() => {});
}

// --- messages ----------------------------------------------------------------------

function validVerdict(m) {
    return typeof m.site === "string" && m.site !== "" && typeof m.blocked === "boolean";
}

function onHostMessage(message) {
    if (!message || typeof message !== "object") return;
    if (message.type === "verdict" && validVerdict(message)) {
        applyVerdict(message).catch((error) => console.warn("blocker: verdict:", error));
    } else if (message.type === "earned") {
        const answer = { type: "earned", ok: Boolean(message.ok), text: String(message.text ?? "") };
        const respond = pendingEarns.shift();
        if (respond) respond(answer);
        else api.runtime.sendMessage(answer).catch(() => {});
    }
}

// From blocker's own pages only (runtime.sendMessage of this extension).
api.runtime.onMessage.addListener((message, sender, sendResponse) => {
    if (sender.id !== api.runtime.id || !message || typeof message !== "object") return false;
    if (message.type === "get-verdict" && typeof message.site === "string") {
        sendResponse({ verdict: verdicts.get(message.site) || null, connected: port !== null });
        return false;
    }
    if (message.type === "earn") {
        const reps = Number(message.reps);
        if (typeof message.exercise !== "string" || !Number.isInteger(reps) || reps <= 0) {
            sendResponse({ type: "earned", ok: false, text: "Give a whole number of reps" });
            return false;
        }
        if (!post({ type: "earn", exercise: message.exercise, reps })) {
            sendResponse({ type: "earned", ok: false, text: "blocker is not running" });
            return false;
        }
        let answered = false;
        const respond = (answer) => {
            if (answered) return;
            answered = true;
            sendResponse(answer);
        };
        pendingEarns.push(respond);
        setTimeout(() => {
            const i = pendingEarns.indexOf(respond);
            if (i >= 0) pendingEarns.splice(i, 1);
            respond({ type: "earned", ok: false, text: "blocker did not answer" });
        }, EARN_TIMEOUT_MS);
        return true; // sendResponse is called later
    }
    return false;
});

connect();
