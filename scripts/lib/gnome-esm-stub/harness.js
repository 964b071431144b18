// The stub tests' common helpers (run-stub-test.js, run-driver-stub-test.js):
// their verdicts, waiting on the main loop, and a second connection to the
// private session bus ($DBUS_SESSION_BUS_ADDRESS) that plays the other side.
import Gio from 'gi://Gio';
import GLib from 'gi://GLib';
import System from 'system';

export function fail(message) {
    printerr(`FAIL: ${message}`);
    System.exit(1);
}

export function ok(message) {
    print(`ok: ${message}`);
}

/** Resolves once CONDITION() holds (polled every 20 ms); fails after MS. */
export function until(condition, ms, what) {
    return new Promise(resolve => {
        const deadline = GLib.get_monotonic_time() + ms * 1000;
        GLib.timeout_add(GLib.PRIORITY_DEFAULT, 20, () => {
            if (condition()) {
                resolve();
                return GLib.SOURCE_REMOVE;
            }
            if (GLib.get_monotonic_time() > deadline)
                fail(`timed out: ${what}`);
            return GLib.SOURCE_CONTINUE;
        });
    });
}

export const pause = ms => new Promise(resolve => GLib.timeout_add(GLib.PRIORITY_DEFAULT, ms, () => resolve()));

/** A connection of the test's own to the session bus (not the extension's Gio.DBus.session). */
export function otherConnection() {
    return Gio.DBusConnection.new_for_address_sync(GLib.getenv('DBUS_SESSION_BUS_ADDRESS'),
        Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, null, null);
}

/** The bus daemon answers this, not our main loop: a sync call is safe here. */
export function hasOwner(connection, name) {
    return connection.call_sync('org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus', 'NameHasOwner',
        new GLib.Variant('(s)', [name]), null, Gio.DBusCallFlags.NONE, 2000, null).deepUnpack()[0];
}

/** An async call (the callee may be this process, whose loop must keep running): the reply unpacked, or throws. */
export function call(connection, dest, path, iface, method, parameters) {
    return new Promise((resolve, reject) => {
        connection.call(dest, path, iface, method, parameters, null, Gio.DBusCallFlags.NONE, 3000, null,
            (c, result) => {
                try {
                    resolve(c.call_finish(result).deepUnpack());
                } catch (e) {
                    reject(e);
                }
            });
    });
}
