// The only file that imports CSQLite: a thin typed wrapper in the style of
// swift-system's FileDescriptor. Raw pointers never leave this file.
import BlockerTime
import CSQLite

/// A SQLite result code (primary or extended). The corresponding C type is the
/// `int` that `sqlite3_*` functions return.
struct SQLiteResultCode: RawRepresentable, Hashable, Sendable {
    let rawValue: Int32
    init(rawValue: Int32) { self.rawValue = rawValue }

    /// The primary code: the low 8 bits of an extended code.
    var primary: SQLiteResultCode { SQLiteResultCode(rawValue: rawValue & 0xFF) }

    /// The name of the C constant, e.g. `SQLITE_FULL` (primary codes only).
    var name: String {
        switch primary {
        case .ok: "SQLITE_OK"
        case .error: "SQLITE_ERROR"
        case .permission: "SQLITE_PERM"
        case .busy: "SQLITE_BUSY"
        case .locked: "SQLITE_LOCKED"
        case .readOnly: "SQLITE_READONLY"
        case .ioError: "SQLITE_IOERR"
        case .corrupt: "SQLITE_CORRUPT"
        case .full: "SQLITE_FULL"
        case .cannotOpen: "SQLITE_CANTOPEN"
        case .constraint: "SQLITE_CONSTRAINT"
        case .misuse: "SQLITE_MISUSE"
        case .notADatabase: "SQLITE_NOTADB"
        default: "SQLite code \(primary.rawValue)"
        }
    }

    /// The corresponding C constant is `SQLITE_OK`.
    static let ok = SQLiteResultCode(rawValue: SQLITE_OK)
    /// The corresponding C constant is `SQLITE_ERROR`.
    static let error = SQLiteResultCode(rawValue: SQLITE_ERROR)
    /// The corresponding C constant is `SQLITE_PERM`.
    static let permission = SQLiteResultCode(rawValue: SQLITE_PERM)
    /// The corresponding C constant is `SQLITE_BUSY`.
    static let busy = SQLiteResultCode(rawValue: SQLITE_BUSY)
    /// The corresponding C constant is `SQLITE_LOCKED`.
    static let locked = SQLiteResultCode(rawValue: SQLITE_LOCKED)
    /// The corresponding C constant is `SQLITE_READONLY`.
    static let readOnly = SQLiteResultCode(rawValue: SQLITE_READONLY)
    /// The corresponding C constant is `SQLITE_IOERR`.
    static let ioError = SQLiteResultCode(rawValue: SQLITE_IOERR)
    /// The corresponding C constant is `SQLITE_CORRUPT`.
    static let corrupt = SQLiteResultCode(rawValue: SQLITE_CORRUPT)
    /// The corresponding C constant is `SQLITE_FULL`.
    static let full = SQLiteResultCode(rawValue: SQLITE_FULL)
    /// The corresponding C constant is `SQLITE_CANTOPEN`.
    static let cannotOpen = SQLiteResultCode(rawValue: SQLITE_CANTOPEN)
    /// The corresponding C constant is `SQLITE_CONSTRAINT`.
    static let constraint = SQLiteResultCode(rawValue: SQLITE_CONSTRAINT)
    /// The corresponding C constant is `SQLITE_MISUSE`.
    static let misuse = SQLiteResultCode(rawValue: SQLITE_MISUSE)
    /// The corresponding C constant is `SQLITE_NOTADB`.
    static let notADatabase = SQLiteResultCode(rawValue: SQLITE_NOTADB)
    /// The corresponding C constant is `SQLITE_ROW`.
    static let row = SQLiteResultCode(rawValue: SQLITE_ROW)
    /// The corresponding C constant is `SQLITE_DONE`.
    static let done = SQLiteResultCode(rawValue: SQLITE_DONE)
}

/// A failed SQLite call: the extended result code and `sqlite3_errmsg` at the time.
struct SQLiteError: Error, CustomStringConvertible, Sendable {
    /// The extended result code (`.primary` gives the primary one).
    var code: SQLiteResultCode
    var message: String
    var description: String { "\(message) (\(code.name), extended code \(code.rawValue))" }
}

