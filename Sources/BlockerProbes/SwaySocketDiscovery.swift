import Glibc

/// A restarted sway listens at `sway-ipc.UID.PID.sock` with its new pid
/// (unless SWAYSOCK named a free path), while the daemon's SWAYSOCK still
/// names the old one. So after SWAYSOCK fails, the other sway sockets in the
/// same directory are tried, newest first — only those owned by the owner of
/// that directory, named for that same uid.
enum SwaySocketDiscovery {
    struct Entry: Equatable {
        var name: String
        var isSocket: Bool
        var owner: UInt32
        var modifiedNs: Int64
    }

    /// The paths to try, in order: where sway answered last, SWAYSOCK, then the newest sibling sockets.
    static func candidates(configured: String, current: String) -> [String] {
        let (directory, _) = split(configured)
        var paths = [current, configured]
        if let listing = list(directory) {
            paths += siblings(of: configured, directoryOwner: listing.owner, entries: listing.entries)
        }
        var seen = Set<String>()
        return paths.filter { seen.insert($0).inserted }
    }

    static func siblings(of configured: String, directoryOwner: UInt32, entries: [Entry]) -> [String] {
        let (directory, configuredName) = split(configured)
        let prefix = "sway-ipc.\(directoryOwner)."
        return entries
            .filter { entry in
                entry.isSocket && entry.owner == directoryOwner && entry.name != configuredName
                    && entry.name.hasPrefix(prefix) && entry.name.hasSuffix(".sock")
                    && entry.name.dropFirst(prefix.count).dropLast(5).allSatisfy(\.isNumber)
            }
            .sorted { $0.modifiedNs > $1.modifiedNs }
            .map { directory == "/" ? "/\($0.name)" : "\(directory)/\($0.name)" }
    }

    static func split(_ path: String) -> (directory: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let directory = String(path[..<slash])
        return (directory.isEmpty ? "/" : directory, String(path[path.index(after: slash)...]))
    }

    /// The directory's owner and its `sway-ipc.*` entries; nil when unreadable.
    private static func list(_ directory: String) -> (owner: UInt32, entries: [Entry])? {
        var info = stat()
        guard stat(directory, &info) == 0, let dir = opendir(directory) else { return nil }
        defer { closedir(dir) }
        var entries: [Entry] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard name.hasPrefix("sway-ipc.") else { continue }
            var file = stat()
            guard lstat("\(directory)/\(name)", &file) == 0 else { continue }
            entries.append(Entry(name: name, isSocket: file.st_mode & S_IFMT == S_IFSOCK, owner: file.st_uid,
                                 modifiedNs: Int64(file.st_mtim.tv_sec) * 1_000_000_000 + Int64(file.st_mtim.tv_nsec)))
        }
        return (info.st_uid, entries)
    }
}
