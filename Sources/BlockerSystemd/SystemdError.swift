import BlockerSystem

/// A libsystemd call failed: the negative errno it returned (sd-bus, sd-event
/// and sd-journal all report failure this way).
public struct SystemdError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The libsystemd function that failed ("sd_bus_start").
    public let call: String
    /// What failed (`ECONNREFUSED`…).
    public let errno: Errno

    public var description: String { "\(call): \(errno)" }

    public init(call: String, errno: Errno) {
        self.call = call
        self.errno = errno
    }

    /// `call` returned `result`, a negative errno.
    init(call: String, returned result: Int32) {
        self.init(call: call, errno: Errno(rawValue: -result))
    }

    /// Passes a non-negative result through; a negative one is `-errno`.
    @discardableResult
    static func check(_ result: Int32, _ call: String) throws(SystemdError) -> Int32 {
        if result < 0 { throw SystemdError(call: call, returned: result) }
        return result
    }
}
