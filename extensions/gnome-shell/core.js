// blocker's GNOME Shell extension: everything it does, shared by both entry
// points (legacy/extension.js for GNOME 43–44, esm/extension.js for 45+).
//
// This file is an ES module that imports nothing: the entry point hands it
// the libraries (Gio, GLib, St, Clutter), the shell's `Main` and `global`, two
// log functions (`log` for what went wrong, `debug` for what happened), and
// `gettext` and `ngettext` bound to the extension's own text domain,
// blocker-gnome-shell (its .mo files in locale/ beside this file).
// GNOME 45+ loads it with a static `import`, GNOME 43–44 with
// a dynamic `import()` from the legacy entry point; the stub test
// (scripts/itest-gnome-esm-stub.sh, scripts/lib/gnome-esm-stub/) loads it against a stub shell.
//
// It does two things:
// - tells blockerd which window is in front (`Report(a{sv})` on
//   io.github.blockerd.Focus1) on every focus, title and lock change, and
//   whenever blockerd's io.github.blockerd.Focus name appears;
// - draws the cover itself (a GTK window can be switched away from on GNOME
//   Wayland): an opaque modal actor over every monitor while blockerd's shield
//   is up, with the earn form. It owns io.github.blockerd.Cover meanwhile so
//   blocker-overlay stays hidden.

export const UUID = 'blocker@blockerd.github.io';

export const Names = Object.freeze({
    focus: 'io.github.blockerd.Focus',
    focusPath: '/io/github/blockerd/Focus',
    focusInterface: 'io.github.blockerd.Focus1',
    blocker: 'io.github.blockerd.Blocker1',
    blockerPath: '/io/github/blockerd/Blocker1',
    blockerInterface: 'io.github.blockerd.Blocker1',
    cover: 'io.github.blockerd.Cover',
});

/** Reps blockerd accepts in one Earn (BlockerLimits.reps). */
export const REPS = Object.freeze({min: 1, max: 1000});

// --- words (the same as BlockerCore's DurationText, ShieldText, RepsInput) ---
//
// The same msgids as blocker's Swift side, in a text domain of the
// extension's own (po/gnome-shell/). English until the entry point hands the
// translations over (useTranslations); the stub test reads them so.
// Values go in by name after the translation, `{group}`, never glued on:
// a language may put them anywhere in its sentence.

let _ = msgid => msgid;
let ngettext = (singular, plural, n) => (n === 1 ? singular : plural);

/** The entry point's gettext and ngettext, bound to the text domain blocker-gnome-shell. */
export function useTranslations(gettext, ngettextOfDomain) {
    _ = gettext;
    ngettext = ngettextOfDomain;
}

/** TEXT with each `{name}` of VALUES filled in; other braces stay as written. */
function fill(text, values) {
    return text.replace(/\{([a-z]+)\}/g, (whole, name) => (name in values ? String(values[name]) : whole));
}

function two(n) {
    return n < 10 ? `0${n}` : `${n}`;
}

/** `1d 02h`, `1h 05m`, `4m 30s`, `45s`: DurationText.format. */
export function durationText(ms) {
    if (ms < 0)
        return `-${durationText(-ms)}`;
    const seconds = Math.floor(ms / 1000);
    const d = Math.floor(seconds / 86400), h = Math.floor(seconds / 3600) % 24;
    const m = Math.floor(seconds / 60) % 60, s = seconds % 60;
    if (d > 0)
        // Translators: the short duration units (days, hours, minutes, seconds); keep them short.
        return fill(_('{d}d {h}h'), {d, h: two(h)});
    if (h > 0)
        return fill(_('{h}h {m}m'), {h, m: two(m)});
    if (m > 0)
        return fill(_('{m}m {s}s'), {m, s: two(s)});
    return fill(_('{s}s'), {s});
}

const WEEKDAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];

/**
 * `14:35` within 24 hours, `Fri 09:00` later: ShieldText.clock. `local(ms)`
 * gives {weekday 1–7, hour, minute, weekdayName}: the name in the locale's
 * words (LC_TIME, as the Swift side's), English when it has none.
 */
export function clockText(untilMs, nowMs, local) {
    const t = local(untilMs);
    const time = `${two(t.hour)}:${two(t.minute)}`;
    if (untilMs - nowMs < 86400000)
        return time;
    // Translators: a weekday's abbreviation and a time, "Fri 09:00".
    return fill(_('{weekday} {time}'), {weekday: t.weekdayName ?? WEEKDAYS[t.weekday - 1], time});
}

