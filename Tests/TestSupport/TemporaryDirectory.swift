import Foundation
import Glibc

/// A fresh directory under /tmp, removed with everything in it when released.
///
/// Under /tmp rather than $TMPDIR: bus and compositor sockets live inside,
/// and a socket path must stay under 108 bytes.
public final class TemporaryDirectory {
    public let path: String

    /// `create: false` only reserves a fresh path, for code under test that
    /// must make the directory itself; it is still removed when released.
    /// `prefix`: the name before the random part (a test of address escaping
    /// wants spaces and commas in it).
    public init(create: Bool = true, prefix: String = "blocker-test.") throws {
        var template = Array("/tmp/\(prefix)XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else {
            throw TestFailure("mkdtemp: \(String(cString: strerror(errno)))")
        }
        path = String(cString: made)
        if !create { rmdir(path) }
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// The path of `name` inside the directory (nothing is created).
    public func file(_ name: String) -> String { path + "/" + name }

    /// Writes `text` to `name` (making the directories in between) and returns the file's path.
    /// Atomically (a rename): a probe polling the file never reads half of it.
    @discardableResult
    public func write(_ name: String, _ text: String, mode: Int = 0o600) throws -> String {
        try write(name, bytes: Array(text.utf8), mode: mode)
    }

    @discardableResult
    public func write(_ name: String, bytes: [UInt8], mode: Int = 0o600) throws -> String {
        let file = file(name)
        try FileManager.default.createDirectory(atPath: (file as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        // Written under a temporary name and renamed (atomic), through a
        // close-on-exec descriptor: tests run in parallel threads, and a
        // descriptor another test's child inherited would make exec of a
        // script written here fail with ETXTBSY.
        let temporary = file + ".writing"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode_t(mode))
        guard fd >= 0 else { throw TestFailure("open \(temporary): \(String(cString: strerror(errno)))") }
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        let failure = written == bytes.count ? nil : String(cString: strerror(errno))
        fchmod(fd, mode_t(mode))
        close(fd)
        if let failure { unlink(temporary); throw TestFailure("write \(temporary): \(failure)") }
        guard rename(temporary, file) == 0 else { throw TestFailure("rename to \(file): \(String(cString: strerror(errno)))") }
        return file
    }

    /// Makes the directory `name` (mode 0700) and returns its path.
    @discardableResult
    public func makeDirectory(_ name: String) throws -> String {
        let directory = file(name)
        guard mkdir(directory, 0o700) == 0 else { throw TestFailure("mkdir \(directory): \(String(cString: strerror(errno)))") }
        return directory
    }

    public func exists(_ name: String) -> Bool { FileManager.default.fileExists(atPath: file(name)) }

    /// The names in the directory, sorted.
    public func listing() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted()
    }
}

/// A whole text file.
public func readText(_ path: String) throws -> String {
    try String(contentsOfFile: path, encoding: .utf8)
}
