// TEST ONLY — the test driver's entry point for GNOME 45–49 (ES modules).
// What it does is in core.js beside this file (see there).
import Clutter from 'gi://Clutter';
import Gio from 'gi://Gio';
import GLib from 'gi://GLib';
import Meta from 'gi://Meta';
import Shell from 'gi://Shell';
import * as Main from 'resource:///org/gnome/shell/ui/main.js';
import {Extension} from 'resource:///org/gnome/shell/extensions/extension.js';
import {TestDriverExtension} from './core.js';

export default class TestDriverEntry extends Extension {
    enable() {
        // GNOME 48 locks with the animation (lock(true)), as the shell's own lock does.
        this._core = new TestDriverExtension({
            Clutter, Gio, GLib, Meta, Shell, Main, global, lockAnimated: true,
            logError: (e, what) => console.error(`${what}: ${e}`),
        });
        this._core.enable();
    }

    disable() {
        this._core?.disable();
        this._core = null;
    }
}
