import BlockerCore
import BlockerSystemd

/// org.freedesktop.Notifications, asynchronously: a slow or missing
/// notification server never holds up a tick. The countdown is one
/// notification updated in place (its id goes back as `replaces_id`).
public final class DesktopNotifications {
    static let destination = "org.freedesktop.Notifications"
    static let path = "/org/freedesktop/Notifications"

    private let connection: BusConnection
    /// Says why notifications cannot be shown — once per outage, not per tick.
    private let log: (String) -> Void
    private var countdownID: UInt32 = 0
    private var unavailable = false

    init(connection: BusConnection, log: @escaping (String) -> Void) {
        self.connection = connection
        self.log = log
    }

    public func send(_ request: NotificationRequest) {
        do {
            let message = try connection.methodCall(destination: Self.destination, path: Self.path,
                                                    interface: Self.destination, member: "Notify", autoStart: true)
            // Notify(s app_name, u replaces_id, s app_icon, s summary, s body, as actions, a{sv} hints, i expire_timeout)
            try message.append("blocker")
            try message.append(request.kind == .countdown ? countdownID : UInt32(0))
            try message.append("appointment-soon")
            try message.append(request.summary)
            try message.append(request.markupBody)
            try message.append([String]())
            try message.append(["urgency": .byte(request.urgency.rawValue),
                                "desktop-entry": .string("blocker"),
                                "category": .string("presence")])
            try message.append(Int32(-1))
            try connection.callAsync(message, timeoutMicroseconds: 5_000_000) { [weak self] result in
                self?.answered(result, countdown: request.kind == .countdown)
            }
        } catch {
            report("cannot send a notification: \(error)")
        }
    }

    private func answered(_ result: Result<BusMessage, BusErrorReply>, countdown: Bool) {
        switch result {
        case let .success(reply):
            if unavailable { log("desktop notifications work again") }
            unavailable = false
            if countdown, let id = try? reply.readUInt32() { countdownID = id }
        case let .failure(error):
            report("no desktop notifications: \(error.name) \(error.message)")
        }
    }

    private func report(_ why: String) {
        if !unavailable { log(why) }
        unavailable = true
    }
}
