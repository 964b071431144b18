// gjs fake-screensaver.js — a FAKE org.freedesktop.ScreenSaver (what
// kscreenlocker provides on Plasma; it cannot lock a virtual KWin here) on
// $DBUS_SESSION_BUS_ADDRESS: GetActive() → b, and the ActiveChanged(b) signal.
// Lines on stdin "lock" / "unlock" change it; "owns" is printed once it has the name.
const { Gio, GLib } = imports.gi;
const bus = Gio.DBusConnection.new_for_address_sync(GLib.getenv("DBUS_SESSION_BUS_ADDRESS"),
    Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, null, null);
const name = "org.freedesktop.ScreenSaver", path = "/org/freedesktop/ScreenSaver";
let active = false;
const xml = `<node><interface name="${name}"><method name="GetActive"><arg type="b" direction="out"/></method>
  <signal name="ActiveChanged"><arg type="b"/></signal></interface></node>`;
bus.register_object(path, Gio.DBusNodeInfo.new_for_xml(xml).interfaces[0],
    (c, sender, p, i, method, params, invocation) => invocation.return_value(new GLib.Variant("(b)", [active])), null, null);
Gio.bus_own_name_on_connection(bus, name, Gio.BusNameOwnerFlags.NONE, () => print("owns"), () => imports.system.exit(1));
const input = new Gio.DataInputStream({ base_stream: new Gio.UnixInputStream({ fd: 0 }) });
function readLine() {
    input.read_line_async(GLib.PRIORITY_DEFAULT, null, (stream, result) => {
        const [line] = stream.read_line_finish_utf8(result);
        if (line === null) { loop.quit(); return; }
        active = line.trim() === "lock";
        bus.emit_signal(null, path, name, "ActiveChanged", new GLib.Variant("(b)", [active]));
        print(active ? "locked" : "unlocked");
        readLine();
    });
}
const loop = new GLib.MainLoop(null, false);
readLine();
loop.run();
