import Glibc

extension FileContents {
    /// Puts `bytes` at `path` whole (a reader sees the old file or the new
    /// one, never a part): written under a temporary name beside it, then
    /// renamed over it. Mode 0600. Not synced: for files a crash may lose.
    public static func replace(atPath path: String, with bytes: [UInt8]) throws(Errno) {
        let temporary = path + ".new"
        unlink(temporary)
        let file = FileDescriptor(rawValue: try retryOnInterrupt {
            open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        })
        defer { file.close() }
        do throws(Errno) {
            try file.writeAll(bytes)
            guard rename(temporary, path) == 0 else { throw Errno.current }
        } catch {
            unlink(temporary)
            throw error
        }
    }
}