/** "Out of earned time", "Bedtime until 07:00", …: ShieldText.reason, one whole sentence a case. */
export function reasonText(shield, nowMs, local) {
    const time = shield.until_ms > 0 ? clockText(shield.until_ms, nowMs, local) : null;
    const group = shield.group;
    switch (shield.reason) {
    case 'balance': return _('Out of earned time');
    case 'schedule': return time ? fill(_('Bedtime until {time}'), {time}) : _('Bedtime');
    case 'daily-limit': return group ? fill(_('Daily limit for {group} reached'), {group}) : _('Daily limit reached');
    case 'timed-block': return time ? fill(_('Blocked until {time}'), {time}) : _('Blocked');
    case 'opens-cap': return group ? fill(_('Opens for {group} used up today'), {group}) : _('Opens used up today');
    case 'pause': return _('Take a breath');
    default: return _('Blocked');
    }
}

/** Whole seconds until a pause's "Open" (rounded up, never below 0): PauseCountdown.secondsLeft. */
export function pauseSecondsLeft(untilMs, nowMs) {
    return untilMs > nowMs ? Math.ceil((untilMs - nowMs) / 1000) : 0;
}

/**
 * The card's words for an active shield (OverlayModel.card). A pause (with
 * its group) is a countdown and two answers instead of the balance: `pause`
 * = {group, secondsLeft, canOpen, asksReason}; null otherwise. `pass` =
 * {group, label} while the group's shield has a pass left, never on a pause.
 */
export function coverCard(shield, balanceMs, nowMs, local) {
    if (shield.reason === 'pause' && shield.group) {
        const secondsLeft = pauseSecondsLeft(shield.until_ms, nowMs);
        return {
            app: reasonText(shield, nowMs, local),
            reason: fill(_('Still want {app}?'), {app: shield.app}),
            balance: null,
            offersEarning: false,
            footnote: null,
            pause: {group: shield.group, secondsLeft, canOpen: secondsLeft === 0, asksReason: shield.ask_reason},
            pass: null,
        };
    }
    const earning = shield.reason === 'balance';
    return {
        app: shield.app,
        reason: reasonText(shield, nowMs, local),
        balance: fill(_('Balance {time}'), {time: durationText(balanceMs)}),
        offersEarning: earning,
        footnote: earning ? null : _('Logging reps does not lift this block.'),
        pause: null,
        pass: shield.group && shield.passes_left > 0 ? {group: shield.group, label: passOffer(shield.passes_left)} : null,
    };
}

/** The pass's button (PassText.offer): "Use a pass · 1 left this week". */
export function passOffer(passesLeft) {
    return fill(ngettext('Use a pass · {count} left this week', 'Use a pass · {count} left this week', passesLeft),
        {count: passesLeft});
}

/** What the card says when blockerd took the pass (PassText.used): "Pass used: open until 14:50". */
export function passUsed(untilMs, nowMs, local) {
    return fill(_('Pass used: open until {time}'), {time: clockText(untilMs, nowMs, local)});
}

/** The "why now?" line blockerd records: one line, at most 200 bytes of UTF-8 (BlockerLimits.reasonBytes). */
export function reasonLine(text) {
    let line = text.replace(/[\r\n\t]+/g, ' ').trim();
    while (new TextEncoder().encode(line).length > 200)
        line = Array.from(line).slice(0, -1).join('');
    return line;
}

/** The reps field: {reps} or {error} with the words shown under it (RepsInput.parse). */
export function parseReps(text) {
    const trimmed = text.replace(/^[ \t\r\n]+|[ \t\r\n]+$/g, '');
    if (trimmed === '')
        return {error: _('Type how many reps you did, then press Enter')};
    if (!/^[0-9]+$/.test(trimmed)) {
        const shown = trimmed.length > 24 ? `${trimmed.slice(0, 24)}…` : trimmed;
        return {error: fill(_('“{text}” is not a number of reps — type digits, like 20'), {text: shown})};
    }
    const value = Number(trimmed.replace(/^0+(?=.)/, ''));
    if (!(value >= REPS.min && value <= REPS.max))
        return {error: fill(_('Reps go from {low} to {high}'), {low: REPS.min, high: REPS.max})};
    return {reps: value};
}

/** "20 pushups earn 10m 00s" while typing, null when the text is no valid count. */
export function repsPreview(text, exercise) {
    const parsed = parseReps(text);
    if (!exercise || parsed.reps === undefined)
        return null;
    // Translators: {exercise} is the name blocker.toml gives it, as written there ("pushups").
    return fill(ngettext('{reps} {exercise} earn {time}', '{reps} {exercise} earn {time}', parsed.reps),
        {reps: parsed.reps, exercise: exercise.name, time: durationText(parsed.reps * exercise.perRepMs)});
}

