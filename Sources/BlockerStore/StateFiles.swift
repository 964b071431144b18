// The state directory and the database file before SQLite sees them: created
// private (dir 0700, file 0600), and an existing file judged by its header
// alone, so a file that is not ours is never opened for writing.
import BlockerSystem
#if canImport(Glibc)
import Glibc
#endif

enum StateFiles {
    /// Creates `path` and any missing parents with mode 0700 (the XDG base
    /// directory spec asks 0700 for state directories). An existing
    /// directory's mode is left as the user set it.
    static func createDirectory(_ path: String) throws(StoreError) {
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            prefix += "/" + component
            if mkdir(prefix, 0o700) != 0 {
                let code = Errno.current
                guard code == .fileExists else {
                    throw StoreError(errno: code, path: prefix, action: "cannot create the state directory")
                }
            }
        }
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw StoreError(errno: .current, path: path, action: "cannot use the state directory")
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw StoreError(errno: .notDirectory, path: path, action: "cannot use the state directory")
        }
    }

    /// Judges `path` before it is opened read-write: missing (to be created),
    /// empty (to be initialized), or our ledger; anything else is refused.
    /// Nothing here writes.
    static func prepareDatabaseFile(_ path: String) throws(StoreError) -> LedgerFileKind {
        var info = stat()
        if stat(path, &info) != 0 {
            let code = Errno.current
            guard code == .noSuchFileOrDirectory else { throw StoreError(errno: code, path: path, action: "cannot open the ledger") }
            return .missing
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw StoreError(.notALedger, path: path, action: "refusing to open the ledger",
                             detail: "it is not a regular file")
        }
        let prefix = try readPrefix(path, count: LedgerFileKind.headerSize)
        let kind = LedgerFileKind.classify(prefix: prefix, fileSize: Int64(info.st_size))
        switch kind {
        case .ledger:
            return kind
        case .missing, .empty:
            // Another program's fresh WAL database can have an empty main file
            // and everything in the -wal; we never leave one like that.
            if fileSize(path + "-wal") ?? 0 > 0 {
                throw StoreError(.notALedger, path: path, action: "refusing to open the ledger",
                                 detail: "the file is empty but has a non-empty write-ahead log (\(path)-wal) that blocker did not write")
            }
            return kind
        case .notSQLite:
            throw StoreError(.notALedger, path: path, action: "refusing to open the ledger",
                             detail: "the file is not a SQLite database")
        case .foreignSQLite(let id):
            let owner = id == 0 ? "it has no application_id" : "its application_id is \(hex(id)), blocker's is \(hex(Schema.applicationID))"
            throw StoreError(.notALedger, path: path, action: "refusing to open the ledger",
                             detail: "the file is another program's SQLite database (\(owner))")
        }
    }

    /// Creates the ledger at `path` whole or not at all: `build` fills a new
    /// file under a temporary name, which is synced and then put in place.
    /// A kill -9 at any instant leaves either no `path` or a complete ledger
    /// (and at worst a stale temporary file, removed by the next attempt).
    /// `replacingEmpty`: `path` is an empty file of ours to replace; otherwise
    /// a file that appears at `path` meanwhile wins and is judged instead.
    static func createAtomically(_ path: String, replacingEmpty: Bool,
                                 build: (String) throws(StoreError) -> Void) throws(StoreError) {
        let temporary = path + ".creating"
        unlink(temporary)
        unlink(temporary + "-journal")
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw StoreError(errno: .current, path: temporary, action: "cannot create the ledger") }
        close(fd)
        do throws(StoreError) {
            try build(temporary)
            try syncFile(temporary)
            if replacingEmpty {
                guard rename(temporary, path) == 0 else {
                    throw StoreError(errno: .current, path: path, action: "cannot put the new ledger in place")
                }
            } else {
                // link(2) never replaces: if another process made `path` meanwhile, keep theirs.
                if link(temporary, path) != 0 && Errno.current != .fileExists {
                    throw StoreError(errno: .current, path: path, action: "cannot put the new ledger in place")
                }
                unlink(temporary)
            }
        } catch {
            unlink(temporary)
            unlink(temporary + "-journal")
            throw error
        }
        try syncFile(directoryOf(path))
    }

    private static func syncFile(_ path: String) throws(StoreError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw StoreError(errno: .current, path: path, action: "cannot sync the new ledger") }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw StoreError(errno: .current, path: path, action: "cannot sync the new ledger") }
    }

    private static func directoryOf(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    private static func readPrefix(_ path: String, count: Int) throws(StoreError) -> [UInt8] {
        do {
            return try FileContents.prefix(atPath: path, count: count)
        } catch {
            throw StoreError(errno: error, path: path, action: "cannot read the ledger")
        }
    }

    private static func fileSize(_ path: String) -> Int64? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int64(info.st_size)
    }

    private static func hex(_ id: Int32) -> String {
        "0x" + String(UInt32(bitPattern: id), radix: 16, uppercase: true)
    }
}