/// Flags for `sqlite3_open_v2`.
struct SQLiteOpenFlags: OptionSet, Sendable {
    let rawValue: Int32
    /// The corresponding C constant is `SQLITE_OPEN_READONLY`.
    static let readOnly = SQLiteOpenFlags(rawValue: SQLITE_OPEN_READONLY)
    /// The corresponding C constant is `SQLITE_OPEN_READWRITE`.
    static let readWrite = SQLiteOpenFlags(rawValue: SQLITE_OPEN_READWRITE)
    /// The corresponding C constant is `SQLITE_OPEN_CREATE`.
    static let create = SQLiteOpenFlags(rawValue: SQLITE_OPEN_CREATE)
    /// One thread per connection. The corresponding C constant is `SQLITE_OPEN_NOMUTEX`.
    static let noMutex = SQLiteOpenFlags(rawValue: SQLITE_OPEN_NOMUTEX)
    /// The corresponding C constant is `SQLITE_OPEN_EXRESCODE`.
    static let extendedResultCodes = SQLiteOpenFlags(rawValue: SQLITE_OPEN_EXRESCODE)
}

/// A value bound to a `?` parameter.
enum SQLValue: Sendable, Equatable {
    case integer(Int64)
    case text(String)
    case null
}

/// A connection (`sqlite3 *`). Not thread-safe: one owner, one thread.
final class SQLiteDatabase {
    private var handle: OpaquePointer?
    /// Prepared statements by SQL text, prepared once per connection.
    private var cache: [String: SQLiteStatement] = [:]

    init(path: String, flags: SQLiteOpenFlags) throws(SQLiteError) {
        var db: OpaquePointer?
        let rc = sqlite3_open_v2(path, &db, flags.rawValue, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))
            // A failed open still allocates a handle that must be released.
            sqlite3_close_v2(db)
            throw SQLiteError(code: SQLiteResultCode(rawValue: rc), message: message)
        }
        sqlite3_extended_result_codes(db, 1)
        handle = db
    }

    deinit { close() }

    var isOpen: Bool { handle != nil }

    /// Finalizes the cached statements and closes the connection (the last
    /// connection to a WAL database checkpoints it and removes the -wal file).
    func close() {
        for statement in cache.values { statement.finalize() }
        cache = [:]
        if let handle { sqlite3_close_v2(handle) }
        handle = nil
    }

    /// False while a transaction is open. Errors such as SQLITE_FULL or
    /// SQLITE_IOERR may roll a transaction back on their own.
    var isAutocommit: Bool {
        guard let handle else { return true }
        return sqlite3_get_autocommit(handle) != 0
    }

    /// Runs one or more statements that return no rows we need (DDL, pragmas).
    func execute(_ sql: String) throws(SQLiteError) {
        let db = try connection()
        let rc = sqlite3_exec(db, sql, nil, nil, nil)
        guard rc == SQLITE_OK else { throw error(rc) }
    }

    /// The cached prepared statement for `sql`, reset and with `arguments` bound.
    func statement(_ sql: String, _ arguments: [SQLValue] = []) throws(SQLiteError) -> SQLiteStatement {
        let statement: SQLiteStatement
        if let cached = cache[sql] {
            statement = cached
        } else {
            let db = try connection()
            var raw: OpaquePointer?
            // PERSISTENT: these live as long as the connection.
            let rc = sqlite3_prepare_v3(db, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &raw, nil)
            guard rc == SQLITE_OK, let raw else { throw error(rc) }
            statement = SQLiteStatement(handle: raw, database: self)
            cache[sql] = statement
        }
        statement.reset()
        try statement.bind(arguments)
        return statement
    }

    /// Runs a statement to completion, ignoring any rows.
    func run(_ sql: String, _ arguments: [SQLValue] = []) throws(SQLiteError) {
        let statement = try statement(sql, arguments)
        defer { statement.reset() }
        while try statement.step() {}
    }

    /// Runs a query and maps every row.
    func rows<T>(_ sql: String, _ arguments: [SQLValue] = [],
                 _ read: (SQLiteRow) -> T) throws(SQLiteError) -> [T] {
        let statement = try statement(sql, arguments)
        // Reset so a finished read never holds the WAL snapshot open.
        defer { statement.reset() }
        var result: [T] = []
        while try statement.step() { result.append(read(SQLiteRow(statement: statement))) }
        return result
    }

    /// The first row of a query, or nil.
    func firstRow<T>(_ sql: String, _ arguments: [SQLValue] = [],
                     _ read: (SQLiteRow) -> T) throws(SQLiteError) -> T? {
        let statement = try statement(sql, arguments)
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        return read(SQLiteRow(statement: statement))
    }

    /// `BEGIN IMMEDIATE` … `COMMIT`; on any error the transaction is rolled
    /// back (unless SQLite already did) and the error rethrown.
    func transaction<T>(_ body: () throws(SQLiteError) -> T) throws(SQLiteError) -> T {
        // IMMEDIATE takes the write lock up front, so busy_timeout applies
        // here instead of failing halfway through with SQLITE_BUSY.
        try run("BEGIN IMMEDIATE")
        do throws(SQLiteError) {
            let value = try body()
            try run("COMMIT")
            return value
        } catch {
            if !isAutocommit { try? run("ROLLBACK") }
            throw error
        }
    }

    /// One read snapshot (a WAL reader sees a single consistent state).
    func readTransaction<T>(_ body: () throws(SQLiteError) -> T) throws(SQLiteError) -> T {
        try run("BEGIN")
        defer { if !isAutocommit { try? run("COMMIT") } }
        return try body()
    }

    fileprivate func connection() throws(SQLiteError) -> OpaquePointer {
        guard let handle else {
            throw SQLiteError(code: .misuse, message: "the database connection is closed")
        }
        return handle
    }

    fileprivate func error(_ rc: Int32) -> SQLiteError {
        guard let handle else {
            return SQLiteError(code: SQLiteResultCode(rawValue: rc), message: String(cString: sqlite3_errstr(rc)))
        }
        // sqlite3_extended_errcode is the code of the most recent failure on
        // this connection, which is `rc` with its extended bits.
        return SQLiteError(code: SQLiteResultCode(rawValue: sqlite3_extended_errcode(handle)),
                           message: String(cString: sqlite3_errmsg(handle)))
    }
}