/** A shield dictionary (ShieldChanged, Status's `shield`), unpacked, with defaults. */
export function shieldFrom(dict) {
    const d = dict ?? {};
    return {
        active: d.active === true,
        reason: typeof d.reason === 'string' ? d.reason : null,
        app: typeof d.app === 'string' ? d.app : '',
        group: typeof d.group === 'string' && d.group !== '' ? d.group : null,
        until_ms: Number(d.until_ms ?? 0),
        balance_ms: Number(d.balance_ms ?? 0),
        ask_reason: d.ask_reason === true,
        passes_left: Number(d.passes_left ?? 0),
        site: typeof d.site === 'string' && d.site !== '' ? d.site : null,
    };
}

/**
 * Whether the shell's cover goes over the window: a shield is up over an
 * app, and it is not a site shield (blocker's browser extension covers
 * that site's tab itself; the browser's other tabs stay usable).
 */
export function coversWindow(shield) {
    return shield.active && shield.app !== '' && shield.site === null;
}

// --- the extension ---------------------------------------------------------

/**
 * One instance per enable(): `new BlockerShell(deps).enable()`, then
 * `disable()`. deps = {Gio, GLib, St, Clutter, Main, global, log, debug,
 * gettext, ngettext}.
 */
export class BlockerShell {
    constructor(deps) {
        this._d = deps;
        useTranslations(deps.gettext, deps.ngettext);
        this._focus = new FocusReporter(deps);
        this._cover = new ShieldCover(deps, () => this._focus.locked);
        this._focus.onLockChanged = () => this._cover.lockChanged();
    }

    enable() {
        this._focus.enable();
        this._cover.enable();
        this._d.debug(`blocker: enabled (reporting to ${Names.focus}, covering as ${Names.cover})`);
    }

    disable() {
        this._cover.disable();
        this._focus.disable();
        this._d.debug('blocker: disabled');
    }
}

/** Reports the window in front to blockerd: pushed on events, never polled. */
class FocusReporter {
    constructor(deps) {
        this._d = deps;
        this._signals = [];
        this._window = null;
        this._windowSignals = [];
        this._owner = null;
        this._watch = 0;
        this._pending = 0;
        this.onLockChanged = null;
        this.reportsSent = 0;
    }

    get locked() {
        const {Main} = this._d;
        return Boolean(Main.sessionMode?.isLocked || Main.screenShield?.locked);
    }

    enable() {
        const {Gio, Main, global} = this._d;
        this._connect(global.display, 'notify::focus-window', () => this._focusChanged());
        if (Main.sessionMode)
            this._connect(Main.sessionMode, 'updated', () => this._lockMaybeChanged());
        if (Main.screenShield)
            this._connect(Main.screenShield, 'locked-changed', () => this._lockMaybeChanged());
        this._wasLocked = this.locked;
        this._follow(global.display.focus_window);
        // blockerd (re)started: it knows nothing yet, so tell it everything now.
        this._watch = Gio.bus_watch_name_on_connection(Gio.DBus.session, Names.focus,
            Gio.BusNameWatcherFlags.NONE,
            (_c, _name, owner) => {
                this._owner = owner;
                this._reportNow();
            },
            () => {
                this._owner = null;
            });
    }

    disable() {
        const {Gio, GLib} = this._d;
        if (this._watch)
            Gio.bus_unwatch_name(this._watch);
        this._watch = 0;
        if (this._pending)
            GLib.source_remove(this._pending);
        this._pending = 0;
        for (const [object, id] of this._signals)
            object.disconnect(id);
        this._signals = [];
        this._follow(null);
        this._owner = null;
    }

    _connect(object, signal, handler) {
        this._signals.push([object, object.connect(signal, handler)]);
    }

    _focusChanged() {
        this._follow(this._d.global.display.focus_window);
        this._schedule();
    }

    /** Title and app-id changes of the window in front only; the old window is let go. */
    _follow(window) {
        if (window === this._window)
            return;
        for (const id of this._windowSignals)
            this._window.disconnect(id);
        this._windowSignals = [];
        this._window = window ?? null;
        if (!this._window)
            return;
        for (const property of ['title', 'wm-class', 'gtk-application-id'])
            this._windowSignals.push(this._window.connect(`notify::${property}`, () => this._schedule()));
    }

    _lockMaybeChanged() {
        const locked = this.locked;
        if (locked === this._wasLocked)
            return;
        this._wasLocked = locked;
        this._schedule();
        this.onLockChanged?.();
    }

    /** Changes in one main-loop turn (a focus change and its title) make one report. */
    _schedule() {
        if (this._pending)
            return;
        const {GLib} = this._d;
        this._pending = GLib.idle_add(GLib.PRIORITY_DEFAULT, () => {
            this._pending = 0;
            this._reportNow();
            return GLib.SOURCE_REMOVE;
        });
    }

