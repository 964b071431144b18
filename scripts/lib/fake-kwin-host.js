// gjs fake-kwin-host.js plasma5|plasma6 — a FAKE KWin scripting host, for
// scripts/itest-kwin-fake-host.sh: Plasma 6 cannot run here (Debian 12 has
// KWin 5.27, tested for real by itest-kde.sh), so this stands in for it, and
// with the Plasma 5 shape it is a fast check of the same script.
//
// It owns org.kde.KWin on $DBUS_SESSION_BUS_ADDRESS and offers what blocker's
// KWin script and blockerd's kde probe use, shaped like the real one:
// - org.kde.kwin.Scripting at /Scripting: loadScript(s[, s]) → i,
//   unloadScript(s) → b, isScriptLoaded(s) → b, start(); a loaded script at
//   /Scripting/Script<id> (plasma6) or /<id> (plasma5) with org.kde.kwin.Script.run;
// - to the script: `workspace` (plasma6: windowActivated, windowAdded,
//   windowRemoved, activeWindow, windowList(), stackingOrder; plasma5:
//   clientActivated, clientAdded, clientRemoved, activeClient, clientList()),
//   windows with captionChanged, `callDBus` making a real D-Bus call (a JS
//   object becomes a{sv}), `QTimer`, `print`.
// Each activation is emitted as KWin does: activated(null), then the window.
// The test drives it on io.github.blockerd.test.FakeKWin at /FakeKWin, and
// reads its stdout: one line per callDBus ("report {json}") and per activation.
const { Gio, GLib } = imports.gi;
const ByteArray = imports.byteArray;

const shape = ARGV[0];
if (shape !== "plasma5" && shape !== "plasma6") {
    printerr("usage: gjs fake-kwin-host.js plasma5|plasma6");
    imports.system.exit(2);
}
const plasma6 = shape === "plasma6";
const bus = Gio.DBusConnection.new_for_address_sync(GLib.getenv("DBUS_SESSION_BUS_ADDRESS"),
    Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, null, null);

function say(line) { print(line); }

// --- what a script sees --------------------------------------------------------

// A Qt signal as QJSEngine shows it: connect, disconnect, and handlers run in order.
class Signal {
    constructor() { this.handlers = []; }
    connect(handler) { this.handlers.push(handler); }
    disconnect(handler) {
        const index = this.handlers.indexOf(handler);
        if (index < 0) throw new Error("disconnect: the function is not connected");
        this.handlers.splice(index, 1);
    }
    emit(...args) { for (const handler of this.handlers.slice()) handler(...args); }
}

class QTimer {
    constructor() { this.singleShot = false; this.interval = 0; this.timeout = new Signal(); this.source = 0; }
    start() {
        this.stop();
        this.source = GLib.timeout_add(GLib.PRIORITY_DEFAULT, this.interval, () => {
            if (this.singleShot) this.source = 0;
            this.timeout.emit();
            return this.singleShot ? GLib.SOURCE_REMOVE : GLib.SOURCE_CONTINUE;
        });
    }
    stop() {
        if (this.source) GLib.source_remove(this.source);
        this.source = 0;
    }
    get active() { return this.source !== 0; }
}

let windows = [];
let active = null;
const activated = new Signal(), added = new Signal(), removed = new Signal();

// What one script sees: its own view of the workspace, so that unloading it
// disconnects everything it connected (a real unload deletes its engine).
// Windows are shown through one proxy each, so identity (===) holds.
function workspaceFor(script) {
    const proxies = new Map(), originals = new Map();
    const wrap = w => {
        if (!w || typeof w !== "object" || !w.captionChanged) return w;
        if (!proxies.has(w)) {
            const proxy = new Proxy(w, {
                get: (target, key) => key === "captionChanged" ? scoped(target.captionChanged) : target[key],
                set: (target, key, value) => { target[key] = value; return true; },
            });
            proxies.set(w, proxy);
            originals.set(proxy, w);
        }
        return proxies.get(w);
    };
    const unwrap = p => originals.get(p) || p;
    const scoped = signal => ({
        connect(fn) {
            const handler = (...args) => {
                if (script.unloaded) return;
                try { fn(...args.map(wrap)); } catch (e) { say(`script error: ${e}`); }
            };
            handler.fn = fn;
            signal.connect(handler);
        },
        disconnect(fn) {
            const handler = signal.handlers.find(h => h.fn === fn);
            if (!handler) throw new Error("disconnect: the function is not connected");
            signal.disconnect(handler);
        },
    });
    const view = {};
    const list = () => windows.map(wrap);
    if (plasma6) {
        Object.assign(view, { windowActivated: scoped(activated), windowAdded: scoped(added),
            windowRemoved: scoped(removed), windowList: list });
        Object.defineProperty(view, "activeWindow", { get: () => wrap(active), set: w => activate(unwrap(w)) });
        Object.defineProperty(view, "stackingOrder", { get: list });
    } else {
        Object.assign(view, { clientActivated: scoped(activated), clientAdded: scoped(added),
            clientRemoved: scoped(removed), clientList: list });
        Object.defineProperty(view, "activeClient", { get: () => wrap(active), set: w => activate(unwrap(w)) });
    }
    return view;
}

