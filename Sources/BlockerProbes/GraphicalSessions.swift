import BlockerCore
import BlockerSystemd

/// The user's graphical sessions logind has now, for the unguarded part of a
/// gap (see `Unguarded`): one `ListSessions`, then `GetAll` of each of the
/// user's sessions. Asked once per start, so it opens its own connection.
public enum GraphicalSessions {
    /// A service that does not answer within this long counts as missing.
    static let callTimeoutUs: UInt64 = 1_000_000

    /// When (on the wall clock) each graphical session of `uid` began, or why logind
    /// could not say (no system bus, no logind): one line for the log.
    public static func starts(uid: UInt32, environment: [String: String]) -> Result<[WallInstant], Unavailable> {
        let address = BusAddress.system(environment: environment)
        let bus: BusConnection
        do { bus = try BusConnection(address: address) } catch {
            return .failure(Unavailable("cannot connect to the system bus at \(address): \(error)"))
        }
        do throws(BusCallError) {
            let call = try bus.methodCall(destination: "org.freedesktop.login1", path: "/org/freedesktop/login1",
                                          interface: "org.freedesktop.login1.Manager", member: "ListSessions",
                                          autoStart: true)
            let reply = try bus.call(call, timeoutMicroseconds: callTimeoutUs)
            // a(susso): id, uid, user name, seat, object path.
            let sessions: [(uid: UInt32, path: String)]
            do throws(SystemdError) {
                sessions = try reply.readArray(of: "(susso)") { () throws(SystemdError) in
                    try reply.readStruct("susso") { () throws(SystemdError) in
                        _ = try reply.readString()
                        let owner = try reply.readUInt32()
                        _ = try reply.readString()
                        _ = try reply.readString()
                        return (owner, try reply.readObjectPath())
                    }
                }
            } catch { throw .system(error) }
            var starts: [WallInstant] = []
            for session in sessions where session.uid == uid {
                let values = try bus.allProperties(destination: "org.freedesktop.login1", path: session.path,
                                                   interface: "org.freedesktop.login1.Session",
                                                   timeoutMicroseconds: callTimeoutUs, autoStart: true)
                guard case let .string(type)? = values["Type"], case let .string(sessionClass)? = values["Class"],
                      case let .uint64(createdUs)? = values["Timestamp"] else { continue }
                let state: String
                if case let .string(text)? = values["State"] { state = text } else { state = "" }
                if Unguarded.isGraphical(type: type, sessionClass: sessionClass, state: state) {
                    // logind's Timestamp: unix µs.
                    starts.append(WallInstant(ms: Int64(clamping: createdUs / 1000)))
                }
            }
            return .success(starts)
        } catch {
            return .failure(Unavailable("logind (org.freedesktop.login1) did not list the sessions: \(error)"))
        }
    }

    public struct Unavailable: Error, CustomStringConvertible, Sendable {
        public let description: String
        public init(_ description: String) { self.description = description }
    }
}
