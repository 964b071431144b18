// TEST ONLY — the test driver extension, installed by scripts/itest-gnome.sh
// (through install.sh) into a test user's home, never by `make install`.
// GNOME Shell refuses Eval since 41, so the test drives its own shell through
// this: io.github.blockerd.Test on the session bus (object
// /io/github/blockerd/Test).
//
// Everything the driver does, shared by both entry points (legacy/extension.js
// for GNOME 43–44, esm/extension.js for 45–49), as blocker's own extension
// does (extensions/gnome-shell/core.js): an ES module that imports nothing;
// the entry point hands it {Clutter, Gio, GLib, Meta, Shell, Main, global,
// logError, lockAnimated}.

export const UUID = 'blocker-test@blockerd.github.io';
export const BUS_NAME = 'io.github.blockerd.Test';
export const OBJECT_PATH = '/io/github/blockerd/Test';

const XML = `<node><interface name="io.github.blockerd.Test">
  <method name="Windows"><arg type="s" direction="out"/></method>
  <method name="State"><arg type="s" direction="out"/></method>
  <method name="Activate"><arg type="s" direction="in"/><arg type="b" direction="out"/></method>
  <method name="Lock"/>
  <method name="Unlock"/>
  <method name="Screenshot"><arg type="s" direction="in"/><arg type="b" direction="out"/></method>
  <method name="Keys"><arg type="s" direction="in"/></method>
  <method name="Press"><arg type="s" direction="in"/><arg type="b" direction="out"/></method>
  <method name="SetExtensionEnabled"><arg type="s" direction="in"/><arg type="b" direction="in"/></method>
</interface></node>`;

// The first actor under ROOT with STYLE_CLASS, or null.
function actorOf(root, styleClass) {
    if (root.has_style_class_name?.(styleClass))
        return root;
    for (const child of root.get_children()) {
        const actor = actorOf(child, styleClass);
        if (actor !== null)
            return actor;
    }
    return null;
}

// The text of the first actor under ROOT with STYLE_CLASS (a button's label), or null.
function textOf(root, styleClass) {
    const actor = actorOf(root, styleClass);
    return actor === null ? null : actor.text ?? actor.get_text?.() ?? actor.label ?? null;
}

// What a person reads under ROOT, in order: each shown label's text, button's
// label and field's text (its hint while empty). Hidden parts say nothing.
function shownWords(root, words = []) {
    if (!root.mapped)
        return words;
    switch (root.constructor.$gtype?.name) {
    case 'StLabel': words.push(root.text); return words;
    case 'StButton': words.push(root.label); return words;
    case 'StEntry': words.push(root.text || root.hint_text); return words;
    }
    for (const child of root.get_children())
        shownWords(child, words);
    return words;
}

function matches(window, name) {
    const wanted = name.toLowerCase();
    return [window.get_wm_class(), window.get_gtk_application_id()].some(v => v && v.toLowerCase() === wanted);
}

// "Alt_L+Tab Return type:12": chords pressed together, then released in
// reverse. KEYVAL(name) is Clutter's KEY_name, undefined when unknown.
export function keySteps(spec, keyval) {
    const steps = [];
    for (const word of spec.split(' ').filter(w => w)) {
        const names = word.startsWith('type:') ? null : word.split('+');
        if (!names) {
            for (const c of word.slice(5))
                steps.push([keyval(c), true], [keyval(c), false]);
            continue;
        }
        const keys = names.map(keyval);
        if (keys.some(k => k === undefined))
            throw new Error(`unknown key in ${word}`);
        for (const k of keys)
            steps.push([k, true]);
        for (const k of keys.reverse())
            steps.push([k, false]);
    }
    return steps;
}

/** The methods of io.github.blockerd.Test (Gio.DBusExportedObject.wrapJSObject). */
class TestDriver {
    constructor(deps) {
        this._d = deps;
        this._keyboard = null;
        this._keySources = new Set();
    }

    _describe(window) {
        const {global} = this._d;
        return window ? {
            wm_class: window.get_wm_class(), app_id: window.get_gtk_application_id(), title: window.get_title(),
            pid: window.get_pid(), focused: window === global.display.focus_window,
            hidden: window.is_hidden(), actor_visible: Boolean(window.get_compositor_private()?.visible),
        } : null;
    }

    _windows() {
        const {Meta, global} = this._d;
        return global.get_window_actors().map(a => a.meta_window)
            .filter(w => w.get_window_type() === Meta.WindowType.NORMAL);
    }

    Windows() {
        return JSON.stringify(this._windows().map(w => this._describe(w)));
    }

    State() {
        const {Main, global} = this._d;
        const covers = Main.layoutManager.uiGroup.get_children().filter(a => a.has_style_class_name?.('blocker-cover'));
        return JSON.stringify({
            focus: this._describe(global.display.focus_window), overview: Main.overview.visible,
            locked: Boolean(Main.screenShield?.locked), session_mode: Main.sessionMode.currentMode,
            modal: Main.modalCount, action_mode: Main.actionMode,
            covers: covers.length, cover_visible: covers.some(a => a.visible && a.mapped),
            key_focus: String(global.stage.key_focus),
            cover_message: covers.length ? textOf(covers[0], 'blocker-message') : null,
            cover_reps: covers.length ? textOf(covers[0], 'blocker-reps') : null,
            cover_reason: covers.length ? textOf(covers[0], 'blocker-reason') : null,
            cover_countdown: covers.length ? textOf(covers[0], 'blocker-countdown') : null,
            cover_pass: covers.length ? textOf(covers[0], 'blocker-use-pass') : null,
            cover_pass_shown: covers.some(a => actorOf(a, 'blocker-use-pass')?.mapped === true),
            cover_words: covers.length ? shownWords(covers[0]).filter(w => w) : [],
            key_focus_in_cover: covers.some(a => a.contains(global.stage.key_focus)),
            switcher: Main.layoutManager.uiGroup.get_children().some(a => a.constructor?.name?.includes('Switcher') && a.visible),
        });
    }

