import Foundation
import Testing
import TestSupport
@testable import BlockerStore
import BlockerCore

/// A file that is not our ledger is refused with an error naming it, and left
/// exactly as it was: same bytes, no side files.
@Suite("Refusing files that are not the ledger")
struct RefusalTests {
    /// Every file in the directory with its bytes.
    private func snapshot(_ dir: TemporaryDirectory) -> [String: Data] {
        Dictionary(uniqueKeysWithValues: dir.listing().map { ($0, contents(dir.file($0)) ?? Data()) })
    }

    private func expectRefused(_ path: String, in dir: TemporaryDirectory, reason: StoreError.Reason = .notALedger,
                               sourceLocation: SourceLocation = #_sourceLocation) {
        let before = snapshot(dir)
        let error = #expect(throws: StoreError.self, sourceLocation: sourceLocation) { _ = try Ledger(path: path) }
        #expect(error?.reason == reason, sourceLocation: sourceLocation)
        #expect(error?.description.contains(path) == true, "\(String(describing: error))", sourceLocation: sourceLocation)
        #expect(snapshot(dir) == before, "the directory changed", sourceLocation: sourceLocation)
        // Through open(stateDirectory:) as well.
        if path == dir.file("blocker.db") {
            #expect(throws: StoreError.self, sourceLocation: sourceLocation) { _ = try Ledger.open(stateDirectory: dir.path) }
            #expect(snapshot(dir) == before, "the directory changed", sourceLocation: sourceLocation)
        }
    }

    @Test func garbageBytes() throws {
        let dir = try TemporaryDirectory()
        var rng = SplitMix64(seed: 42)
        let bytes = Data((0..<8192).map { _ in UInt8.random(in: 0...255, using: &rng) })
        let path = dir.file("blocker.db")
        #expect(FileManager.default.createFile(atPath: path, contents: bytes))
        expectRefused(path, in: dir)
        #expect(contents(path) == bytes)
    }

    @Test func shortTextFile() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("blocker.db")
        #expect(FileManager.default.createFile(atPath: path, contents: Data("my notes\n".utf8)))
        expectRefused(path, in: dir)
        // Even a truncated SQLite header is not a database.
        #expect(FileManager.default.createFile(atPath: path, contents: Data("SQLite format 3\0".utf8)))
        expectRefused(path, in: dir)
    }

    @Test func directoryInsteadOfFile() throws {
        let dir = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir.file("blocker.db"), withIntermediateDirectories: false)
        expectRefused(dir.file("blocker.db"), in: dir)
    }

    /// Another program's database, with its own application_id (or none).
    @Test(arguments: [Int32(0), 0x1234_5678])
    func foreignSQLiteDatabase(applicationID: Int32) throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("blocker.db")
        let other = try SQLiteDatabase(path: path, flags: [.readWrite, .create])
        try other.execute("""
            PRAGMA application_id = \(applicationID);
            CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);
            INSERT INTO notes (body) VALUES ('keep me');
            """)
        other.close()
        let bytes = contents(path)
        expectRefused(path, in: dir)
        #expect(contents(path) == bytes)
        #expect(dir.listing() == ["blocker.db"])
    }

    /// The other program is running: its database is in WAL mode with live
    /// -wal and -shm files. None of the three may change.
    @Test func foreignWALDatabaseInUse() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("blocker.db")
        let other = try SQLiteDatabase(path: path, flags: [.readWrite, .create])
        defer { other.close() }
        _ = try other.firstRow("PRAGMA journal_mode = WAL") { $0.text(0) }
        try other.execute("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('in the wal');")
        #expect(dir.listing() == ["blocker.db", "blocker.db-shm", "blocker.db-wal"])
        expectRefused(path, in: dir)
        #expect(try other.firstRow("SELECT body FROM notes") { $0.text(0) } == "in the wal")
    }

    /// An empty main file whose -wal holds another program's data.
    @Test func emptyFileWithAForeignWAL() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("blocker.db")
        #expect(FileManager.default.createFile(atPath: path, contents: Data()))
        #expect(FileManager.default.createFile(atPath: path + "-wal", contents: Data(repeating: 7, count: 4096)))
        expectRefused(path, in: dir)
    }

    @Test func newerSchema() throws {
        let dir = try TemporaryDirectory(create: false)
        let ledger = try Ledger.open(stateDirectory: dir.path)
        _ = try ledger.earn(exercise: "pushups", reps: 1, perRep: 1000, at: 0, day: "2024-01-01")
        try ledger.database.execute("PRAGMA user_version = \(Schema.latestVersion + 1)")
        ledger.close()
        #expect(dir.listing() == ["blocker.db"])
        let bytes = contents(ledger.path)
        expectRefused(ledger.path, in: dir, reason: .newerSchema(found: Schema.latestVersion + 1, supported: Schema.latestVersion))
        #expect(contents(ledger.path) == bytes)
    }
}