/// A prepared statement (`sqlite3_stmt *`), owned by its connection's cache.
final class SQLiteStatement {
    private var handle: OpaquePointer?
    private unowned let database: SQLiteDatabase

    fileprivate init(handle: OpaquePointer, database: SQLiteDatabase) {
        self.handle = handle
        self.database = database
    }

    deinit { finalize() }

    fileprivate func finalize() {
        if let handle { sqlite3_finalize(handle) }
        handle = nil
    }

    /// `sqlite3_bind_text` copies only with SQLITE_TRANSIENT, which Swift does
    /// not import; SQLITE_STATIC would keep a pointer to a temporary.
    private static var transient: sqlite3_destructor_type {
        unsafeBitCast(-1, to: sqlite3_destructor_type.self)
    }

    fileprivate func bind(_ values: [SQLValue]) throws(SQLiteError) {
        guard let handle else { throw SQLiteError(code: .misuse, message: "statement finalized") }
        sqlite3_clear_bindings(handle)
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let rc: Int32
            switch value {
            case .integer(let n): rc = sqlite3_bind_int64(handle, index, n)
            case .null: rc = sqlite3_bind_null(handle, index)
            case .text(let s):
                // withCString is never nil, so "" binds an empty text, not NULL.
                rc = s.withCString { sqlite3_bind_text(handle, index, $0, Int32(s.utf8.count), Self.transient) }
            }
            guard rc == SQLITE_OK else { throw database.error(rc) }
        }
    }

    /// Advances: true when a row is ready, false when done.
    func step() throws(SQLiteError) -> Bool {
        guard let handle else { throw SQLiteError(code: .misuse, message: "statement finalized") }
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw database.error(rc)
        }
    }

    func reset() {
        if let handle { sqlite3_reset(handle) }
    }

    fileprivate func isNull(at column: Int32) -> Bool {
        guard let handle else { return true }
        return sqlite3_column_type(handle, column) == SQLITE_NULL
    }

    fileprivate func int64(at column: Int32) -> Int64 {
        guard let handle else { return 0 }
        return sqlite3_column_int64(handle, column)
    }

    fileprivate func text(at column: Int32) -> String {
        guard let handle, let bytes = sqlite3_column_text(handle, column) else { return "" }
        // column_bytes after column_text: the length of the UTF-8 just produced.
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }
}

/// The current row of a statement, valid only inside the `rows` closure.
struct SQLiteRow {
    fileprivate let statement: SQLiteStatement
    func int64(_ column: Int32) -> Int64 { statement.int64(at: column) }
    func text(_ column: Int32) -> String { statement.text(at: column) }
    func isNull(_ column: Int32) -> Bool { statement.isNull(at: column) }
}

// Durations and instants go into SQLite as the integer ms they are (the
// schema's `_ms` columns), and come out typed.
extension SQLValue {
    static func duration(_ length: Milliseconds) -> SQLValue { .integer(length.ms) }
    static func instant(_ instant: WallInstant) -> SQLValue { .integer(instant.ms) }
}

extension SQLiteRow {
    func duration(_ column: Int32) -> Milliseconds { Milliseconds(ms: int64(column)) }
    func instant(_ column: Int32) -> WallInstant { WallInstant(ms: int64(column)) }
}
