import Glibc

/// A fresh directory under /tmp for real files; `remove()` deletes what `write` and `makeDirectory` made.
struct TemporaryDirectory {
    let path: String
    private var created: [String] = []

    init() throws {
        var template = Array("/tmp/blocker-config-test.XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw SystemError(call: "mkdtemp", code: errno) }
        path = String(cString: made)
    }

    /// Writes `bytes` to `name` inside the directory and returns the file's path.
    mutating func write(_ name: String, bytes: [UInt8]) throws -> String {
        let file = "\(path)/\(name)"
        let fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw SystemError(call: "open", code: errno) }
        defer { close(fd) }
        created.append(file)
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        guard written == bytes.count else { throw SystemError(call: "write", code: errno) }
        return file
    }

    mutating func write(_ name: String, text: String) throws -> String {
        try write(name, bytes: Array(text.utf8))
    }

    mutating func makeDirectory(_ name: String) throws -> String {
        let directory = "\(path)/\(name)"
        guard mkdir(directory, 0o700) == 0 else { throw SystemError(call: "mkdir", code: errno) }
        created.append(directory)
        return directory
    }

    func remove() {
        for entry in created.reversed() where unlink(entry) != 0 { rmdir(entry) }
        rmdir(path)
    }
}

struct SystemError: Error, CustomStringConvertible {
    let call: String
    let code: Int32
    var description: String { "\(call): \(String(cString: strerror(code)))" }
}

/// A whole text file, read with plain libc.
func readText(_ path: String) throws -> String {
    guard let file = fopen(path, "r") else { throw SystemError(call: "fopen", code: errno) }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    while case let byte = fgetc(file), byte != EOF { bytes.append(UInt8(byte)) }
    return String(decoding: bytes, as: UTF8.self)
}