    /** The whole state, as Focus1.Report wants it. */
    state() {
        const {GLib} = this._d;
        const entries = {locked: new GLib.Variant('b', this.locked)};
        const window = this._window;
        entries.focused = new GLib.Variant('b', window !== null);
        if (!window)
            return entries;
        const text = {
            'app-id': window.get_gtk_application_id?.(),
            'sandboxed-app-id': window.get_sandboxed_app_id?.(),
            'wm-class': window.get_wm_class?.(),
            'wm-instance': window.get_wm_class_instance?.(),
            'title': window.get_title?.(),
        };
        for (const [key, value] of Object.entries(text)) {
            if (typeof value === 'string' && value !== '')
                entries[key] = new GLib.Variant('s', value);
        }
        const pid = window.get_pid?.();
        if (Number.isInteger(pid) && pid > 0)
            entries.pid = new GLib.Variant('i', pid);
        return entries;
    }

    _reportNow() {
        if (!this._owner)
            return;
        const {Gio, GLib} = this._d;
        const owner = this._owner;
        Gio.DBus.session.call(owner, Names.focusPath, Names.focusInterface, 'Report',
            new GLib.Variant('(a{sv})', [this.state()]), null, Gio.DBusCallFlags.NO_AUTO_START, 2000, null,
            (connection, result) => {
                try {
                    connection.call_finish(result);
                    this.reportsSent += 1;
                } catch (e) {
                    // blockerd refused it or left: it asks again by taking the name anew.
                    if (owner === this._owner)
                        this._d.log(`blocker: blockerd refused the focus report: ${e.message}`);
                }
            });
    }
}

/**
 * The cover: follows blockerd's ShieldChanged and BalanceChanged, syncs from
 * Status() when blockerd appears, and draws one opaque modal actor over every
 * monitor while the shield is up (not while the screen is locked: the lock
 * screen covers everything and needs the keyboard).
 */
class ShieldCover {
    constructor(deps, isLocked) {
        this._d = deps;
        this._isLocked = isLocked;
        this._shield = shieldFrom(null);
        this._balanceMs = 0;
        this._exercises = [];
        this._selected = null;
        this._owner = null;
        this._nameId = 0;
        this._watch = 0;
        this._subscriptions = [];
        this._monitorsId = 0;
        this._actor = null;
        this._grab = null;
        this._focusId = 0;
        this._form = null;
        this._cards = [];
        this._busy = false;
        this._pauseTimer = 0;
        this._keyId = 0;
    }

    enable() {
        const {Gio, Main} = this._d;
        // While this name has an owner, blocker-overlay stays hidden: one cover, ours.
        this._nameId = Gio.bus_own_name_on_connection(Gio.DBus.session, Names.cover, Gio.BusNameOwnerFlags.NONE,
            null, null);
        this._watch = Gio.bus_watch_name_on_connection(Gio.DBus.session, Names.blocker,
            Gio.BusNameWatcherFlags.NONE,
            (_c, _name, owner) => this._daemonAppeared(owner),
            () => this._daemonLeft());
        this._monitorsId = Main.layoutManager.connect('monitors-changed', () => this._render());
    }

    disable() {
        const {Gio, Main} = this._d;
        this._daemonLeft();
        if (this._watch)
            Gio.bus_unwatch_name(this._watch);
        if (this._nameId)
            Gio.bus_unown_name(this._nameId);
        if (this._monitorsId)
            Main.layoutManager.disconnect(this._monitorsId);
        this._watch = this._nameId = this._monitorsId = 0;
    }

    get isShown() {
        return this._actor !== null;
    }

    lockChanged() {
        this._render();
    }

    _daemonAppeared(owner) {
        const {Gio} = this._d;
        this._owner = owner;
        const subscribe = (member, handler) => this._subscriptions.push(Gio.DBus.session.signal_subscribe(
            owner, Names.blockerInterface, member, Names.blockerPath, null, Gio.DBusSignalFlags.NONE,
            (_c, _sender, _path, _iface, _member, parameters) => handler(parameters.recursiveUnpack())));
        subscribe('ShieldChanged', ([dict]) => this._shieldChanged(shieldFrom(dict)));
        subscribe('BalanceChanged', ([balance]) => {
            this._balanceMs = Number(balance);
            this._refreshWords();
        });
        this._syncFromStatus();
    }

    /** Stopping must not block: the cover goes until blockerd is back. */
    _daemonLeft() {
        const {Gio} = this._d;
        for (const id of this._subscriptions)
            Gio.DBus.session.signal_unsubscribe(id);
        this._subscriptions = [];
        this._owner = null;
        this._shield = shieldFrom(null);
        this._render();
    }

