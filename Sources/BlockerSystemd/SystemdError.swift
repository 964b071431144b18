import Glibc

/// A libsystemd call failed: the negative errno it returned (sd-bus, sd-event
/// and sd-journal all report failure this way).
public struct SystemdError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The libsystemd function that failed ("sd_bus_start").
    public let call: String
    /// The positive errno (`ECONNREFUSED`…).
    public let errno: Int32

    public var description: String { "\(call): \(String(cString: strerror(errno)))" }

    public init(call: String, errno: Int32) {
        self.call = call
        self.errno = errno
    }

    /// Passes a non-negative result through; a negative one is `-errno`.
    @discardableResult
    static func check(_ result: Int32, _ call: String) throws(SystemdError) -> Int32 {
        if result < 0 { throw SystemdError(call: call, errno: -result) }
        return result
    }
}
