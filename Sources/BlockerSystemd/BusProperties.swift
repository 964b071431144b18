/// `org.freedesktop.DBus.Properties`, as a client reads and follows another
/// service's properties.
public enum BusProperties {
    public static let interface = "org.freedesktop.DBus.Properties"

    /// A `PropertiesChanged(s interface, a{sv} changed, as invalidated)` signal:
    /// `changed` carries new values; `invalidated` names properties that
    /// changed without their value, to be read again.
    public struct Change: Equatable, Sendable {
        public var interface: String
        public var changed: [String: BusValue]
        public var invalidated: [String]

        public init(interface: String, changed: [String: BusValue], invalidated: [String]) {
            self.interface = interface
            self.changed = changed
            self.invalidated = invalidated
        }

        /// Reads the signal's arguments; nil when they are not `sa{sv}as`.
        public init?(_ message: BusMessage) {
            guard let interface = try? message.readString(), let changed = try? message.readDictionary(),
                  let invalidated = try? message.readStrings() else { return nil }
            self.init(interface: interface, changed: changed, invalidated: invalidated)
        }
    }
}

extension BusConnection {
    /// `Properties.GetAll(interface)` of `path` at `destination`; values of
    /// types `BusValue` does not know are left out.
    public func allProperties(destination: String, path: String, interface: String,
                              timeoutMicroseconds: UInt64, autoStart: Bool = false) throws(BusCallError)
        -> [String: BusValue] {
        let message = try methodCall(destination: destination, path: path, interface: BusProperties.interface,
                                     member: "GetAll", autoStart: autoStart)
        do throws(SystemdError) { try message.append(interface) } catch { throw .system(error) }
        let reply = try call(message, timeoutMicroseconds: timeoutMicroseconds)
        do throws(SystemdError) { return try reply.readDictionary() } catch { throw .system(error) }
    }

    /// Calls `handler` on each PropertiesChanged of `interface` at `path`
    /// sent by `sender`, until the subscription is released.
    public func onPropertiesChanged(sender: String, path: String, interface: String,
                                    handler: @escaping (BusProperties.Change) -> Void) throws(SystemdError)
        -> BusSubscription {
        let rule = BusMatchRule(sender: sender, path: path, interface: BusProperties.interface,
                                member: "PropertiesChanged", arg0: interface)
        return try subscribe(rule) { message in
            if let change = BusProperties.Change(message) { handler(change) }
        }
    }
}
