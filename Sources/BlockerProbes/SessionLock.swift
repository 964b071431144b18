import BlockerCore
import CSystemd
import Glibc

/// Whether anyone is looking, as the session (not the display server) tells it.
public struct SessionState: Equatable, Sendable {
    /// nil: nobody could tell (no logind, no screen saver service).
    public var locked: Bool?
    /// Time since logind's idle hint went up; nil when not idle or unknown.
    public var idle: Milliseconds?

    public init(locked: Bool? = nil, idle: Milliseconds? = nil) {
        self.locked = locked
        self.idle = idle
    }
}

/// Screen lock and idle beyond X11: logind's `LockedHint`/`IdleHint` for our
/// session on the system bus, and `org.freedesktop.ScreenSaver.GetActive` on
/// the session bus when a desktop provides it. A source that is missing is
/// not an error, only unknown; `unavailableReason` says why.
public final class SessionLock {
    /// Sources that could not answer are asked again after this long, not every sample.
    static let retryAfterNs: UInt64 = 10_000_000_000
    /// A service that does not answer within this long is treated as missing.
    static let callTimeoutUs: UInt64 = 500_000

    private let systemAddress: String
    private let sessionAddress: String?
    private let sessionID: String?

    private var systemBus: BusConnection?
    private var sessionPath: String?
    private var logindProblem: String?
    private var logindRetryAt: UInt64 = 0

    private var sessionBus: BusConnection?
    private var screenSaverProblem: String?
    private var screenSaverRetryAt: UInt64 = 0

    /// Why part of the answer is unknown ("logind: …; screensaver: …"), nil
    /// when every source answered. Meant to be logged once per change.
    public var unavailableReason: String? {
        let parts = [logindProblem.map { "logind: \($0)" }, screenSaverProblem.map { "screensaver: \($0)" }].compactMap { $0 }
        return parts.isEmpty ? nil : parts.joined(separator: "; ")
    }

