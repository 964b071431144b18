import BlockerCore
import BlockerSystem
#if canImport(Glibc)
import Glibc
#endif

/// A ledger failure the daemon can report as is: `description` names the file,
/// says what failed and what to do about it.
public struct StoreError: Error, CustomStringConvertible, Sendable {
    public enum Reason: Equatable, Sendable {
        /// The file is garbage or another program's database; it was left untouched.
        case notALedger
        /// blocker's ledger, but `PRAGMA quick_check` found damage; it was left untouched.
        case damaged
        /// Written by a newer blocker; it was left untouched.
        case newerSchema(found: Int64, supported: Int64)
        /// A system call failed (creating the directory, reading the header…).
        case fileSystem(errno: Errno)
        /// SQLite failed; `sqliteCode` says how.
        case sqlite
        /// The caller passed a value the ledger cannot hold.
        case invalidArgument
        /// The stored totals disagree (balance ≠ earned − spent).
        case inconsistent
        /// The open's pause had ended already (`found`: answered, left,
        /// interrupted), or there is no such open (nil); nothing was saved,
        /// so a pause is never answered twice.
        case notPausing(found: OpenOutcome?)
    }

    public let reason: Reason
    /// The database file (or directory) concerned.
    public let path: String
    /// What was being done, e.g. "cannot save the earning".
    public let action: String
    /// The cause, e.g. `sqlite3_errmsg` or `strerror`.
    public let detail: String
    /// The primary SQLite result code (`SQLITE_FULL` is 13), when SQLite failed.
    public let sqliteCode: Int32?
    /// The extended SQLite result code, when SQLite failed.
    public let sqliteExtendedCode: Int32?

    init(_ reason: Reason, path: String, action: String, detail: String,
         sqliteCode: Int32? = nil, sqliteExtendedCode: Int32? = nil) {
        self.reason = reason
        self.path = path
        self.action = action
        self.detail = detail
        self.sqliteCode = sqliteCode
        self.sqliteExtendedCode = sqliteExtendedCode
    }

    init(_ error: SQLiteError, path: String, action: String) {
        self.init(.sqlite, path: path, action: action, detail: error.message,
                  sqliteCode: error.code.primary.rawValue, sqliteExtendedCode: error.code.rawValue)
    }

    init(errno code: Errno, path: String, action: String) {
        self.init(.fileSystem(errno: code), path: path, action: action, detail: code.description)
    }

    /// SQLITE_FULL: the disk (or the database's size limit) is full.
    public var isDiskFull: Bool { sqliteCode == SQLiteResultCode.full.rawValue }

    /// What the user can do about it.
    public var remedy: String {
        switch reason {
        case .notALedger:
            return "this is not blocker's ledger and was not modified; move it aside or use another --state-dir"
        case .damaged:
            return "it was not modified; save what can be saved with: sqlite3 \(path) .recover >ledger.sql, "
                + "then move it aside (mv \(path) \(path).damaged) and blocker starts a new ledger"
        case .newerSchema:
            return "it was written by a newer blocker and was not modified; upgrade blocker"
        case .fileSystem(let code):
            if code == .permissionDenied || code == .notPermitted { return "check the owner and permissions of the file and its directory" }
            if code == .noSpace { return "free some disk space" }
            return "check the path"
        case .invalidArgument:
            return "nothing was saved"
        case .inconsistent:
            return "the ledger was modified outside blocker; move it aside to start a new one"
        case .notPausing:
            return "nothing was saved: a pause ends once; read the open again for how it ended"
        case .sqlite:
            switch sqliteCode.map(SQLiteResultCode.init(rawValue:)) {
            case .full?: return "free some disk space; unsaved usage is kept in memory and retried"
            case .ioError?: return "the disk reported an I/O error (see dmesg); unsaved usage is kept in memory and retried"
            case .busy?, .locked?: return "another program holds the database locked; is a second blockerd running?"
            case .readOnly?, .permission?, .cannotOpen?:
                return "check the owner and permissions of the file and its directory"
            case .corrupt?, .notADatabase?: return "the file is damaged; move it aside and blocker starts a new ledger"
            case .constraint?: return "the write would have broken the ledger's books and was refused; this is a bug in blocker"
            case .misuse?: return "the ledger was used after close(); this is a bug in blocker"
            default: return "check the file and the disk it is on"
            }
        }
    }

    public var description: String {
        var text = "\(path): \(action): \(detail)"
        if let sqliteCode {
            text += " (\(SQLiteResultCode(rawValue: sqliteCode).name)"
            if let sqliteExtendedCode, sqliteExtendedCode != sqliteCode { text += ", extended code \(sqliteExtendedCode)" }
            text += ")"
        }
        return text + "; " + remedy
    }
}