    _call(member, parameters, replyType, done) {
        const {Gio, GLib} = this._d;
        if (!this._owner) {
            done(null, new Error(_('blockerd is not running')));
            return;
        }
        Gio.DBus.session.call(this._owner, Names.blockerPath, Names.blockerInterface, member, parameters,
            replyType ? new GLib.VariantType(replyType) : null, Gio.DBusCallFlags.NO_AUTO_START, 5000, null,
            (connection, result) => {
                let reply;
                try {
                    reply = connection.call_finish(result).recursiveUnpack();
                } catch (e) {
                    done(null, e);
                    return;
                }
                done(reply, null);
            });
    }

    _syncFromStatus() {
        this._call('Status', null, '(a{sv})', (reply, error) => {
            if (error) {
                this._d.log(`blocker: cannot read blockerd's Status: ${error.message}`);
                return;
            }
            const [status] = reply;
            this._setExercises(status.exercises ?? {});
            this._shieldChanged(shieldFrom(status.shield));
        });
    }

    _setExercises(rates) {
        this._exercises = Object.keys(rates).sort().map(name => ({name, perRepMs: Number(rates[name])}));
        if (!this._exercises.some(e => e.name === this._selected))
            this._selected = this._exercises[0]?.name ?? null;
        this._refreshExercise();
    }

    _shieldChanged(shield) {
        const wasUp = coversWindow(this._shield);
        this._shield = shield;
        this._balanceMs = shield.balance_ms;
        const up = coversWindow(shield);
        if (up && !wasUp) {
            // [earn] may have changed since (a reload): ask without waiting.
            this._call('Status', null, '(a{sv})', reply => reply && this._setExercises(reply[0].exercises ?? {}));
        }
        this._render();
    }

    /** Shown exactly while the shield is up and the screen is not locked. */
    _render() {
        const want = coversWindow(this._shield) && !this._isLocked();
        if (!want) {
            this._hide();
            return;
        }
        if (this._actor && this._actor._monitorCount !== this._d.Main.layoutManager.monitors.length)
            this._hide();
        if (!this._actor)
            this._show();
        this._refreshWords();
    }

    _show() {
        const {St, Clutter, Main, global} = this._d;
        const layout = Main.layoutManager;
        // One actor over the whole stage, opaque, so nothing of any window shows.
        const actor = new St.Widget({
            style_class: 'blocker-cover', reactive: true, can_focus: true,
            x: 0, y: 0, width: global.stage.width, height: global.stage.height,
        });
        actor._monitorCount = layout.monitors.length;
        this._cards = [];
        this._form = null;
        const primary = layout.primaryIndex ?? 0;
        layout.monitors.forEach((monitor, index) => {
            const pane = new St.Widget({
                style_class: 'blocker-cover-pane', layout_manager: new Clutter.BinLayout(),
                x: monitor.x, y: monitor.y, width: monitor.width, height: monitor.height,
            });
            const card = this._makeCard(index === primary);
            pane.add_child(card.root);
            actor.add_child(pane);
            this._cards.push(card);
            if (card.form)
                this._form = card.form;
        });
        layout.addTopChrome(actor);
        this._actor = actor;
        // Modal with no action mode: no window switcher, overview or other
        // shell shortcut works while it is up, and the keyboard is ours.
        this._grab = Main.pushModal(actor, {actionMode: 0});
        // A window coming or going makes the shell drop the stage's key focus:
        // the reps field takes it back (but never from another modal, such as
        // the lock screen, which sets a focus of its own).
        this._focusId = global.stage.connect('notify::key-focus', () => {
            const focus = global.stage.key_focus;
            if (focus === null || focus === global.stage)
                this._focusTarget()?.grab_key_focus();
        });
        // On a pause, Escape is "Not now" (the keyboard alone answers it).
        this._keyId = actor.connect('key-press-event', (_actor, event) => {
            if (event.get_key_symbol() !== Clutter.KEY_Escape || !this._pauseShown())
                return Clutter.EVENT_PROPAGATE;
            this._answer(false);
            return Clutter.EVENT_STOP;
        });
        this._busy = false;
        this._refreshExercise();
        if (this._form) {
            this._form.entry.set_text('');
            this._form.message = null;
        }
        this._refreshWords();
        this._focusTarget()?.grab_key_focus();
        this._d.debug(`blocker: cover shown over ${this._shield.app} (${this._shield.reason}) on ` +
            `${layout.monitors.length} monitor(s)`);
    }

