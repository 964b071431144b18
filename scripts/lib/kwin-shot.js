// gjs kwin-shot.js OUT.bgra — KWin's own screenshot (org.kde.KWin.ScreenShot2
// CaptureWorkspace) of every output, as raw pixels into OUT.bgra; prints
// "WIDTH HEIGHT STRIDE" once KWin has written them all. KWin writes into the
// descriptor it is given from a thread of its own, after it answered.
// KWin refuses callers without a desktop file granting the interface unless
// it runs with KWIN_WAYLAND_NO_PERMISSION_CHECKS=1 (scripts/itest-kde.sh does).
const { Gio, GLib } = imports.gi;

const out = ARGV[0];
const bus = Gio.DBusConnection.new_for_address_sync(GLib.getenv("DBUS_SESSION_BUS_ADDRESS"),
    Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, null, null);
const file = Gio.File.new_for_path(out);
const target = file.replace(null, false, Gio.FileCreateFlags.NONE, null);
const descriptors = new Gio.UnixFDList();
descriptors.append(target.get_fd());
const loop = new GLib.MainLoop(null, false);
let answer = null;
let failure = null;
bus.call_with_unix_fd_list("org.kde.KWin.ScreenShot2", "/org/kde/KWin/ScreenShot2", "org.kde.KWin.ScreenShot2",
    "CaptureWorkspace", new GLib.Variant("(a{sv}h)", [{ "native-resolution": new GLib.Variant("b", true) }, 0]),
    null, Gio.DBusCallFlags.NONE, 10000, descriptors, null, (connection, result) => {
        try { [answer] = connection.call_with_unix_fd_list_finish(result); } catch (e) { failure = e; }
        loop.quit();
    });
loop.run();
target.close(null);
if (failure) {
    printerr(`kwin-shot: KWin refused the screenshot: ${failure.message}`);
    imports.system.exit(1);
}
const meta = answer.deep_unpack()[0];
const [width, height, stride] = ["width", "height", "stride"].map(key => meta[key].deep_unpack());
const size = stride * height;
for (let waited = 0; ; waited += 20) {
    if (file.query_info("standard::size", Gio.FileQueryInfoFlags.NONE, null).get_size() >= size) break;
    if (waited > 5000) {
        printerr(`kwin-shot: KWin wrote less than ${size} bytes in 5 s`);
        imports.system.exit(1);
    }
    GLib.usleep(20000);
}
print(`${width} ${height} ${stride}`);
