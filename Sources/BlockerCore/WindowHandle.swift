/// The display server's own name for a window, so the probe that read it can
/// act on it (hide it when the user answers a pause with "Not now"). Only that
/// probe understands it, and no rule matches on it.
public enum WindowHandle: Hashable, Sendable, CustomStringConvertible {
    /// An X11 window id: the client window `_NET_ACTIVE_WINDOW` names.
    case x11(UInt32)
    /// A sway container id (`con_id`).
    case sway(Int)
    /// A Hyprland window address, as its IPC writes it (`0x55d0a8b0c6f0`).
    case hyprland(address: String)

    /// `x11 0x1a00003`, `sway con_id 12`, `hyprland 0x55d0a8b0c6f0`: in messages.
    public var description: String {
        switch self {
        case let .x11(id): "x11 0x" + String(id, radix: 16)
        case let .sway(id): "sway con_id \(id)"
        case let .hyprland(address): "hyprland \(address)"
        }
    }
}
