import Glibc

/// An inotify instance (non-blocking, close-on-exec): a descriptor the loop
/// polls, readable when a watched directory changes. Only *that* something
/// changed is read back: the caller looks at the files again.
public final class Inotify {
    public let descriptor: Int32

    public init() throws(Errno) {
        descriptor = try retryOnInterrupt { inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC)) }
    }

    deinit { Glibc.close(descriptor) }

    /// Files written whole, moved in or out, created or deleted in `directory`
    /// (a sync engine puts a copy in place by renaming its temporary file).
    public func watchDirectory(_ directory: String) throws(Errno) {
        let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE | IN_MODIFY)
        _ = try retryOnInterrupt { inotify_add_watch(descriptor, directory, mask) }
    }

    /// Reads every pending event; whether there was any.
    @discardableResult
    public func drain() -> Bool {
        var any = false
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 { any = true; continue }
            if count < 0 && errno == EINTR { continue }
            return any
        }
    }
}
