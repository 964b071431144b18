import BlockerSystemd

// What a declaration in `BlockerInterface` is made of: a method or a signal,
// its arguments, and how a reply that does not read as declared fails.

/// An argument, a result or a signal field: its name for introspection and its D-Bus type.
public struct BusArgument: Equatable, Sendable {
    public let name: String
    public let type: String
    public init(_ name: String, _ type: String) { self.name = name; self.type = type }
}

/// A reply or signal that does not read as declared (another blocker version, most likely).
public struct WireMismatch: Error, Sendable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
    init(_ error: SystemdError) { description = "\(error)" }

    /// An `a{sv}` decoded by `decode`; when it does not fit, the keys it had.
    static func readDictionary<T>(_ message: BusMessage,
                                  _ decode: ([String: BusValue]) -> T?) throws(WireMismatch) -> T {
        let entries: [String: BusValue]
        do throws(SystemdError) { entries = try message.readDictionary() } catch { throw WireMismatch(error) }
        guard let value = decode(entries) else {
            throw WireMismatch("keys: \(entries.keys.sorted().joined(separator: ", "))")
        }
        return value
    }
}

/// One method of the interface.
public struct BlockerMethod<Arguments, Reply>: Sendable {
    public let member: String
    public let inputs: [BusArgument]
    public let outputs: [BusArgument]
    let writeArguments: @Sendable (Arguments, BusMessage) throws(SystemdError) -> Void
    let readArguments: @Sendable (BusMessage) throws(SystemdError) -> Arguments
    /// The bounds, checked by blockerd before `perform`: nil when the arguments are fine.
    let check: @Sendable (Arguments) -> MethodError?
    let perform: @Sendable (any BlockerMethods, Arguments) throws(MethodError) -> Reply
    let writeReply: @Sendable (Reply, BusMessage) throws(SystemdError) -> Void
    let readReply: @Sendable (BusMessage) throws(WireMismatch) -> Reply

    public var spec: BusMethodSpec {
        BusMethodSpec(member: member, signature: inputs.map(\.type).joined(),
                      parameterNames: inputs.map(\.name).joined(separator: ","),
                      result: outputs.map(\.type).joined(), resultNames: outputs.map(\.name).joined(separator: ","))
    }

    /// Whether blockerd would refuse `arguments` before looking at them (the CLI asks before calling).
    public func refusal(of arguments: Arguments) -> MethodError? { check(arguments) }

    /// How blockerd answers a call: read, check, perform, write the reply.
    var route: MethodRoute {
        MethodRoute(spec: spec) { (call: BusMessage, reply: BusMessage, handler: any BlockerMethods) throws(MethodError) in
            let arguments: Arguments
            // sd-bus checked the signature before calling us: a failure here is ours.
            do throws(SystemdError) { arguments = try readArguments(call) } catch { throw .internalError("\(member): \(error)") }
            if let refusal = check(arguments) { throw refusal }
            let result = try perform(handler, arguments)
            do throws(SystemdError) { try writeReply(result, reply) } catch { throw .internalError("\(member): \(error)") }
        }
    }
}

/// A method as the exported object serves it, its types erased.
struct MethodRoute: Sendable {
    let spec: BusMethodSpec
    let answer: @Sendable (_ call: BusMessage, _ reply: BusMessage, _ handler: any BlockerMethods) throws(MethodError) -> Void
}

/// One signal of the interface.
public struct BlockerSignal<Payload>: Sendable {
    public let member: String
    public let fields: [BusArgument]
    let write: @Sendable (Payload, BusMessage) throws(SystemdError) -> Void
    let read: @Sendable (BusMessage) throws(WireMismatch) -> Payload

    public var spec: BusSignalSpec {
        BusSignalSpec(member: member, signature: fields.map(\.type).joined(),
                      parameterNames: fields.map(\.name).joined(separator: ","))
    }
}
