import Foundation
import Testing
@testable import BlockerStore
import BlockerCore

/// Permission bits of a file (`st_mode & 0o777`).
func permissions(_ path: String) -> Int? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    return Int(info.st_mode & 0o777)
}

func contents(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

/// SplitMix64: a tiny deterministic generator, so a failing run can be replayed.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Reads a pragma on a separate read-only connection to the real file.
func pragma(_ name: String, of path: String) throws -> Int64? {
    let db = try SQLiteDatabase(path: path, flags: [.readOnly])
    defer { db.close() }
    return try db.firstRow("PRAGMA \(name)") { $0.int64(0) }
}

/// Sets `max_page_count` on the ledger's own connection to the file's current
/// size (`nil`) or to `pages`, so the next write that needs a new page gets a
/// real SQLITE_FULL.
@discardableResult
func limitPages(_ ledger: Ledger, to pages: Int64? = nil) throws -> Int64 {
    let limit = try pages ?? ledger.database.firstRow("PRAGMA page_count") { $0.int64(0) }!
    return try ledger.database.firstRow("PRAGMA max_page_count = \(limit)") { $0.int64(0) }!
}

/// Runs `sql` on the file at `path` with the real sqlite3, as a user's hand edit would.
func sqlite3(_ path: String, _ sql: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
    process.arguments = [path, sql]
    try process.run()
    process.waitUntilExit()
    #expect(process.terminationStatus == 0, "sqlite3 \(sql)", sourceLocation: sourceLocation)
}

/// Undoes schema 10 (opens and passes), the first step back to an older file.
let schema10Dropped = "DROP TABLE opens; DROP TABLE passes; "
