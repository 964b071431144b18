import BlockerCore
import BlockerSystemd

/// The MPRIS players on the session bus (`org.mpris.MediaPlayer2.*`),
/// asked and told asynchronously: a hung player never holds up a tick.
public final class MediaPlayers {
    static let prefix = "org.mpris.MediaPlayer2."
    static let path = "/org/mpris/MediaPlayer2"
    static let playerInterface = "org.mpris.MediaPlayer2.Player"
    static let timeoutUs: UInt64 = 1_000_000

    private let connection: BusConnection

    public init(connection: BusConnection) {
        self.connection = connection
    }

    /// Every player's pid, Identity, DesktopEntry and PlaybackStatus; `done`
    /// gets those that answered within a second each.
    public func survey(_ done: @escaping ([MediaPlayer]) -> Void) {
        ask(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "ListNames", argument: nil) { [weak self] reply in
            guard let self else { return }
            let names = ((try? reply?.readStrings()) ?? []).filter { $0.hasPrefix(Self.prefix) }
            guard !names.isEmpty else { return done([]) }
            var players: [MediaPlayer] = []
            var waiting = names.count
            for name in names {
                self.describe(name) { player in
                    if let player { players.append(player) }
                    waiting -= 1
                    if waiting == 0 { done(players.sorted { $0.busName < $1.busName }) }
                }
            }
        }
    }

    /// `Player.Pause` / `Player.Play` on `busName`; `done` gets the error, if any.
    public func pause(_ busName: String, _ done: @escaping (String?) -> Void) { command("Pause", busName, done) }
    public func play(_ busName: String, _ done: @escaping (String?) -> Void) { command("Play", busName, done) }

    private func command(_ member: String, _ busName: String, _ done: @escaping (String?) -> Void) {
        do {
            let message = try connection.methodCall(destination: busName, path: Self.path,
                                                    interface: Self.playerInterface, member: member)
            try connection.callAsync(message, timeoutMicroseconds: Self.timeoutUs) { result in
                if case let .failure(error) = result { done("\(error.name) \(error.message)") } else { done(nil) }
            }
        } catch {
            done("\(error)")
        }
    }

    /// The three questions about one name, answered together (nil: it did not answer who it is).
    private func describe(_ name: String, _ done: @escaping (MediaPlayer?) -> Void) {
        var pid: Int32?
        var identity: [String: BusValue]?
        var player: [String: BusValue]?
        var answers = 0
        let answered = {
            answers += 1
            guard answers == 3 else { return }
            guard let identity else { return done(nil) }
            let text = { (key: String) -> String? in
                if case let .string(value)? = identity[key] { value } else { nil }
            }
            var status: PlaybackStatus?
            if case let .string(value)? = player?["PlaybackStatus"] { status = PlaybackStatus(rawValue: value) }
            done(MediaPlayer(busName: name, pid: pid, identity: text("Identity"), desktopEntry: text("DesktopEntry"),
                             status: status))
        }
        ask(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "GetConnectionUnixProcessID", argument: name) { reply in
            if let value = try? reply?.readUInt32() { pid = Int32(bitPattern: value) }
            answered()
        }
        ask(destination: name, path: Self.path, interface: BusProperties.interface, member: "GetAll",
            argument: "org.mpris.MediaPlayer2") { reply in
            identity = try? reply?.readDictionary()
            answered()
        }
        ask(destination: name, path: Self.path, interface: BusProperties.interface, member: "GetAll",
            argument: Self.playerInterface) { reply in
            player = try? reply?.readDictionary()
            answered()
        }
    }

    /// One call with at most one string argument; `reply` gets nil for any failure.
    private func ask(destination: String, path: String, interface: String, member: String, argument: String?,
                     _ reply: @escaping (BusMessage?) -> Void) {
        do {
            let message = try connection.methodCall(destination: destination, path: path,
                                                    interface: interface, member: member)
            if let argument { try message.append(argument) }
            try connection.callAsync(message, timeoutMicroseconds: Self.timeoutUs) { result in
                reply(try? result.get())
            }
        } catch {
            reply(nil)
        }
    }
}
