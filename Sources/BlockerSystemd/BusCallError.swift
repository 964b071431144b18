import BlockerSystem

/// An error reply on the bus: its D-Bus error name and the human message.
/// Unlike `SystemdError` this is an answer, from the peer, the bus daemon,
/// or sd-bus itself for a timeout.
public struct BusErrorReply: Error, Equatable, Sendable, CustomStringConvertible {
    /// "org.freedesktop.DBus.Error.ServiceUnknown"…
    public var name: String
    public var message: String
    /// The errno sd-bus maps the name to (or the local failure's errno).
    public var errno: Errno

    public var description: String { "\(name): \(message)" }

    public init(name: String, message: String, errno: Errno = .ioError) {
        self.name = name
        self.message = message
        self.errno = errno
    }
}

/// How a method call can fail.
public enum BusCallError: Error, Equatable, Sendable, CustomStringConvertible {
    /// An error reply (from the peer, the bus daemon, or sd-bus itself for a timeout).
    case reply(BusErrorReply)
    /// A local failure before anything was sent or while reading the reply.
    case system(SystemdError)

    public var description: String {
        switch self {
        case let .reply(reply): reply.description
        case let .system(error): error.description
        }
    }
}
