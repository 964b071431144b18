import CBusShim
import BlockerSystem
import CSystemd
import Glibc

/// A method of an exported interface. Names are comma-separated parameter
/// names for introspection ("exercise,reps").
public struct BusMethodSpec: Sendable {
    public var member: String
    public var signature: String
    public var parameterNames: String
    public var result: String
    public var resultNames: String

    public init(member: String, signature: String, parameterNames: String, result: String, resultNames: String) {
        self.member = member
        self.signature = signature
        self.parameterNames = parameterNames
        self.result = result
        self.resultNames = resultNames
    }
}

/// A signal of an exported interface.
public struct BusSignalSpec: Sendable {
    public var member: String
    public var signature: String
    public var parameterNames: String

    public init(member: String, signature: String, parameterNames: String) {
        self.member = member
        self.signature = signature
        self.parameterNames = parameterNames
    }
}

extension BusConnection {
    /// Serves `interface` at `path`. Every method lands in `handler`, which
    /// tells them apart by `BusMessage.member` and returns the reply or an
    /// error. The export lasts as long as the returned object.
    public func export(path: String, interface: String, methods: [BusMethodSpec], signals: [BusSignalSpec],
                       handler: @escaping (BusMessage) -> Result<BusMessage, BusErrorReply>) throws(SystemdError)
        -> BusExport {
        var owned: [UnsafeMutablePointer<CChar>] = []
        defer { owned.forEach { free($0) } }
        func c(_ text: String) -> UnsafePointer<CChar> {
            let copy = strdup(text)!
            owned.append(copy)
            return UnsafePointer(copy)
        }
        let methodEntries = methods.map {
            bus_shim_method(member: c($0.member), signature: c($0.signature), in_names: c($0.parameterNames),
                            result: c($0.result), out_names: c($0.resultNames), flags: bus_shim_flag_unprivileged)
        }
        let signalEntries = signals.map {
            bus_shim_signal(member: c($0.member), signature: c($0.signature), names: c($0.parameterNames), flags: 0)
        }
        let vtable = bus_shim_vtable_new(methodEntries, methodEntries.count, signalEntries, signalEntries.count) {
            message, userdata, error in
            let export = Unmanaged<BusExport>.fromOpaque(userdata!).takeUnretainedValue()
            return export.dispatch(BusMessage(retaining: message!), error: error!)
        }
        guard let vtable else { throw SystemdError(call: "bus_shim_vtable_new", errno: .noMemory) }
        let export = BusExport(vtable: vtable, handler: handler)
        var slot: OpaquePointer?
        try SystemdError.check(sd_bus_add_object_vtable(bus, &slot, path, interface, vtable,
                                                        Unmanaged.passUnretained(export).toOpaque()),
                               "sd_bus_add_object_vtable")
        export.slot = slot
        return export
    }
}

/// An exported object; unexported when released.
public final class BusExport {
    private let vtable: UnsafeMutablePointer<sd_bus_vtable>
    fileprivate var slot: OpaquePointer?
    private let handler: (BusMessage) -> Result<BusMessage, BusErrorReply>

    fileprivate init(vtable: UnsafeMutablePointer<sd_bus_vtable>,
                     handler: @escaping (BusMessage) -> Result<BusMessage, BusErrorReply>) {
        self.vtable = vtable
        self.handler = handler
    }

    deinit {
        // The slot first: sd-bus reads the vtable until it is gone.
        sd_bus_slot_unref(slot)
        bus_shim_vtable_free(vtable)
    }

    /// Returns what sd-bus expects of a method handler: 1 when the reply was
    /// sent, or a negative errno with `error` set, which sd-bus sends as the reply.
    fileprivate func dispatch(_ call: BusMessage, error: UnsafeMutablePointer<sd_bus_error>) -> Int32 {
        switch handler(call) {
        case let .success(reply):
            let r = sd_bus_send(nil, reply.raw, nil)
            return r < 0 ? r : 1
        case let .failure(failure):
            return sd_bus_error_set(error, failure.name, failure.message)
        }
    }
}