    _hide() {
        if (!this._actor)
            return;
        const {Main, global} = this._d;
        if (this._focusId)
            global.stage.disconnect(this._focusId);
        this._focusId = 0;
        this._stopPauseTimer();
        if (this._grab)
            Main.popModal(this._grab);
        this._grab = null;
        this._actor.destroy();
        this._actor = null;
        this._cards = [];
        this._form = null;
        this._d.debug('blocker: cover hidden');
    }

    _makeCard(withForm) {
        const {St, Clutter} = this._d;
        const label = (style, text = '') => new St.Label({style_class: style, text, x_align: Clutter.ActorAlign.START});
        const root = new St.BoxLayout({
            vertical: true, style_class: 'blocker-card',
            x_align: Clutter.ActorAlign.CENTER, y_align: Clutter.ActorAlign.CENTER,
            x_expand: true, y_expand: true,
        });
        const card = {
            root,
            app: label('blocker-app'),
            reason: label('blocker-reason'),
            balance: label('blocker-balance'),
            footnote: label('blocker-footnote'),
            form: null,
            pause: null,
            pass: null,
            withForm,
        };
        root.add_child(label('blocker-eyebrow', 'BLOCKER'));
        for (const part of [card.app, card.reason, card.balance, card.footnote])
            root.add_child(part);
        card.pause = this._makePause(withForm);
        root.add_child(card.pause.box);
        if (withForm) {
            const box = new St.BoxLayout({vertical: true, style_class: 'blocker-form'});
            const row = new St.BoxLayout({vertical: false, style_class: 'blocker-form-row'});
            const exercise = new St.Button({style_class: 'blocker-exercise', can_focus: true, label: ''});
            // Translators: the reps field's hint, shown while it is empty.
            const entry = new St.Entry({
                style_class: 'blocker-reps', hint_text: _('reps'), can_focus: true, x_expand: true,
            });
            // Translators: the button that records the reps typed in the field (and earns their time).
            const log = new St.Button({style_class: 'blocker-log', can_focus: true, label: _('Log')});
            const status = label('blocker-message');
            row.add_child(exercise);
            row.add_child(entry);
            row.add_child(log);
            box.add_child(label('blocker-form-heading', _('Earn more time')));
            box.add_child(row);
            box.add_child(status);
            root.add_child(box);
            card.form = {box, exercise, entry, log, status, message: null};
            const pass = new St.BoxLayout({vertical: true, style_class: 'blocker-pass', visible: false});
            const usePass = new St.Button({style_class: 'blocker-use-pass', can_focus: true, label: '',
                x_align: Clutter.ActorAlign.CENTER});
            const passMessage = label('blocker-pass-message');
            pass.add_child(usePass);
            pass.add_child(passMessage);
            root.add_child(pass);
            card.pass = {box: pass, button: usePass, message: passMessage, group: null};
            usePass.connect('clicked', () => this._usePass(card.pass));
            exercise.connect('clicked', () => this._cycleExercise(1));
            log.connect('clicked', () => this._logReps());
            entry.clutter_text.connect('activate', () => this._logReps());
            entry.clutter_text.connect('text-changed', () => {
                card.form.message = null;
                this._refreshStatusLine();
            });
            // Up/Down in the field choose the exercise: the keyboard alone is enough.
            entry.clutter_text.connect('key-press-event', (_actor, event) => {
                const key = event.get_key_symbol();
                if (key === Clutter.KEY_Up || key === Clutter.KEY_Down) {
                    this._cycleExercise(key === Clutter.KEY_Down ? 1 : -1);
                    return Clutter.EVENT_STOP;
                }
                return Clutter.EVENT_PROPAGATE;
            });
        }
        return card;
    }

    /** The pause's part of a card: the countdown; on the card with the form, "why now?" and the two answers. */
    _makePause(withAnswers) {
        const {St, Clutter} = this._d;
        const label = (style, text = '') => new St.Label({style_class: style, text, x_align: Clutter.ActorAlign.CENTER});
        const box = new St.BoxLayout({vertical: true, style_class: 'blocker-pause', visible: false});
        const pause = {box, countdown: label('blocker-countdown'), answers: null};
        box.add_child(pause.countdown);
        if (!withAnswers)
            return pause;
        const answers = new St.BoxLayout({vertical: true, style_class: 'blocker-answers'});
        const whyLabel = label('blocker-footnote', _('Why now? (optional, recorded)'));
        const why = new St.Entry({style_class: 'blocker-why', hint_text: _('Why now?'), can_focus: true, x_expand: true});
        const row = new St.BoxLayout({vertical: false, style_class: 'blocker-answer-row'});
        const notNow = new St.Button({
            style_class: 'blocker-not-now', can_focus: true, label: _('Not now'), x_expand: true,
        });
        // Translators: the pause's answer that opens the app after the countdown ("Not now" is the other).
        const open = new St.Button({style_class: 'blocker-open', can_focus: true, label: _('Open'), x_expand: true});
        const message = label('blocker-pause-message');
        row.add_child(notNow);
        row.add_child(open);
        for (const part of [whyLabel, why, row, message])
            answers.add_child(part);
        box.add_child(answers);
        pause.answers = {box: answers, whyLabel, why, notNow, open, message};
        notNow.connect('clicked', () => this._answer(false));
        open.connect('clicked', () => this._answer(true));
        why.clutter_text.connect('activate', () => this._answer(true));
        return pause;
    }

