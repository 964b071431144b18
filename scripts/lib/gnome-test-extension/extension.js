// TEST ONLY — installed by scripts/itest-gnome.sh into a test user's home,
// never by `make install`. GNOME Shell refuses Eval since 41, so the test
// drives its own shell through this: io.github.blockerd.Test on the session
// bus (object /io/github/blockerd/Test), legacy format for GNOME 43–44.
/* exported init */
const {Clutter, Gio, GLib, Meta, Shell} = imports.gi;
const Main = imports.ui.main;

const XML = `<node><interface name="io.github.blockerd.Test">
  <method name="Windows"><arg type="s" direction="out"/></method>
  <method name="State"><arg type="s" direction="out"/></method>
  <method name="Activate"><arg type="s" direction="in"/><arg type="b" direction="out"/></method>
  <method name="Lock"/>
  <method name="Unlock"/>
  <method name="Screenshot"><arg type="s" direction="in"/><arg type="b" direction="out"/></method>
  <method name="Keys"><arg type="s" direction="in"/></method>
  <method name="SetExtensionEnabled"><arg type="s" direction="in"/><arg type="b" direction="in"/></method>
</interface></node>`;

function describe(window) {
    return window ? {
        wm_class: window.get_wm_class(), app_id: window.get_gtk_application_id(), title: window.get_title(),
        pid: window.get_pid(), focused: window === global.display.focus_window,
        hidden: window.is_hidden(), actor_visible: Boolean(window.get_compositor_private()?.visible),
    } : null;
}

// The text of the first actor under ROOT with STYLE_CLASS, or null.
function textOf(root, styleClass) {
    if (root.has_style_class_name?.(styleClass))
        return root.text ?? root.get_text?.() ?? null;
    for (const child of root.get_children()) {
        const text = textOf(child, styleClass);
        if (text !== null)
            return text;
    }
    return null;
}

function windows() {
    return global.get_window_actors().map(a => a.meta_window)
        .filter(w => w.get_window_type() === Meta.WindowType.NORMAL);
}

function matches(window, name) {
    const wanted = name.toLowerCase();
    return [window.get_wm_class(), window.get_gtk_application_id()].some(v => v && v.toLowerCase() === wanted);
}

// "Alt_L+Tab Return type:12": chords pressed together, then released in reverse.
function keySteps(spec) {
    const steps = [];
    for (const word of spec.split(' ').filter(w => w)) {
        const names = word.startsWith('type:') ? null : word.split('+');
        if (!names) {
            for (const c of word.slice(5))
                steps.push([Clutter[`KEY_${c}`], true], [Clutter[`KEY_${c}`], false]);
            continue;
        }
        const keys = names.map(n => Clutter[`KEY_${n}`]);
        if (keys.some(k => k === undefined))
            throw new Error(`unknown key in ${word}`);
        for (const k of keys)
            steps.push([k, true]);
        for (const k of keys.reverse())
            steps.push([k, false]);
    }
    return steps;
}

class TestDriver {
    Windows() {
        return JSON.stringify(windows().map(describe));
    }

    State() {
        const covers = Main.layoutManager.uiGroup.get_children().filter(a => a.has_style_class_name?.('blocker-cover'));
        return JSON.stringify({
            focus: describe(global.display.focus_window), overview: Main.overview.visible,
            locked: Boolean(Main.screenShield?.locked), session_mode: Main.sessionMode.currentMode,
            modal: Main.modalCount, action_mode: Main.actionMode,
            covers: covers.length, cover_visible: covers.some(a => a.visible && a.mapped),
            key_focus: String(global.stage.key_focus),
            cover_message: covers.length ? textOf(covers[0], 'blocker-message') : null,
            cover_reps: covers.length ? textOf(covers[0], 'blocker-reps') : null,
            key_focus_in_cover: covers.some(a => a.contains(global.stage.key_focus)),
            switcher: Main.layoutManager.uiGroup.get_children().some(a => a.constructor?.name?.includes('Switcher') && a.visible),
        });
    }

    Activate(name) {
        const window = windows().find(w => matches(w, name));
        if (!window)
            return false;
        window.activate(global.get_current_time());
        return true;
    }

    // Straight to the extension manager: its public enable/disable write
    // gsettings, and this session bus starts no dconf service.
    SetExtensionEnabled(uuid, enabled) {
        if (enabled)
            Main.extensionManager._callExtensionEnable(uuid);
        else
            Main.extensionManager._callExtensionDisable(uuid);
    }

    Lock() {
        Main.screenShield.lock(false);
    }

    Unlock() {
        Main.screenShield.deactivate(false);
    }

    ScreenshotAsync([path], invocation) {
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
        let steps;
        try {
            steps = keySteps(spec);
        } catch (e) {
            invocation.return_error_literal(Gio.DBusError, Gio.DBusError.INVALID_ARGS, e.message);
            return;
        }
        if (!this._keyboard) {
            const seat = Clutter.get_default_backend().get_default_seat();
            this._keyboard = seat.create_virtual_device(Clutter.InputDeviceType.KEYBOARD_DEVICE);
        }
        const next = () => {
            const step = steps.shift();
            if (!step) {
                invocation.return_value(null);
                return GLib.SOURCE_REMOVE;
            }
            this._keyboard.notify_keyval(GLib.get_monotonic_time(), step[0],
                step[1] ? Clutter.KeyState.PRESSED : Clutter.KeyState.RELEASED);
            return GLib.SOURCE_CONTINUE;
        };
        GLib.timeout_add(GLib.PRIORITY_DEFAULT, 40, next);
    }
}

class TestExtension {
    enable() {
        this._driver = new TestDriver();
        this._object = Gio.DBusExportedObject.wrapJSObject(XML, this._driver);
        this._object.export(Gio.DBus.session, '/io/github/blockerd/Test');
        this._name = Gio.bus_own_name_on_connection(Gio.DBus.session, 'io.github.blockerd.Test',
            Gio.BusNameOwnerFlags.NONE, null, null);
    }

    disable() {
        Gio.bus_unown_name(this._name);
        this._object.unexport();
    }
}

function init() {
    return new TestExtension();
}
