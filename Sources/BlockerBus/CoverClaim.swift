import BlockerCore
import BlockerSystem
import BlockerSystemd

/// A program on the bus that claims to draw blocker's cover (a caller of
/// `CoverShown`, the owner of `io.github.blockerd.Cover`), judged by the
/// process behind its connection: a bus name or a window class is anybody's
/// to choose, an executable installed beside blockerd or by root is not.
public struct CoverClaim: Equatable, Sendable, CustomStringConvertible {
    /// The connection's unique name (":1.42").
    public var connection: String
    public var pid: Int32?
    public var program: CoverProgram

    public init(connection: String, pid: Int32?, program: CoverProgram) {
        self.connection = connection
        self.pid = pid
        self.program = program
    }

    /// `uniqueName`'s process, as the bus daemon says (SO_PEERCRED), and its
    /// executable. `overlayPath`: the blocker-overlay to accept (nil: none).
    public static func check(_ uniqueName: String, on connection: BusConnection, overlayPath: String?) -> CoverClaim {
        let pid = connection.ownerPID(of: uniqueName)
        let exe = pid.flatMap(ProcessExecutable.of(pid:))
        return CoverClaim(connection: uniqueName, pid: pid,
                          program: CoverProgram.classify(path: exe?.path, ownerUID: exe?.ownerUID, mode: exe?.mode,
                                                         overlayPath: overlayPath))
    }

    /// "pid 4242 (/usr/bin/python3) on :1.42".
    public var description: String {
        let what: String
        switch program {
        case .overlay: what = OverlayIdentity.name
        case let .shell(name): what = name
        case let .unexpected(path): what = path
        }
        return "pid \(pid.map(String.init) ?? "unknown") (\(what)) on \(connection)"
    }
}