    _pauseShown() {
        return this._actor !== null && this._shield.reason === 'pause' && this._shield.group !== null;
    }

    /** Where the keyboard goes: the reps field, or on a pause the "why now?" field or "Not now". */
    _focusTarget() {
        const answers = this._cards.find(c => c.pause.answers)?.pause.answers;
        if (this._pauseShown() && answers)
            return this._shield.ask_reason ? answers.why : answers.notNow;
        return this._form?.entry ?? null;
    }

    /**
     * "Open" (refused by blockerd until the countdown ends: here it is not
     * even asked) or "Not now": then the window in front is minimized, as
     * blockerd cannot hide a window on GNOME; it records the answer when
     * another window comes to the front.
     */
    _answer(open) {
        const answers = this._cards.find(c => c.pause.answers)?.pause.answers;
        if (!this._pauseShown() || !answers || this._busy)
            return;
        const {GLib, Gio, global} = this._d;
        const words = coverCard(this._shield, this._balanceMs, Date.now(), ms => this._local(ms));
        if (open && !words.pause.canOpen)
            return;
        const reason = reasonLine(answers.why.get_text());
        const window = global.display.focus_window;
        this._busy = true;
        this._call('AnswerPause', new GLib.Variant('(sbs)', [words.pause.group, open, reason]), null, (_reply, error) => {
            this._busy = false;
            if (error) {
                if (error instanceof GLib.Error && Gio.DBusError.is_remote_error(error))
                    Gio.DBusError.strip_remote_error(error);
                answers.message.text = error.message;
                this._refreshWords();
                return;
            }
            this._d.debug(`blocker: pause of ${words.pause.group} answered: ${open ? 'open' : 'not now'}`);
            if (!open)
                window?.minimize();
        });
    }

    /** The pass's button: blockerd's answer under it, the time it runs until or why not. */
    _usePass(pass) {
        const words = coverCard(this._shield, this._balanceMs, Date.now(), ms => this._local(ms));
        if (!words.pass || !pass.button.reactive)
            return;
        const {GLib, Gio} = this._d;
        pass.button.reactive = false;
        this._call('UsePass', new GLib.Variant('(s)', [words.pass.group]), '(x)', (reply, error) => {
            if (error) {
                if (error instanceof GLib.Error && Gio.DBusError.is_remote_error(error))
                    Gio.DBusError.strip_remote_error(error);
                pass.button.reactive = true;
                pass.message.text = error.message;
                return;
            }
            const untilMs = Number(reply[0]);
            this._d.debug(`blocker: pass used for ${words.pass.group} until ${untilMs}`);
            pass.message.text = passUsed(untilMs, Date.now(), ms => this._local(ms));
        });
    }

    _stopPauseTimer() {
        if (this._pauseTimer)
            this._d.GLib.source_remove(this._pauseTimer);
        this._pauseTimer = 0;
    }

    _local(ms) {
        const {GLib} = this._d;
        const t = GLib.DateTime.new_from_unix_local(Math.floor(ms / 1000));
        return {weekday: t.get_day_of_week(), hour: t.get_hour(), minute: t.get_minute(), weekdayName: t.format('%a')};
    }

