// blocker's GNOME Shell extension, entry point for GNOME 45+ (ES modules).
// The behaviour is in core.js beside this file.
import Clutter from 'gi://Clutter';
import Gio from 'gi://Gio';
import GLib from 'gi://GLib';
import St from 'gi://St';
import * as Main from 'resource:///org/gnome/shell/ui/main.js';
import {Extension, gettext, ngettext} from 'resource:///org/gnome/shell/extensions/extension.js';
import {BlockerShell} from './core.js';

export default class BlockerExtension extends Extension {
    enable() {
        // metadata.json's gettext-domain, blocker-gnome-shell, from the locale/
        // folder beside this file (the shell's base class may have done so already).
        this.initTranslations();
        this._core = new BlockerShell({
            Gio, GLib, St, Clutter, Main, global,
            log: message => console.warn(message), debug: message => console.debug(message),
            gettext, ngettext,
        });
        this._core.enable();
    }

    disable() {
        // Session modes user and unlock-dialog: the shell disables the extension
        // when the user logs out, not when the screen locks. In unlock-dialog it
        // tells blockerd the screen is locked (nothing is charged meanwhile); its
        // cover, with every keyboard handler, is down while the screen is locked.
        this._core?.disable();
        this._core = null;
    }
}
