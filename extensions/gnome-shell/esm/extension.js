// blocker's GNOME Shell extension, entry point for GNOME 45+ (ES modules).
// The behaviour is in core.js beside this file.
import Clutter from 'gi://Clutter';
import Gio from 'gi://Gio';
import GLib from 'gi://GLib';
import St from 'gi://St';
import * as Main from 'resource:///org/gnome/shell/ui/main.js';
import {Extension} from 'resource:///org/gnome/shell/extensions/extension.js';
import {BlockerShell} from './core.js';

export default class BlockerExtension extends Extension {
    enable() {
        this._core = new BlockerShell({Gio, GLib, St, Clutter, Main, global, log: message => console.log(message)});
        this._core.enable();
    }

    disable() {
        this._core?.disable();
        this._core = null;
    }
}