function activate(window) {
    if (window === active) return;
    say(`activated ${window ? window.resourceName : "none"}`);
    active = null;
    activated.emit(null);
    if (!window) return;
    active = window;
    activated.emit(window);
}

function makeWindow(name, resourceClass, caption, pid, fullScreenable) {
    return {
        resourceName: name, resourceClass, caption, pid, desktopFileName: "", fullScreenable,
        normalWindow: true, minimized: false, keepAbove: false, fullScreen: false, skipTaskbar: false,
        skipSwitcher: false, skipPager: false, onAllDesktops: false, captionChanged: new Signal(),
    };
}

// What callDBus sends: a JS object is a{sv}; numbers are i when whole (as KWin 5.27 was seen to
// send a pid), d otherwise; in the plasma6 shape every number is d, to try the probe's other path.
function variant(value) {
    switch (typeof value) {
    case "boolean": return new GLib.Variant("b", value);
    case "string": return new GLib.Variant("s", value);
    case "number": return !plasma6 && Number.isInteger(value) ? new GLib.Variant("i", value) : new GLib.Variant("d", value);
    case "object": {
        const entries = {};
        for (const key of Object.keys(value)) entries[key] = variant(value[key]);
        return new GLib.Variant("a{sv}", entries);
    }
    default: throw new Error(`callDBus: cannot send ${typeof value}`);
    }
}

function callDBus(service, path, iface, method, ...args) {
    const callback = typeof args[args.length - 1] === "function" ? args.pop() : null;
    const types = args.map(a => variant(a).get_type_string()).join("");
    const body = GLib.Variant.new_tuple(args.map(a => variant(a)));
    if (method === "Report") say(`report ${JSON.stringify(args[0])}`);
    bus.call(service, path, iface, method, body, null, Gio.DBusCallFlags.NONE, 5000, null, (connection, result) => {
        try {
            const reply = connection.call_finish(result);
            if (callback) callback(...reply.deep_unpack());
        } catch (e) {
            say(`callDBus ${method}(${types}) failed: ${e.message}`);
        }
    });
}

// --- org.kde.kwin.Scripting ----------------------------------------------------

let scripts = [];
function scriptPath(id) { return plasma6 ? `/Scripting/Script${id}` : `/${id}`; }

const scriptXml = `<node><interface name="org.kde.kwin.Script"><method name="run"/><method name="stop"/></interface></node>`;
const scriptingXml = `<node><interface name="org.kde.kwin.Scripting">
  <method name="loadScript"><arg type="s" direction="in"/><arg type="s" direction="in"/><arg type="i" direction="out"/></method>
  <method name="unloadScript"><arg type="s" direction="in"/><arg type="b" direction="out"/></method>
  <method name="isScriptLoaded"><arg type="s" direction="in"/><arg type="b" direction="out"/></method>
  <method name="start"/>
</interface></node>`;

function runScript(script) {
    if (script.running) return;
    script.running = true;
    const source = ByteArray.toString(GLib.file_get_contents(script.file)[1]);
    try {
        new Function("workspace", "callDBus", "QTimer", "print", source)(workspaceFor(script), callDBus, QTimer,
            (...words) => say(`js: ${words.join(" ")}`));
    } catch (e) {
        say(`script error: ${e}`);
    }
    say(`ran ${script.name}`);
}