    /// Reads the bus addresses and session id from `environment`
    /// (`DBUS_SYSTEM_BUS_ADDRESS`, `DBUS_SESSION_BUS_ADDRESS` or
    /// `XDG_RUNTIME_DIR/bus`, `XDG_SESSION_ID`); connects on first use.
    public init(environment: [String: String]) {
        systemAddress = environment["DBUS_SYSTEM_BUS_ADDRESS"].flatMap { $0.isEmpty ? nil : $0 }
            ?? "unix:path=/run/dbus/system_bus_socket"
        if let address = environment["DBUS_SESSION_BUS_ADDRESS"], !address.isEmpty {
            sessionAddress = address
        } else if let runtime = environment["XDG_RUNTIME_DIR"], access(runtime + "/bus", F_OK) == 0 {
            sessionAddress = "unix:path=\(runtime)/bus"
        } else {
            sessionAddress = nil
        }
        sessionID = environment["XDG_SESSION_ID"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Asks every source that is there; locked when any says so.
    public func read() -> SessionState {
        let now = monotonicNanoseconds()
        let logind = readLogind(now: now)
        let saverActive = readScreenSaver(now: now)
        let lockedAnswers = [logind?.locked, saverActive].compactMap { $0 }
        return SessionState(locked: lockedAnswers.isEmpty ? nil : lockedAnswers.contains(true),
                            idle: logind?.idle)
    }

    // MARK: logind

    private static let login1 = "org.freedesktop.login1"
    private static let managerPath = "/org/freedesktop/login1"
    private static let manager = "org.freedesktop.login1.Manager"
    private static let session = "org.freedesktop.login1.Session"

    private func readLogind(now: UInt64) -> (locked: Bool, idle: Milliseconds?)? {
        if sessionPath == nil {
            guard now >= logindRetryAt else { return nil }
            switch findSession() {
            case let .success(path):
                sessionPath = path
                logindProblem = nil
            case let .failure(problem):
                giveUpOnLogind(problem.text, now: now)
                return nil
            }
        }
        guard let bus = systemBus, let path = sessionPath else { return nil }
        do {
            let locked = try bus.bool(Self.login1, path, Self.session, "LockedHint")
            let idleHint = try bus.bool(Self.login1, path, Self.session, "IdleHint")
            var idle: Milliseconds?
            if idleHint {
                // The monotonic twin is immune to wall-clock jumps; 0 means "not recorded".
                let sinceUs = try bus.uint64(Self.login1, path, Self.session, "IdleSinceHintMonotonic")
                let nowUs = now / 1000
                if sinceUs > 0 && sinceUs <= nowUs { idle = Milliseconds((nowUs - sinceUs) / 1000) }
            }
            logindProblem = nil
            return (locked, idle)
        } catch {
            // logind restarted, or the session ended: find it again later.
            giveUpOnLogind("cannot read \(path): \(error)", now: now)
            return nil
        }
    }

    struct Problem: Error {
        var text: String
        init(_ text: String) { self.text = text }
    }

    private func giveUpOnLogind(_ problem: String, now: UInt64) {
        logindProblem = problem
        logindRetryAt = now + Self.retryAfterNs
        sessionPath = nil
        if systemBus?.isOpen == false { systemBus = nil }
    }

    /// Our session's object: from `XDG_SESSION_ID`, else the session this
    /// process belongs to, else (a user service is in no session) the user's
    /// display session, which logind names "auto".
    private func findSession() -> Result<String, Problem> {
        let bus: BusConnection
        if let systemBus {
            bus = systemBus
        } else {
            switch BusConnection.open(address: systemAddress, timeoutUs: Self.callTimeoutUs) {
            case let .success(opened): bus = opened
            case let .failure(error): return .failure(Problem("cannot connect to the system bus at \(systemAddress): \(error)"))
            }
            systemBus = bus
        }
        do {
            if let sessionID {
                return .success(try bus.callReturningPath(Self.login1, Self.managerPath, Self.manager, "GetSession", .string(sessionID)))
            }
            do {
                return .success(try bus.callReturningPath(Self.login1, Self.managerPath, Self.manager, "GetSessionByPID", .uint32(UInt32(getpid()))))
            } catch {
                return .success(try bus.callReturningPath(Self.login1, Self.managerPath, Self.manager, "GetSession", .string("auto")))
            }
        } catch {
            let which = sessionID.map { "session \($0)" } ?? "a session for this process or user"
            return .failure(Problem("cannot find \(which): \(error)"))
        }
    }

    // MARK: org.freedesktop.ScreenSaver

    private func readScreenSaver(now: UInt64) -> Bool? {
        guard let sessionAddress else {
            screenSaverProblem = "no session bus (DBUS_SESSION_BUS_ADDRESS is not set)"
            return nil
        }
        guard now >= screenSaverRetryAt else { return nil }
        if sessionBus == nil {
            switch BusConnection.open(address: sessionAddress, timeoutUs: Self.callTimeoutUs) {
            case let .success(bus): sessionBus = bus
            case let .failure(error):
                giveUpOnScreenSaver("cannot connect to the session bus at \(sessionAddress): \(error)", now: now)
                return nil
            }
        }
        do {
            let active = try sessionBus!.callReturningBool("org.freedesktop.ScreenSaver", "/org/freedesktop/ScreenSaver",
                                                           "org.freedesktop.ScreenSaver", "GetActive")
            screenSaverProblem = nil
            return active
        } catch {
            // Most desktops without a screen saver service: ServiceUnknown.
            giveUpOnScreenSaver("org.freedesktop.ScreenSaver.GetActive failed: \(error)", now: now)
            return nil
        }
    }

    private func giveUpOnScreenSaver(_ problem: String, now: UInt64) {
        screenSaverProblem = problem
        screenSaverRetryAt = now + Self.retryAfterNs
        if sessionBus?.isOpen == false { sessionBus = nil }
    }

    private func monotonicNanoseconds() -> UInt64 {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return UInt64(t.tv_sec) * 1_000_000_000 + UInt64(t.tv_nsec)
    }
}

/// Any probe, plus what the session knows: locked when either says so, idle
/// the smaller of the two (whichever saw input last is right).
public final class LockAwareProbe: ForegroundProbe {
    public let inner: ForegroundProbe
    public let session: SessionLock

    public init(_ inner: ForegroundProbe, session: SessionLock) {
        self.inner = inner
        self.session = session
    }

    public var name: String { inner.name }
    public var eventDescriptor: Int32? { inner.eventDescriptor }
    public var eventGeneration: Int { inner.eventGeneration }
    public func drainEvents() { inner.drainEvents() }

    public func sample() -> Result<Reading, ProbeFailure> {
        // A failed sample debits nothing anyway: no need to ask the session.
        inner.sample().map { reading in
            Self.merge(reading, session.read())
        }
    }

    static func merge(_ reading: Reading, _ state: SessionState) -> Reading {
        var merged = reading
        merged.locked = reading.locked || state.locked == true
        switch (reading.idle, state.idle) {
        case let (a?, b?): merged.idle = min(a, b)
        case let (a, b): merged.idle = a ?? b
        }
        return merged
    }
}

// MARK: sd-bus (the only calls into sd-bus in BlockerProbes)

/// A D-Bus error or a failed call, as sd-bus reported it.
struct BusError: Error, CustomStringConvertible {
    /// `org.freedesktop.DBus.Error.ServiceUnknown`…, nil for a local failure.
    var name: String?
    var message: String

    var description: String { name.map { "\($0): \(message)" } ?? message }

    init(name: String?, message: String) {
        self.name = name
        self.message = message
    }

    init(errno code: Int32, _ what: String) {
        self.init(name: nil, message: "\(what): \(String(cString: strerror(code)))")
    }

    fileprivate init(_ error: sd_bus_error, code: Int32, _ what: String) {
        if let errorName = error.name {
            self.init(name: String(cString: errorName), message: error.message.map { String(cString: $0) } ?? what)
        } else {
            self.init(errno: -code, what)
        }
    }
}

/// A method argument.
enum BusArgument {
    case string(String)
    case uint32(UInt32)
}

/// One client connection to a bus (`sd_bus`), closed on deinit.
final class BusConnection {
    private let bus: OpaquePointer

    private init(bus: OpaquePointer) { self.bus = bus }
    deinit { sd_bus_flush_close_unref(bus) }

    /// Connects and says Hello to the bus at `address` (`unix:path=…`); calls time out after `timeoutUs`.
    static func open(address: String, timeoutUs: UInt64) -> Result<BusConnection, BusError> {
        var raw: OpaquePointer?
        var r = sd_bus_new(&raw)
        guard r >= 0, let bus = raw else { return .failure(BusError(errno: -r, "sd_bus_new")) }
        let connection = BusConnection(bus: bus)      // unrefs on every path below
        r = sd_bus_set_address(bus, address)
        if r >= 0 { r = sd_bus_set_bus_client(bus, 1) }
        if r >= 0 { r = sd_bus_set_method_call_timeout(bus, timeoutUs) }
        if r >= 0 { r = sd_bus_start(bus) }
        guard r >= 0 else { return .failure(BusError(errno: -r, "cannot connect")) }
        return .success(connection)
    }

    var isOpen: Bool { sd_bus_is_open(bus) > 0 }

    func bool(_ destination: String, _ path: String, _ interface: String, _ member: String) throws(BusError) -> Bool {
        var value: Int32 = 0           // sd-bus reads 'b' into an int
        let r = withUnsafeMutableBytes(of: &value) { property(destination, path, interface, member, type: UInt8(ascii: "b"), into: $0) }
        if let r { throw r }
        return value != 0
    }

    func uint64(_ destination: String, _ path: String, _ interface: String, _ member: String) throws(BusError) -> UInt64 {
        var value: UInt64 = 0
        let r = withUnsafeMutableBytes(of: &value) { property(destination, path, interface, member, type: UInt8(ascii: "t"), into: $0) }
        if let r { throw r }
        return value
    }

    /// sd_bus_get_property_trivial: one basic value into `buffer`; the error, or nil.
    private func property(_ destination: String, _ path: String, _ interface: String, _ member: String,
                          type: UInt8, into buffer: UnsafeMutableRawBufferPointer) -> BusError? {
        var error = sd_bus_error()
        defer { sd_bus_error_free(&error) }
        let r = sd_bus_get_property_trivial(bus, destination, path, interface, member, &error,
                                            CChar(bitPattern: type), buffer.baseAddress)
        return r >= 0 ? nil : BusError(error, code: r, "cannot read \(interface).\(member)")
    }

    func callReturningPath(_ destination: String, _ path: String, _ interface: String, _ member: String,
                           _ arguments: BusArgument...) throws(BusError) -> String {
        try call(destination, path, interface, member, arguments) { reply throws(BusError) in
            var text: UnsafePointer<CChar>?
            let r = sd_bus_message_read_basic(reply, CChar(UInt8(ascii: "o")), &text)
            guard r > 0, let text else { throw BusError(errno: r < 0 ? -r : EBADMSG, "\(member) returned no object path") }
            return String(cString: text)
        }
    }

    func callReturningBool(_ destination: String, _ path: String, _ interface: String, _ member: String,
                           _ arguments: BusArgument...) throws(BusError) -> Bool {
        try call(destination, path, interface, member, arguments) { reply throws(BusError) in
            var value: Int32 = 0
            let r = sd_bus_message_read_basic(reply, CChar(UInt8(ascii: "b")), &value)
            guard r > 0 else { throw BusError(errno: r < 0 ? -r : EBADMSG, "\(member) returned no boolean") }
            return value != 0
        }
    }

    /// Builds the call message argument by argument (sd_bus_call_method is
    /// variadic, which Swift cannot call), sends it, and reads the reply with `read`.
    private func call<T>(_ destination: String, _ path: String, _ interface: String, _ member: String,
                         _ arguments: [BusArgument],
                         read: (OpaquePointer) throws(BusError) -> T) throws(BusError) -> T {
        var message: OpaquePointer?
        var r = sd_bus_message_new_method_call(bus, &message, destination, path, interface, member)
        guard r >= 0, let message else { throw BusError(errno: -r, "cannot build \(member)") }
        defer { sd_bus_message_unref(message) }
        for argument in arguments {
            switch argument {
            case let .string(text):
                r = text.withCString { sd_bus_message_append_basic(message, CChar(UInt8(ascii: "s")), $0) }
            case var .uint32(number):
                r = sd_bus_message_append_basic(message, CChar(UInt8(ascii: "u")), &number)
            }
            guard r >= 0 else { throw BusError(errno: -r, "cannot build \(member)") }
        }
        var error = sd_bus_error()
        defer { sd_bus_error_free(&error) }
        var reply: OpaquePointer?
        r = sd_bus_call(bus, message, 0, &error, &reply)      // 0: the connection's timeout
        guard r >= 0, let reply else { throw BusError(error, code: r, "\(member) failed") }
        defer { sd_bus_message_unref(reply) }
        return try read(reply)
    }
}
