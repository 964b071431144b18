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
                let code = errno
                guard code == EEXIST else {
                    throw StoreError(errno: code, path: prefix, action: "cannot create the state directory")
                }
            }
        }
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw StoreError(errno: errno, path: path, action: "cannot use the state directory")
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw StoreError(errno: ENOTDIR, path: path, action: "cannot use the state directory")
        }
    }

    /// Makes sure `path` is a file we may open read-write: creates it (0600)
    /// when missing, and refuses anything that is not empty or our ledger.
    /// Nothing here writes to an existing file.
    static func prepareDatabaseFile(_ path: String) throws(StoreError) -> LedgerFileKind {
        var info = stat()
        if stat(path, &info) != 0 {
            let code = errno
            guard code == ENOENT else { throw StoreError(errno: code, path: path, action: "cannot open the ledger") }
            // O_EXCL: if another process created it meanwhile, judge that file instead.
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            if fd >= 0 {
                close(fd)
                return .empty
            }
            guard errno == EEXIST else { throw StoreError(errno: errno, path: path, action: "cannot create the ledger") }
            guard stat(path, &info) == 0 else { throw StoreError(errno: errno, path: path, action: "cannot open the ledger") }
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
        case .empty:
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

    private static func readPrefix(_ path: String, count: Int) throws(StoreError) -> [UInt8] {
        do {
            return try FileContents.prefix(atPath: path, count: count)
        } catch {
            throw StoreError(errno: error.rawValue, path: path, action: "cannot read the ledger")
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
