// TEST ONLY — the test driver's entry point for GNOME 43–44 (the legacy
// format: `imports.*`, init() returning enable()/disable()). What it does is
// in core.js beside this file (see there), an ES module the legacy importer
// cannot read: loaded with a dynamic import(), once; later enables (the
// extension manager disables and re-enables the extensions after one it
// disables) start at once, so io.github.blockerd.Test is back before the
// D-Bus call that caused them returns.
/* exported init */
const {Clutter, Gio, GLib, Meta, Shell} = imports.gi;
const Main = imports.ui.main;

class TestDriverLegacyEntry {
    constructor(meta) {
        this._coreURI = meta.dir.get_child('core.js').get_uri();
        this._core = null;
        this._module = null;
        this._enabled = false;
    }

    enable() {
        this._enabled = true;
        if (this._module) {
            this._start();
            return;
        }
        import(this._coreURI).then(module => {
            this._module = module;
            // disable() may have come before the module finished loading.
            if (this._enabled && !this._core)
                this._start();
        }).catch(e => logError(e, 'blocker-test: cannot load core.js'));
    }

    _start() {
        this._core = new this._module.TestDriverExtension({
            Clutter, Gio, GLib, Meta, Shell, Main, global, logError, lockAnimated: false,
        });
        this._core.enable();
    }

    disable() {
        this._enabled = false;
        this._core?.disable();
        this._core = null;
    }
}

function init(meta) {
    return new TestDriverLegacyEntry(meta);
}
