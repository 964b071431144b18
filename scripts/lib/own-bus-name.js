// gjs own-bus-name.js NAME — a script that owns the bus name NAME on the
// session bus ($DBUS_SESSION_BUS_ADDRESS) and does nothing else, as any user
// can run one (issue 20, row 3: io.github.blockerd.Cover taken first).
// Prints "owned" once it has the name; runs until stopped.
const { Gio, GLib } = imports.gi;
Gio.bus_own_name(Gio.BusType.SESSION, ARGV[0], Gio.BusNameOwnerFlags.NONE, null, () => print("owned"), null);
new GLib.MainLoop(null, false).run();
