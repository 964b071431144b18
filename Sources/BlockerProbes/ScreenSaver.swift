import BlockerCore
import BlockerSystem
import BlockerSystemd
import Glibc

/// `org.freedesktop.ScreenSaver`: `GetActive` once, then `ActiveChanged(b)`.
final class ScreenSaver {
    static let name = "org.freedesktop.ScreenSaver"
    static let path = "/org/freedesktop/ScreenSaver"

    let link: BusLink?
    var changed: () -> Void = {}
    private(set) var problem: String?
    private let retryAfterNs: UInt64
    private var retryAt: UInt64 = 0
    private var watches: [BusSubscription] = []
    /// nil until GetActive (or an ActiveChanged) answered, and after the service left.
    private var active: Bool?
    private(set) var queries = 0
    /// The name's owner's executable, read when it says active; nil: not known.
    private(set) var ownerExecutable: ProcessExecutable?
    private var ownerRead = false

    init(address: String?, retryAfterNs: UInt64) {
        self.retryAfterNs = retryAfterNs
        link = address.map { BusLink(address: $0, busName: "session bus") }
        if address == nil { problem = "no session bus (DBUS_SESSION_BUS_ADDRESS is not set)" }
    }

    func answer(now: UInt64) -> Bool? {
        guard let link else { return nil }
        if link.droppedClosed() {
            watches = []
            active = nil
            retryAt = 0
        }
        if active == nil {
            guard now >= retryAt else { return nil }
            do throws(SessionSourceProblem) { try query(link) } catch {
                problem = error.text
                // Most desktops have no screen saver service (ServiceUnknown):
                // the owner watch says when one comes, so no asking meanwhile.
                retryAt = error.nobodyProvides && !watches.isEmpty ? .max : now + retryAfterNs
                return nil
            }
        }
        // Who says so decides whether it is believed: read once per owner.
        if active == true, !ownerRead, let bus = link.connection {
            ownerRead = true
            ownerExecutable = bus.ownerPID(of: Self.name).flatMap(ProcessExecutable.of(pid:))
        }
        return active
    }

    private func query(_ link: BusLink) throws(SessionSourceProblem) {
        let bus = try link.open()
        if watches.isEmpty {
            do {
                // Kept while the connection lives: they cost nothing while nobody provides the service.
                watches = [
                    try bus.watchOwner(of: Self.name) { [weak self] owner in self?.ownerChanged(owner) },
                    try bus.subscribe(BusMatchRule(sender: Self.name, interface: Self.name, member: "ActiveChanged")) {
                        [weak self] message in
                        if let value = try? message.readBool() { self?.activeChanged(value) }
                    },
                ]
            } catch {
                throw SessionSourceProblem("cannot follow \(Self.name): \(error)")
            }
        }
        do throws(BusCallError) {
            let call = try bus.methodCall(destination: Self.name, path: Self.path, interface: Self.name,
                                          member: "GetActive", autoStart: true)
            queries += 1
            let reply = try bus.call(call, timeoutMicroseconds: SessionLock.callTimeoutUs)
            do throws(SystemdError) { active = try reply.readBool() } catch { throw .system(error) }
            problem = nil
        } catch {
            var problem = SessionSourceProblem("\(Self.name).GetActive failed: \(error)")
            if case let .reply(reply) = error, reply.name == "org.freedesktop.DBus.Error.ServiceUnknown" {
                problem.nobodyProvides = true
            }
            throw problem
        }
    }

    private func activeChanged(_ value: Bool) {
        let old = active
        active = value
        problem = nil
        if old != value { changed() }
    }

    private func ownerChanged(_ owner: String) {
        let old = active
        active = nil
        ownerRead = false
        ownerExecutable = nil
        retryAt = 0
        problem = owner.isEmpty ? "\(Self.name) left the session bus" : nil
        if old == true { changed() }
    }
}