    // A pointer click on the cover's first shown, reactive button with
    // STYLE_CLASS: its 'clicked', as St.Button emits it on a click.
    Press(styleClass) {
        const covers = this._d.Main.layoutManager.uiGroup.get_children().filter(a => a.has_style_class_name?.('blocker-cover'));
        const button = covers.map(a => actorOf(a, styleClass)).find(b => b?.mapped && b.reactive);
        if (!button)
            return false;
        button.emit('clicked', 1);
        return true;
    }

    Activate(name) {
        const window = this._windows().find(w => matches(w, name));
        if (!window)
            return false;
        window.activate(this._d.global.get_current_time());
        return true;
    }

    // Straight to the extension manager: its public enable/disable write
    // gsettings, and this session bus starts no dconf service. (GNOME 45+
    // makes these async: errors are the manager's to log.)
    SetExtensionEnabled(uuid, enabled) {
        const {Main, logError} = this._d;
        const manager = Main.extensionManager;
        const result = enabled ? manager._callExtensionEnable(uuid) : manager._callExtensionDisable(uuid);
        result?.catch?.(e => logError(e, `blocker-test: ${enabled ? 'enable' : 'disable'} ${uuid}`));
    }

    Lock() {
        this._d.Main.screenShield.lock(this._d.lockAnimated);
    }

    Unlock() {
        this._d.Main.screenShield.deactivate(false);
    }

    ScreenshotAsync([path], invocation) {
        const {Gio, GLib, Shell, logError} = this._d;
        const stream = Gio.File.new_for_path(path).replace(null, false, Gio.FileCreateFlags.NONE, null);
        new Shell.Screenshot().screenshot(false, stream, (shot, result) => {
            let ok = false;
            try {
                ok = shot.screenshot_finish(result)[0];
            } catch (e) {
                logError(e, 'blocker-test: screenshot');
            }
            stream.close(null);
            invocation.return_value(new GLib.Variant('(b)', [ok]));
        });
    }

    KeysAsync([spec], invocation) {
        const {Clutter, Gio, GLib} = this._d;
        let steps;
        try {
            steps = keySteps(spec, name => Clutter[`KEY_${name}`]);
        } catch (e) {
            invocation.return_error_literal(Gio.DBusError, Gio.DBusError.INVALID_ARGS, e.message);
            return;
        }
        if (!this._keyboard) {
            const seat = Clutter.get_default_backend().get_default_seat();
            this._keyboard = seat.create_virtual_device(Clutter.InputDeviceType.KEYBOARD_DEVICE);
        }
        let source = 0;
        const next = () => {
            const step = steps.shift();
            if (!step) {
                this._keySources.delete(source);
                invocation.return_value(null);
                return GLib.SOURCE_REMOVE;
            }
            this._keyboard.notify_keyval(GLib.get_monotonic_time(), step[0],
                step[1] ? Clutter.KeyState.PRESSED : Clutter.KeyState.RELEASED);
            return GLib.SOURCE_CONTINUE;
        };
        source = GLib.timeout_add(GLib.PRIORITY_DEFAULT, 40, next);
        this._keySources.add(source);
    }

    /** Key sequences still typing stop (their callers get no reply). */
    destroy() {
        for (const source of this._keySources)
            this._d.GLib.source_remove(source);
        this._keySources.clear();
        this._keyboard = null;
    }
}

/**
 * `new TestDriverExtension(deps).enable()`, then `disable()`: exports the
 * driver and owns its name; at the end of the shell's startup it closes the
 * overview the shell opens (no window gets the focus under it).
 */
export class TestDriverExtension {
    constructor(deps) {
        this._d = deps;
        this._driver = null;
        this._object = null;
        this._name = 0;
        this._startupId = 0;
    }

    enable() {
        const {Gio, Main} = this._d;
        this._driver = new TestDriver(this._d);
        this._object = Gio.DBusExportedObject.wrapJSObject(XML, this._driver);
        this._object.export(Gio.DBus.session, OBJECT_PATH);
        this._name = Gio.bus_own_name_on_connection(Gio.DBus.session, BUS_NAME, Gio.BusNameOwnerFlags.NONE, null, null);
        if (Main.layoutManager._startingUp) {
            this._startupId = Main.layoutManager.connect('startup-complete', () => {
                Main.layoutManager.disconnect(this._startupId);
                this._startupId = 0;
                Main.overview.hide();
            });
        }
    }

    disable() {
        const {Gio, Main} = this._d;
        if (this._startupId)
            Main.layoutManager.disconnect(this._startupId);
        this._startupId = 0;
        Gio.bus_unown_name(this._name);
        this._name = 0;
        this._object.unexport();
        this._object = null;
        this._driver.destroy();
        this._driver = null;
    }
}