    _refreshWords() {
        if (!this._actor)
            return;
        const words = coverCard(this._shield, this._balanceMs, Date.now(), ms => this._local(ms));
        const many = this._cards.length > 1;
        for (const card of this._cards) {
            card.app.text = words.app;
            card.reason.text = words.reason;
            card.balance.text = words.balance ?? '';
            card.balance.visible = words.balance !== null;
            card.pause.box.visible = words.pause !== null;
            if (words.pause) {
                card.pause.countdown.text = String(words.pause.secondsLeft);
                const answers = card.pause.answers;
                if (answers) {
                    answers.whyLabel.visible = answers.why.visible = words.pause.asksReason;
                    answers.open.reactive = words.pause.canOpen && !this._busy;
                    answers.open.opacity = answers.open.reactive ? 255 : 110;
                }
            }
            const note = words.footnote ?? (words.offersEarning && !card.withForm && many
                ? _('Log your reps on the other screen.') : null);
            card.footnote.text = note ?? '';
            card.footnote.visible = note !== null;
            if (card.form)
                card.form.box.visible = words.offersEarning;
            if (card.pass) {
                card.pass.box.visible = words.pass !== null;
                if (words.pass && card.pass.group !== words.pass.group) {
                    // A new offer: a fresh button and no old answer under it.
                    card.pass.group = words.pass.group;
                    card.pass.button.reactive = true;
                    card.pass.message.text = '';
                }
                if (words.pass)
                    card.pass.button.label = words.pass.label;
            }
        }
        this._refreshStatusLine();
        // The countdown: redrawn until "Open" is enabled.
        this._stopPauseTimer();
        if (words.pause && !words.pause.canOpen) {
            const {GLib} = this._d;
            this._pauseTimer = GLib.timeout_add(GLib.PRIORITY_DEFAULT, 250, () => {
                this._pauseTimer = 0;
                this._refreshWords();
                return GLib.SOURCE_REMOVE;
            });
        }
    }

    _selectedExercise() {
        return this._exercises.find(e => e.name === this._selected) ?? this._exercises[0] ?? null;
    }

    _cycleExercise(step) {
        if (this._exercises.length < 2)
            return;
        const index = this._exercises.findIndex(e => e.name === this._selected);
        const next = (index + step + this._exercises.length) % this._exercises.length;
        this._selected = this._exercises[next].name;
        this._refreshExercise();
        this._refreshStatusLine();
    }

    _refreshExercise() {
        const form = this._form;
        if (!form)
            return;
        const exercise = this._selectedExercise();
        // The ▾ says "a menu": no word of any language, so not the translation's to keep.
        const text = exercise && fill(_('{exercise} · {time} a rep'),
            {exercise: exercise.name, time: durationText(exercise.perRepMs)});
        form.exercise.label = exercise ? `${text} ▾` : '';
        // With one exercise (or none known) there is nothing to choose.
        form.exercise.visible = this._exercises.length > 1;
    }

    _refreshStatusLine() {
        const form = this._form;
        if (!form)
            return;
        const preview = repsPreview(form.entry.get_text(), this._selectedExercise());
        const [text, tone] = form.message
            ?? (preview ? [preview, 'note'] : [_('Type your reps, then press Enter'), 'note']);
        form.status.text = text;
        for (const t of ['error', 'success', 'note'])
            form.status.remove_style_class_name(`blocker-message-${t}`);
        form.status.add_style_class_name(`blocker-message-${tone}`);
    }

    _setMessage(text, tone) {
        if (!this._form)
            return;
        this._form.message = [text, tone];
        this._refreshStatusLine();
    }

    _logReps() {
        const form = this._form;
        if (!form || this._busy)
            return;
        const {Gio, GLib} = this._d;
        const parsed = parseReps(form.entry.get_text());
        if (parsed.error) {
            this._setMessage(parsed.error, 'error');
            form.entry.clutter_text.set_selection(0, -1);
            return;
        }
        const exercise = this._selectedExercise()?.name ?? '';
        // EarnOnce: the same reps again after a timeout keep the request id
        // (blockerd may have credited them), so a retry is credited once.
        const request = `${parsed.reps} ${exercise}`;
        if (this._unanswered?.request !== request)
            this._unanswered = {request, id: GLib.uuid_string_random()};
        const requestId = this._unanswered.id;
        this._busy = true;
        form.entry.reactive = false;
        this._call('EarnOnce', new GLib.Variant('(ssu)', [requestId, exercise, parsed.reps]), '(xx)', (reply, error) => {
            this._busy = false;
            if (!error || (error instanceof GLib.Error && Gio.DBusError.is_remote_error(error)))
                this._unanswered = null; // blockerd answered
            if (this._form !== form)
                return; // the cover went (the earning lifted the shield)
            form.entry.reactive = true;
            if (error) {
                // "GDBus.Error:io.github.blockerd.Error.…: " is no news to the user.
                if (error instanceof GLib.Error && Gio.DBusError.is_remote_error(error))
                    Gio.DBusError.strip_remote_error(error);
                this._setMessage(error.message, 'error');
                form.entry.grab_key_focus();
                form.entry.clutter_text.set_selection(0, -1);
                return;
            }
            const [earned, balance] = reply;
            this._d.debug(`blocker: logged ${parsed.reps} ${exercise || 'reps'}: earned ${earned} ms`);
            this._setMessage(fill(_('Earned {earned} — balance {balance}'),
                {earned: durationText(Number(earned)), balance: durationText(Number(balance))}), 'success');
        });
    }
}