function unload(name) {
    const script = scripts.find(s => s.name === name);
    if (!script) return false;
    bus.unregister_object(script.registration);
    scripts = scripts.filter(s => s !== script);
    // A real unload deletes the script's engine: nothing it connected runs again.
    script.unloaded = true;
    return true;
}

function handleScripting(connection, sender, path, iface, method, parameters, invocation) {
    const args = parameters.deep_unpack();
    switch (method) {
    case "loadScript": {
        const [file, name] = args;
        if (scripts.some(s => s.name === name)) { invocation.return_value(new GLib.Variant("(i)", [-1])); return; }
        const id = scripts.length ? Math.max(...scripts.map(s => s.id)) + 1 : 0;
        const script = { id, file, name, running: false };
        script.registration = bus.register_object(scriptPath(id), Gio.DBusNodeInfo.new_for_xml(scriptXml).interfaces[0],
            (c, s, p, i, m, params, inv) => {
                if (m === "run") runScript(script);
                inv.return_value(null);
            }, null, null);
        scripts.push(script);
        invocation.return_value(new GLib.Variant("(i)", [id]));
        return;
    }
    case "unloadScript": invocation.return_value(new GLib.Variant("(b)", [unload(args[0])])); return;
    case "isScriptLoaded": invocation.return_value(new GLib.Variant("(b)", [scripts.some(s => s.name === args[0])])); return;
    case "start": scripts.forEach(runScript); invocation.return_value(null); return;
    }
}
bus.register_object("/Scripting", Gio.DBusNodeInfo.new_for_xml(scriptingXml).interfaces[0], handleScripting, null, null);

// --- the test's controls -------------------------------------------------------

const controlXml = `<node><interface name="io.github.blockerd.test.FakeKWin">
  <method name="AddWindow"><arg type="s" direction="in" name="name"/><arg type="s" direction="in" name="resource_class"/>
    <arg type="s" direction="in" name="caption"/><arg type="i" direction="in" name="pid"/>
    <arg type="b" direction="in" name="full_screenable"/></method>
  <method name="RemoveWindow"><arg type="s" direction="in"/></method>
  <method name="Activate"><arg type="s" direction="in" name="name_or_empty"/></method>
  <method name="SetCaption"><arg type="s" direction="in"/><arg type="s" direction="in"/></method>
  <method name="Active"><arg type="s" direction="out"/></method>
  <method name="Window"><arg type="s" direction="in"/><arg type="s" direction="out" name="json"/></method>
</interface></node>`;

function windowNamed(name) {
    const window = windows.find(w => w.resourceName === name);
    if (!window) throw new Error(`no window ${name}`);
    return window;
}

function handleControl(connection, sender, path, iface, method, parameters, invocation) {
    const args = parameters.deep_unpack();
    try {
        switch (method) {
        case "AddWindow": {
            const window = makeWindow(...args);
            windows.push(window);
            added.emit(window);
            invocation.return_value(null);
            return;
        }
        case "RemoveWindow": {
            const window = windowNamed(args[0]);
            windows = windows.filter(w => w !== window);
            removed.emit(window);
            if (active === window) activate(null);
            invocation.return_value(null);
            return;
        }
        case "Activate": activate(args[0] ? windowNamed(args[0]) : null); invocation.return_value(null); return;
        case "SetCaption": {
            const window = windowNamed(args[0]);
            window.caption = args[1];
            window.captionChanged.emit();
            invocation.return_value(null);
            return;
        }
        case "Active": invocation.return_value(new GLib.Variant("(s)", [active ? active.resourceName : ""])); return;
        case "Window": {
            const { captionChanged, ...plain } = windowNamed(args[0]);
            invocation.return_value(new GLib.Variant("(s)", [JSON.stringify(plain)]));
            return;
        }
        }
    } catch (e) {
        invocation.return_dbus_error("io.github.blockerd.test.Error", e.message);
    }
}
bus.register_object("/FakeKWin", Gio.DBusNodeInfo.new_for_xml(controlXml).interfaces[0], handleControl, null, null);

Gio.bus_own_name_on_connection(bus, "org.kde.KWin", Gio.BusNameOwnerFlags.NONE,
    () => say(`fake KWin (${shape}) owns org.kde.KWin`), () => { say("lost org.kde.KWin"); imports.system.exit(1); });
new GLib.MainLoop(null, false).run();
