import Glibc

/// A C error number, as swift-system's `Errno`: what a failed system call
/// left in `errno`, kept as a value so it can be thrown, compared and printed.
public struct Errno: RawRepresentable, Error, Hashable, Sendable, CustomStringConvertible {
    /// The corresponding C value is `errno`.
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// The calling thread's `errno` now: read it right after the failed call.
    public static var current: Errno { Errno(rawValue: errno) }

    /// strerror(3): "No such file or directory".
    public var description: String {
        guard let message = strerror(rawValue) else { return "errno \(rawValue)" }
        return String(cString: message)
    }

    /// The corresponding C error is `EINTR`.
    public static var interrupted: Errno { Errno(rawValue: EINTR) }
    /// The corresponding C error is `ENOENT`.
    public static var noSuchFileOrDirectory: Errno { Errno(rawValue: ENOENT) }
    /// The corresponding C error is `ENOTDIR`.
    public static var notDirectory: Errno { Errno(rawValue: ENOTDIR) }
    /// The corresponding C error is `EISDIR`.
    public static var isDirectory: Errno { Errno(rawValue: EISDIR) }
    /// The corresponding C error is `EACCES`.
    public static var permissionDenied: Errno { Errno(rawValue: EACCES) }
    /// The corresponding C error is `EAGAIN` (also `EWOULDBLOCK` on Linux).
    public static var wouldBlock: Errno { Errno(rawValue: EAGAIN) }
    /// The corresponding C error is `EPIPE`.
    public static var brokenPipe: Errno { Errno(rawValue: EPIPE) }
    /// The corresponding C error is `ECONNRESET`.
    public static var connectionReset: Errno { Errno(rawValue: ECONNRESET) }
    /// The corresponding C error is `ENOTCONN`.
    public static var notConnected: Errno { Errno(rawValue: ENOTCONN) }
    /// The corresponding C error is `EINVAL`.
    public static var invalidArgument: Errno { Errno(rawValue: EINVAL) }
    /// The corresponding C error is `EIO`.
    public static var ioError: Errno { Errno(rawValue: EIO) }
    /// The corresponding C error is `EPERM`.
    public static var notPermitted: Errno { Errno(rawValue: EPERM) }
    /// The corresponding C error is `ENOSPC`.
    public static var noSpace: Errno { Errno(rawValue: ENOSPC) }
    /// The corresponding C error is `ENOMEM`.
    public static var noMemory: Errno { Errno(rawValue: ENOMEM) }
    /// The corresponding C error is `EEXIST`.
    public static var fileExists: Errno { Errno(rawValue: EEXIST) }
    /// The corresponding C error is `ELOOP` (with O_NOFOLLOW: the name is a symlink).
    public static var tooManySymbolicLinkLevels: Errno { Errno(rawValue: ELOOP) }
    /// The corresponding C error is `ETIMEDOUT`.
    public static var timedOut: Errno { Errno(rawValue: ETIMEDOUT) }
    /// The corresponding C error is `EPROTO`.
    public static var protocolError: Errno { Errno(rawValue: EPROTO) }
    /// The corresponding C error is `EBADMSG`.
    public static var badMessage: Errno { Errno(rawValue: EBADMSG) }
}

/// Calls `body` (a system call returning -1 and setting errno on failure)
/// again for as long as it fails with EINTR: a signal that arrived meanwhile
/// is no reason to give up. Returns the first other result; any negative one
/// throws what errno says.
@inlinable
public func retryOnInterrupt<Result: SignedInteger>(_ body: () -> Result) throws(Errno) -> Result {
    while true {
        let result = body()
        if result >= 0 { return result }
        let code = Errno.current
        if code != .interrupted { throw code }
    }
}
