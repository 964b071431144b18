import CSystemd

/// A D-Bus match rule for signals: every field that is set must match.
/// `sender` may be a well-known name (the bus daemon resolves it).
public struct BusMatchRule: Equatable, Sendable {
    public var sender: String?
    public var path: String?
    public var interface: String?
    public var member: String?
    /// The first argument, when it is a string (NameOwnerChanged's name,
    /// PropertiesChanged's interface).
    public var arg0: String?

    public init(sender: String? = nil, path: String? = nil, interface: String? = nil,
                member: String? = nil, arg0: String? = nil) {
        self.sender = sender
        self.path = path
        self.interface = interface
        self.member = member
        self.arg0 = arg0
    }

    /// The rule as AddMatch takes it: `type='signal',sender='…',…`.
    public var text: String {
        let fields: [(String, String?)] = [("sender", sender), ("path", path), ("interface", interface),
                                           ("member", member), ("arg0", arg0)]
        return (["type='signal'"] + fields.compactMap { key, value in value.map { "\(key)=\(Self.quote($0))" } })
            .joined(separator: ",")
    }

    /// Values are in single quotes; a quote itself is written '\'' as in a shell.
    static func quote(_ value: String) -> String {
        "'" + value.replacingAll("'", with: "'\\''") + "'"
    }
}

/// A signal match; removed when released.
public final class BusSubscription {
    fileprivate var slot: OpaquePointer?
    fileprivate let handler: (BusMessage) -> Void

    fileprivate init(handler: @escaping (BusMessage) -> Void) {
        self.handler = handler
    }

    deinit {
        sd_bus_slot_unref(slot)
    }
}

extension BusConnection {
    /// Calls `handler` for each signal matching `rule` (also installed on the
    /// bus daemon, synchronously) until the subscription is released.
    public func subscribe(_ rule: BusMatchRule, handler: @escaping (BusMessage) -> Void) throws(SystemdError)
        -> BusSubscription {
        let subscription = BusSubscription(handler: handler)
        var slot: OpaquePointer?
        try SystemdError.check(
            sd_bus_add_match(bus, &slot, rule.text, { message, userdata, _ in
                Unmanaged<BusSubscription>.fromOpaque(userdata!).takeUnretainedValue()
                    .handler(BusMessage(retaining: message!))
                return 0
            }, Unmanaged.passUnretained(subscription).toOpaque()),
            "sd_bus_add_match")
        subscription.slot = slot
        return subscription
    }

    /// Calls `handler` for each matching signal until the subscription is released.
    public func matchSignal(sender: String?, path: String?, interface: String?, member: String?,
                            handler: @escaping (BusMessage) -> Void) throws(SystemdError) -> BusSubscription {
        try subscribe(BusMatchRule(sender: sender, path: path, interface: interface, member: member), handler: handler)
    }

    /// Calls `handler` once when the connection is lost (sd-bus delivers a
    /// local `org.freedesktop.DBus.Local.Disconnected` signal then): the bus
    /// daemon went away, and nothing on this connection will ever work again.
    public func onDisconnect(_ handler: @escaping () -> Void) throws(SystemdError) -> BusSubscription {
        try matchSignal(sender: nil, path: "/org/freedesktop/DBus/Local", interface: "org.freedesktop.DBus.Local",
                        member: "Disconnected") { _ in handler() }
    }

    /// Calls `handler` on every NameOwnerChanged of `name` with its new owner
    /// ("" when it left the bus).
    public func watchOwner(of name: String, handler: @escaping (_ newOwner: String) -> Void) throws(SystemdError)
        -> BusSubscription {
        let rule = BusMatchRule(sender: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                interface: "org.freedesktop.DBus", member: "NameOwnerChanged", arg0: name)
        return try subscribe(rule) { message in
            guard (try? message.readString()) != nil, (try? message.readString()) != nil,
                  let owner = try? message.readString() else { return }
            handler(owner)
        }
    }
}

extension String {
    fileprivate func replacingAll(_ target: Character, with replacement: String) -> String {
        var out = ""
        for c in self { if c == target { out += replacement } else { out.append(c) } }
        return out
    }
}
