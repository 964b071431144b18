// blocker's GNOME Shell extension, entry point for GNOME 43–44 (the legacy
// format: `imports.*`, init() returning enable()/disable()). The behaviour is
// in core.js, an ES module beside this file, loaded with a dynamic import():
// the legacy importer cannot read a module with `export`, but import() can.
/* exported init */
const {Clutter, Gio, GLib, St} = imports.gi;
const ExtensionUtils = imports.misc.extensionUtils;
const Main = imports.ui.main;

class BlockerLegacyEntry {
    constructor(meta) {
        this._coreURI = meta.dir.get_child('core.js').get_uri();
        // metadata.json's gettext-domain, bound by init() to the locale/ folder beside this file.
        this._words = imports.gettext.domain(meta.metadata['gettext-domain']);
        this._core = null;
        this._enabled = false;
    }

    enable() {
        this._enabled = true;
        import(this._coreURI).then(core => {
            // disable() may have come before the module finished loading.
            if (!this._enabled || this._core)
                return;
            this._core = new core.BlockerShell({
                Gio, GLib, St, Clutter, Main, global,
                log, debug: message => console.debug(message),
                gettext: this._words.gettext, ngettext: this._words.ngettext,
            });
            this._core.enable();
        }).catch(e => logError(e, 'blocker: cannot load core.js'));
    }

    disable() {
        // Session modes user and unlock-dialog: the shell disables the extension
        // when the user logs out, not when the screen locks. In unlock-dialog it
        // tells blockerd the screen is locked (nothing is charged meanwhile); its
        // cover, with every keyboard handler, is down while the screen is locked.
        this._enabled = false;
        this._core?.disable();
        this._core = null;
    }
}

function init(meta) {
    ExtensionUtils.initTranslations();
    return new BlockerLegacyEntry(meta);
}
