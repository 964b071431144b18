// gjs -m run-driver-stub-test.js STUB.gresource DRIVER_DIR — the GNOME 45+
// (ES module) entry point of the TEST-ONLY driver extension
// (scripts/lib/gnome-test-extension, installed into DRIVER_DIR by its
// install.sh for GNOME 48), loaded against the same STUB shell as
// run-stub-test.js: the stub GResource for resource:///org/gnome/shell/…, the
// real gi:// libraries (Meta, Shell too), `global` a stub with two windows,
// and a real private session bus on which this script calls
// io.github.blockerd.Test from a connection of its own.
// Checks: enable() owns io.github.blockerd.Test; Windows, Activate, State,
// SetExtensionEnabled answer as on GNOME 43; an unknown key is refused before
// any key is sent; 'startup-complete' closes the overview; disable() lets the
// name and every signal go. (Keys, Lock, Screenshot need a real shell: only
// itest-gnome.sh and a real GNOME 48 run them.) Prints "ok: …"; exit 1 on failure.
import Gio from 'gi://Gio';
import GLib from 'gi://GLib';
import Meta from 'gi://Meta';
import {fail, ok, until, otherConnection, hasOwner, call} from './harness.js';

const [resourcePath, driverDir] = ARGV;
Gio.resources_register(Gio.Resource.load(resourcePath));
const loop = new GLib.MainLoop(null, false);
const test = otherConnection();
const driver = (method, parameters = null) => call(test, 'io.github.blockerd.Test', '/io/github/blockerd/Test',
    'io.github.blockerd.Test', method, parameters);
const json = async (method) => JSON.parse((await driver(method))[0]);

async function run() {
    const {StubSignals} = await import('resource:///org/gnome/shell/ui/signals.js');
    const Main = await import('resource:///org/gnome/shell/ui/main.js');
    const display = Object.assign(new StubSignals(), {focus_window: null});
    class StubWindow {
        constructor(fields) {
            Object.assign(this, fields);
        }

        get_window_type() { return Meta.WindowType.NORMAL; }
        get_gtk_application_id() { return this.appId ?? null; }
        get_wm_class() { return this.wmClass; }
        get_title() { return this.title; }
        get_pid() { return this.pid; }
        is_hidden() { return false; }
        get_compositor_private() { return {visible: true}; }
        activate(time) {
            this.activatedAt = time;
            display.focus_window = this;
        }
    }
    const one = new StubWindow({appId: 'org.example.One', wmClass: 'one', title: 'one', pid: 4242});
    const two = new StubWindow({wmClass: 'Two', title: 'two', pid: 4343});
    display.focus_window = one;
    globalThis.global = {
        display, stage: {key_focus: null},
        get_window_actors: () => [one, two].map(meta_window => ({meta_window})),
        get_current_time: () => 1234,
    };

    const {default: TestDriverEntry} = await import(`file://${driverDir}/extension.js`);
    const extension = new TestDriverEntry({uuid: 'blocker-test@blockerd.github.io', path: driverDir});
    extension.enable();
    await until(() => hasOwner(test, 'io.github.blockerd.Test'), 2000, 'io.github.blockerd.Test owned while enabled');
    ok('enable(): owns io.github.blockerd.Test');

    const windows = await json('Windows');
    if (windows.length !== 2 || windows[0].app_id !== 'org.example.One' || windows[0].focused !== true ||
        windows[1].wm_class !== 'Two' || windows[1].pid !== 4343 || windows[1].actor_visible !== true)
        fail(`Windows: ${JSON.stringify(windows)}`);
    ok('Windows: both windows with wm_class, app_id, pid, focused, actor_visible');

    const [found] = await driver('Activate', new GLib.Variant('(s)', ['two']));
    const [missing] = await driver('Activate', new GLib.Variant('(s)', ['nothing-like-it']));
    if (found !== true || missing !== false || two.activatedAt !== 1234)
        fail(`Activate: two → ${found} (at ${two.activatedAt}), nothing-like-it → ${missing}`);
    const state = await json('State');
    if (state.focus?.wm_class !== 'Two' || state.overview !== true || state.locked !== false ||
        state.session_mode !== 'user' || state.covers !== 0 || state.modal !== 0)
        fail(`State: ${JSON.stringify(state)}`);
    ok('Activate (by WM_CLASS, any case; false for no such window) → State: focus, overview, locked, session_mode, covers');

    Main.layoutManager.emit('startup-complete');
    if (Main.overview.visible || Main.layoutManager.handlerCount !== 0)
        fail(`'startup-complete': overview visible ${Main.overview.visible}, ${Main.layoutManager.handlerCount} handler(s) left`);
    ok("'startup-complete' closes the overview, and its handler goes");

    await driver('SetExtensionEnabled', new GLib.Variant('(sb)', ['blocker@blockerd.github.io', false]));
    await driver('SetExtensionEnabled', new GLib.Variant('(sb)', ['blocker@blockerd.github.io', true]));
    if (JSON.stringify(Main.extensionManager.calls) !==
        JSON.stringify([['disable', 'blocker@blockerd.github.io'], ['enable', 'blocker@blockerd.github.io']]))
        fail(`SetExtensionEnabled: ${JSON.stringify(Main.extensionManager.calls)}`);
    ok('SetExtensionEnabled false/true → the extension manager disables, then enables');

    let refused = null;
    await driver('Keys', new GLib.Variant('(s)', ['Alt_L+NoSuchKey'])).catch(e => {
        refused = e;
    });
    if (!refused?.message?.includes('unknown key in Alt_L+NoSuchKey'))
        fail(`Keys with an unknown key: ${refused ?? 'accepted'}`);
    ok('Keys with an unknown key: refused (InvalidArgs), nothing typed');

    extension.disable();
    await until(() => !hasOwner(test, 'io.github.blockerd.Test'), 2000, 'io.github.blockerd.Test released at disable()');
    if (display.handlerCount !== 0 || Main.layoutManager.handlerCount !== 0)
        fail('disable() left handlers');
    ok('disable(): io.github.blockerd.Test released, no handler left');

    // Enabled before startup completes, disabled before it does: the handler goes with it.
    Main.overview.visible = true;
    extension.enable();
    extension.disable();
    Main.layoutManager.emit('startup-complete');
    if (Main.layoutManager.handlerCount !== 0 || !Main.overview.visible)
        fail('a driver disabled during startup still acted at startup-complete');
    ok('enabled and disabled during startup: nothing left to act at startup-complete');
}

run().then(() => loop.quit(), e => fail(`${e}\n${e.stack}`));
loop.run();
