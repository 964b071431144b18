// Pure: decides from the first bytes of a file whether it may be opened as the
// ledger. No I/O here; StateFiles.swift reads the bytes.

/// What a file on disk is, judged without opening it with SQLite (opening
/// can write: a hot journal is rolled back, a WAL is recovered, -shm created).
enum LedgerFileKind: Equatable, Sendable {
    /// No file yet: ours to create.
    case missing
    /// Zero bytes: ours to initialize.
    case empty
    /// A SQLite database stamped with blocker's application_id.
    case ledger
    /// Not a SQLite database at all.
    case notSQLite
    /// Another program's SQLite database.
    case foreignSQLite(applicationID: Int32)

    /// Header layout: https://www.sqlite.org/fileformat.html#the_database_header
    static let headerSize = 100
    private static let magic = Array("SQLite format 3\0".utf8)
    private static let applicationIDOffset = 68

    /// `prefix` is the first `headerSize` bytes of the file (fewer if it is shorter).
    static func classify(prefix: [UInt8], fileSize: Int64) -> LedgerFileKind {
        if fileSize == 0 { return .empty }
        guard prefix.count >= headerSize, Array(prefix[0..<magic.count]) == magic else { return .notSQLite }
        let o = applicationIDOffset
        // Big-endian, as every integer in the header.
        let id = Int32(bitPattern: UInt32(prefix[o]) << 24 | UInt32(prefix[o + 1]) << 16
                                   | UInt32(prefix[o + 2]) << 8 | UInt32(prefix[o + 3]))
        // Schema.swift stamps the id in the first transaction, in rollback
        // mode, so it is in the main file before the WAL ever exists.
        return id == Schema.applicationID ? .ledger : .foreignSQLite(applicationID: id)
    }
}
