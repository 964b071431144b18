import BlockerSystem
import Glibc
import Testing

@Suite struct FileReadTests {
    @Test func readsAWholeFile() throws {
        let file = try TemporaryFile(bytes: Array(repeating: 7, count: 200_000))
        defer { file.remove() }
        #expect(try FileContents.read(atPath: file.path, limit: 200_000) == Array(repeating: 7, count: 200_000))
        #expect(try FileContents.read(atPath: file.path, limit: 1 << 20).count == 200_000)
        let empty = try TemporaryFile(bytes: [])
        defer { empty.remove() }
        #expect(try FileContents.read(atPath: empty.path, limit: 0) == [])
    }

    @Test func oneByteOverTheLimitIsTooLarge() throws {
        let file = try TemporaryFile(bytes: Array("0123456789".utf8))
        defer { file.remove() }
        #expect(throws: FileContents.Failure.tooLarge(limit: 9)) { try FileContents.read(atPath: file.path, limit: 9) }
        #expect(FileContents.Failure.tooLarge(limit: 9).description == "larger than 9 bytes")
    }

    @Test func anEndlessFileStopsAtTheLimit() {
        #expect(throws: FileContents.Failure.tooLarge(limit: 100_000)) {
            try FileContents.read(atPath: "/dev/zero", limit: 100_000)
        }
    }

    @Test func aMissingFileSaysENOENT() {
        let path = "/nonexistent-blocker-test/file"
        #expect(throws: FileContents.Failure.system(.noSuchFileOrDirectory)) { try FileContents.read(atPath: path, limit: 10) }
        #expect(FileContents.Failure.system(.noSuchFileOrDirectory).description == "No such file or directory")
        #expect(throws: Errno.noSuchFileOrDirectory) { try FileContents.prefix(atPath: path, count: 10) }
        #expect(throws: Errno.noSuchFileOrDirectory) { try FileDescriptor.open(readingFrom: path) }
    }

    @Test func aDirectoryOpensButDoesNotRead() throws {
        let directory = try FileDescriptor.open(readingFrom: "/tmp")
        directory.close()
        #expect(throws: FileContents.Failure.system(.isDirectory)) { try FileContents.read(atPath: "/tmp", limit: 10) }
    }

    @Test func aPrefixIsAtMostCountBytes() throws {
        let file = try TemporaryFile(bytes: Array("SQLite format 3\0".utf8))
        defer { file.remove() }
        #expect(try FileContents.prefix(atPath: file.path, count: 6) == Array("SQLite".utf8))
        #expect(try FileContents.prefix(atPath: file.path, count: 100) == Array("SQLite format 3\0".utf8))
        #expect(try FileContents.prefix(atPath: file.path, count: 0) == [])
    }
}

/// A file under /tmp holding `bytes`.
struct TemporaryFile {
    let path: String

    init(bytes: [UInt8]) throws {
        var template = Array("/tmp/blocker-system-test.XXXXXX".utf8CString)
        let fd = mkstemp(&template)
        guard fd >= 0 else { throw Errno.current }
        defer { close(fd) }
        path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var written = 0
        while written < bytes.count {
            let n = bytes[written...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            guard n > 0 else { throw Errno.current }
            written += n
        }
    }

    func remove() { unlink(path) }
}
