// gjs -m run-stub-test.js STUB.gresource EXTENSION_DIR — the GNOME 45+ (ES
// module) entry point of blocker's extension, loaded against a STUB shell:
// GNOME 45+ cannot run here. resource:///org/gnome/shell/{ui/main.js,
// extensions/extension.js} come from the stub GResource registered first;
// gi:// are the real libraries; `global` is a stub display; D-Bus is a real
// private bus ($DBUS_SESSION_BUS_ADDRESS) where this script plays blockerd's
// io.github.blockerd.Focus on a connection of its own and records each Report.
// Checks: core.js's English words are BlockerCore's; enable() hands core.js
// the extension's text domain (metadata.json's gettext-domain, the installed
// locale/: French with LANGUAGE=fr), reports through core.js on the name's
// appearance, on focus and title changes (not the old window's), owns
// io.github.blockerd.Cover; disable() lets every signal and name go. Prints
// "ok: …" lines; exit 1 on failure. Run with LANG=C.UTF-8 (LANGUAGE counts
// for no "C" locale).
import Gio from 'gi://Gio';
import GLib from 'gi://GLib';
import {fail, ok, until, pause, otherConnection, hasOwner} from './harness.js';

const [resourcePath, extensionDir] = ARGV;
Gio.resources_register(Gio.Resource.load(resourcePath));
// Static imports of the stubs cannot come before the registration: loaded in run().
let StubSignals, Main;

// blockerd's side of Focus1, recording.
const reports = [];
const blockerd = otherConnection();
const focusXML = `<node><interface name="io.github.blockerd.Focus1">
  <method name="Report"><arg type="a{sv}" name="focus" direction="in"/></method></interface></node>`;
const recorder = Gio.DBusExportedObject.wrapJSObject(focusXML, {
    Report(focus) {
        reports.push(focus);
    },
});
recorder.export(blockerd, '/io/github/blockerd/Focus');

const loop = new GLib.MainLoop(null, false);
const last = () => reports[reports.length - 1];
const text = (report, key) => report[key]?.deepUnpack();

