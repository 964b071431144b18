import Glibc

/// Where the buses are, from an environment the caller passes in (this never
/// reads the process environment itself), as sd_bus_open_user/_system would.
public enum BusAddress {
    /// `DBUS_SESSION_BUS_ADDRESS`, else `unix:path=` and the escaped
    /// `$XDG_RUNTIME_DIR/bus` when that socket exists; nil when neither.
    public static func session(environment: [String: String]) -> String? {
        if let address = environment["DBUS_SESSION_BUS_ADDRESS"], !address.isEmpty { return address }
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/"),
           access(runtime + "/bus", F_OK) == 0 {
            return "unix:path=" + escape(runtime + "/bus")
        }
        return nil
    }

    /// `DBUS_SYSTEM_BUS_ADDRESS`, else the well-known system bus socket.
    public static func system(environment: [String: String]) -> String {
        if let address = environment["DBUS_SYSTEM_BUS_ADDRESS"], !address.isEmpty { return address }
        return "unix:path=/run/dbus/system_bus_socket"
    }

    /// D-Bus address values escape every byte outside [-0-9A-Za-z_/.\*] as %XX
    /// (a ',' or ';' in a path would otherwise end the value).
    public static func escape(_ value: String) -> String {
        var out = ""
        for byte in value.utf8 {
            let c = Character(Unicode.Scalar(byte))
            if c.isASCII && (c.isLetter || c.isNumber || "-_/.\\*".contains(c)) {
                out.append(c)
            } else {
                let hex = String(byte, radix: 16, uppercase: true)
                out += "%" + (hex.count < 2 ? "0" + hex : hex)
            }
        }
        return out
    }
}
