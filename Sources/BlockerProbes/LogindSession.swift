import BlockerCore
import BlockerSystem
import BlockerSystemd
import Glibc

/// Our logind session: found and read once, then followed by `PropertiesChanged`.
final class LogindSession {
    static let login1 = "org.freedesktop.login1"
    static let managerPath = "/org/freedesktop/login1"
    static let manager = "org.freedesktop.login1.Manager"
    static let session = "org.freedesktop.login1.Session"
    static let properties: Set<String> = ["LockedHint", "IdleHint", "IdleSinceHintMonotonic"]

    let link: BusLink
    let sessionID: String?
    var changed: () -> Void = {}
    private(set) var problem: String?
    private var retryAt: UInt64 = 0

    private var ownerWatch: BusSubscription?
    private var propertiesWatch: BusSubscription?
    /// nil until the session is found (and after logind left).
    private var path: String?
    private var locked = false
    private var idleHint = false
    private var idleSinceUs: UInt64 = 0
    /// PropertiesChanged invalidated one of ours: read them again.
    private var stale = false

    init(address: String, sessionID: String?) {
        link = BusLink(address: address, busName: "system bus")
        self.sessionID = sessionID
    }

    func answer(now: UInt64) -> (locked: Bool, idle: Milliseconds?)? {
        if link.droppedClosed() {
            forget()
            ownerWatch = nil
            retryAt = 0
        }
        if path == nil {
            guard now >= retryAt else { return nil }
            do throws(SessionSourceProblem) { try find() } catch {
                giveUp(error.text, now: now)
                return nil
            }
        } else if stale, let path {
            do throws(SessionSourceProblem) { try readProperties(path) } catch {
                giveUp(error.text, now: now)
                return nil
            }
        }
        var idle: Milliseconds?
        // The monotonic twin is immune to wall-clock jumps; 0 means "not recorded".
        let nowUs = now / 1000
        if idleHint && idleSinceUs > 0 && idleSinceUs <= nowUs { idle = Milliseconds(ms: Int64((nowUs - idleSinceUs) / 1000)) }
        return (locked, idle)
    }

    /// Watches logind's name, finds the session, follows its properties, reads them.
    private func find() throws(SessionSourceProblem) {
        let bus = try link.open()
        if ownerWatch == nil {
            do {
                ownerWatch = try bus.watchOwner(of: Self.login1) { [weak self] owner in self?.ownerChanged(owner) }
            } catch {
                throw SessionSourceProblem("cannot watch \(Self.login1) on the system bus: \(error)")
            }
        }
        let found = try findSession(bus)
        propertiesWatch = nil
        do {
            propertiesWatch = try bus.onPropertiesChanged(sender: Self.login1, path: found, interface: Self.session) {
                [weak self] change in self?.apply(change)
            }
        } catch {
            throw SessionSourceProblem("cannot follow \(found): \(error)")
        }
        path = found
        try readProperties(found)
    }

    /// Our session's object: from `XDG_SESSION_ID`, else the session this
    /// process belongs to, else (a user service is in no session) the user's
    /// display session, which logind names "auto".
    private func findSession(_ bus: BusConnection) throws(SessionSourceProblem) -> String {
        do throws(BusCallError) {
            if let sessionID { return try getSession(bus, "GetSession", .string(sessionID)) }
            do { return try getSession(bus, "GetSessionByPID", .uint32(UInt32(getpid()))) } catch {
                return try getSession(bus, "GetSession", .string("auto"))
            }
        } catch {
            let which = sessionID.map { "session \($0)" } ?? "a session for this process or user"
            throw SessionSourceProblem("cannot find \(which): \(error)")
        }
    }

    private func getSession(_ bus: BusConnection, _ member: String, _ argument: BusValue) throws(BusCallError) -> String {
        let call = try bus.methodCall(destination: Self.login1, path: Self.managerPath, interface: Self.manager,
                                      member: member, autoStart: true)
        do throws(SystemdError) { try call.append(argument) } catch { throw .system(error) }
        let reply = try bus.call(call, timeoutMicroseconds: SessionLock.callTimeoutUs)
        do throws(SystemdError) { return try reply.readObjectPath() } catch { throw .system(error) }
    }

    private func readProperties(_ path: String) throws(SessionSourceProblem) {
        guard let bus = link.connection else { throw SessionSourceProblem("cannot read \(path): not connected") }
        let values: [String: BusValue]
        do {
            values = try bus.allProperties(destination: Self.login1, path: path, interface: Self.session,
                                           timeoutMicroseconds: SessionLock.callTimeoutUs, autoStart: true)
        } catch {
            throw SessionSourceProblem("cannot read \(path): \(error)")
        }
        guard case let .bool(lockedHint)? = values["LockedHint"] else {
            throw SessionSourceProblem("cannot read \(path): it has no LockedHint")
        }
        locked = lockedHint
        if case let .bool(hint)? = values["IdleHint"] { idleHint = hint } else { idleHint = false }
        if case let .uint64(since)? = values["IdleSinceHintMonotonic"] { idleSinceUs = since } else { idleSinceUs = 0 }
        stale = false
        problem = nil
    }

    /// PropertiesChanged of our session.
    private func apply(_ change: BusProperties.Change) {
        guard path != nil, change.interface == Self.session else { return }
        var lockChanged = false
        if case let .bool(value)? = change.changed["LockedHint"] {
            lockChanged = value != locked
            locked = value
        }
        if case let .bool(value)? = change.changed["IdleHint"] { idleHint = value }
        if case let .uint64(value)? = change.changed["IdleSinceHintMonotonic"] { idleSinceUs = value }
        if change.invalidated.contains(where: Self.properties.contains) {
            stale = true
            lockChanged = lockChanged || change.invalidated.contains("LockedHint")
        }
        if lockChanged { changed() }
    }

    /// logind left or restarted: its objects went with it, so find the session again on the next read.
    private func ownerChanged(_ owner: String) {
        let hadAnswer = path != nil
        forget()
        retryAt = 0
        problem = owner.isEmpty ? "\(Self.login1) left the system bus" : nil
        if hadAnswer { changed() }
    }

    private func forget() {
        // The subscription itself is replaced by the next `find()`, outside any bus callback.
        path = nil
        stale = false
    }

    private func giveUp(_ text: String, now: UInt64) {
        problem = text
        retryAt = now + SessionLock.retryAfterNs
        forget()
        propertiesWatch = nil
    }
}