async function run() {
    ({StubSignals} = await import('resource:///org/gnome/shell/ui/signals.js'));
    Main = await import('resource:///org/gnome/shell/ui/main.js');
    class StubWindow extends StubSignals {
        constructor(fields) {
            super();
            Object.assign(this, fields);
        }

        get_gtk_application_id() { return this.appId ?? null; }
        get_sandboxed_app_id() { return null; }
        get_wm_class() { return this.wmClass; }
        get_wm_class_instance() { return this.wmClass; }
        get_title() { return this.title; }
        get_pid() { return this.pid; }
    }

    const one = new StubWindow({appId: 'org.example.One', wmClass: 'one', title: 'one', pid: 4242});
    const two = new StubWindow({wmClass: 'two', title: 'two', pid: 4343});
    const display = Object.assign(new StubSignals(), {focus_window: one});
    globalThis.global = {display, stage: {width: 1280, height: 800}};

    const core = await import(`file://${extensionDir}/core.js`);
    // The words, as BlockerCore's DurationText / ShieldText / RepsInput say them.
    const words = [
        [core.durationText(0), '0s'], [core.durationText(45_000), '45s'], [core.durationText(605_000), '10m 05s'],
        [core.durationText(3_900_000), '1h 05m'], [core.durationText(93_600_000), '1d 02h'],
        [core.reasonText({reason: 'balance', until_ms: 0}, 0, null), 'Out of earned time'],
        [core.reasonText({reason: 'daily-limit', group: 'social', until_ms: 0}, 0, null), 'Daily limit for social reached'],
        [core.reasonText({reason: 'schedule', until_ms: 3_600_000}, 0, () => ({weekday: 5, hour: 7, minute: 0})), 'Bedtime until 07:00'],
        [core.reasonText({reason: 'timed-block', until_ms: 90_000_000}, 0, () => ({weekday: 5, hour: 9, minute: 5})), 'Blocked until Fri 09:05'],
        [core.parseReps(' 20 ').reps, 20], [core.parseReps('').error, 'Type how many reps you did, then press Enter'],
        [core.parseReps('0').error, 'Reps go from 1 to 1000'], [core.parseReps('1001').error, 'Reps go from 1 to 1000'],
        [core.parseReps('ten').error, '“ten” is not a number of reps — type digits, like 20'],
        [core.repsPreview('20', {name: 'pushups', perRepMs: 30_000}), '20 pushups earn 10m 00s'],
        // OverlayModel: a site shield is the browser extension's to cover, not the window's.
        [core.coversWindow(core.shieldFrom({active: true, app: 'chromium'})), true],
        [core.coversWindow(core.shieldFrom({active: true, app: 'chromium', site: 'youtube.com'})), false],
        [core.coversWindow(core.shieldFrom({active: false, app: 'chromium'})), false],
        // PassText, and OverlayModel's offer: a group's shield with a pass left, never on a pause.
        [core.passOffer(1), 'Use a pass · 1 left this week'],
        [core.passUsed(3_600_000, 0, () => ({weekday: 5, hour: 14, minute: 50})), 'Pass used: open until 14:50'],
        [core.coverCard(core.shieldFrom({active: true, app: 'discord', reason: 'timed-block', group: 'social', passes_left: 2}),
            0, 0, () => ({weekday: 5, hour: 9, minute: 5})).pass?.label, 'Use a pass · 2 left this week'],
        [core.coverCard(core.shieldFrom({active: true, app: 'discord', reason: 'balance', group: 'social'}), 0, 0, null).pass, null],
        [core.coverCard(core.shieldFrom({active: true, app: 'discord', reason: 'pause', group: 'social', passes_left: 1,
            until_ms: 5000}), 0, 0, () => ({weekday: 5, hour: 9, minute: 5})).pass, null],
    ];
    for (const [got, want] of words)
        if (got !== want)
            fail(`core.js says "${got}", BlockerCore says "${want}"`);
    ok(`core.js words match BlockerCore's (${words.length} cases)`);

    const {default: BlockerExtension} = await import(`file://${extensionDir}/extension.js`);
    const [, json] = GLib.file_get_contents(`${extensionDir}/metadata.json`);
    const extension = new BlockerExtension({...JSON.parse(new TextDecoder().decode(json)), path: extensionDir});
    extension.enable();
    // From here on core.js speaks the installed French. Set once: glibc keeps
    // a text it has translated, whatever LANGUAGE says later.
    GLib.setenv('LANGUAGE', 'fr', true);
    const friday = () => ({weekday: 5, hour: 9, minute: 5, weekdayName: 'ven.'});
    const french = [
        [core.reasonText({reason: 'balance', until_ms: 0}, 0, null), 'Temps gagné épuisé'],
        [core.reasonText({reason: 'timed-block', until_ms: 90_000_000}, 0, friday), "Bloqué jusqu'à ven. 09:05"],
        [core.reasonText({reason: 'daily-limit', group: 'social', until_ms: 0}, 0, null), 'Limite quotidienne atteinte pour social'],
        [core.durationText(3_900_000), '1h 05m'],
        [core.passOffer(1), 'Utiliser un pass · 1 restant cette semaine'],
        [core.passOffer(2), 'Utiliser un pass · 2 restants cette semaine'],
        [core.parseReps('0').error, 'Les répétitions vont de 1 à 1000'],
    ];
    for (const [got, want] of french)
        if (got !== want)
            fail(`core.js says "${got}" in French, not "${want}"`);
    ok(`enable(): core.js speaks the extension's text domain (${french.length} French cases from locale/fr, plural forms too)`);
    // blockerd takes its name after the extension started: a report follows.
    Gio.bus_own_name_on_connection(blockerd, 'io.github.blockerd.Focus', Gio.BusNameOwnerFlags.NONE, null, null);
    await until(() => reports.length >= 1, 3000, 'a report when io.github.blockerd.Focus appeared');
    const first = last();
    if (text(first, 'focused') !== true || text(first, 'app-id') !== 'org.example.One' || text(first, 'title') !== 'one' ||
        first.pid.get_type_string() !== 'i' || text(first, 'pid') !== 4242 || text(first, 'locked') !== false)
        fail(`first report: ${JSON.stringify(Object.keys(first).map(k => [k, first[k].print(true)]))}`);
    ok('enable(): the name appeared → Report {focused, app-id org.example.One, title, pid (i), locked false}');
    await until(() => hasOwner(blockerd, 'io.github.blockerd.Cover'), 2000, 'io.github.blockerd.Cover owned while enabled');
    ok('enable(): owns io.github.blockerd.Cover');

    display.focus_window = two;
    display.emit('notify::focus-window');
    await until(() => reports.length >= 2, 2000, 'a report on the focus change');
    if (text(last(), 'wm-class') !== 'two' || last()['app-id'] !== undefined)
        fail(`focus report: wm-class ${text(last(), 'wm-class')}, app-id ${text(last(), 'app-id')}`);
    if (one.handlerCount !== 0)
        fail(`the old window still has ${one.handlerCount} handler(s)`);
    one.title = 'one again';
    one.emit('notify::title');
    two.title = 'two b';
    two.emit('notify::title');
    two.emit('notify::title');
    await until(() => reports.length >= 3, 2000, 'a report on the title change');
    await pause(200);
    if (reports.length !== 3 || text(last(), 'title') !== 'two b')
        fail(`after the title changes: ${reports.length} reports, title ${text(last(), 'title')}`);
    ok('focus change → a report; the new window\'s title → one report for two changes; the old window is let go');

    display.focus_window = null;
    display.emit('notify::focus-window');
    await until(() => reports.length >= 4, 2000, 'a report with nothing in front');
    if (text(last(), 'focused') !== false)
        fail('nothing in front was not reported as focused: false');
    ok('nothing in front → focused: false');

    extension.disable();
    await until(() => !hasOwner(blockerd, 'io.github.blockerd.Cover'), 2000, 'io.github.blockerd.Cover released at disable()');
    for (const [what, object] of [['display', display], ['sessionMode', Main.sessionMode], ['layoutManager', Main.layoutManager], ['window', two]])
        if (object.handlerCount !== 0)
            fail(`disable() left ${object.handlerCount} handler(s) on the ${what}`);
    display.focus_window = one;
    display.emit('notify::focus-window');
    await pause(300);
    if (reports.length !== 4)
        fail('a report after disable()');
    ok('disable(): io.github.blockerd.Cover released, every signal disconnected, no report after');
}

run().then(() => loop.quit(), e => fail(`${e}\n${e.stack}`));
loop.run();
