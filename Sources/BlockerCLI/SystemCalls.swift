import BlockerSystem
import Glibc

/// The few libc calls blockerctl makes itself; raw pointers stay in this file.
public enum SystemCalls {
    public static func isTerminal(_ descriptor: Int32) -> Bool { isatty(descriptor) == 1 }

    /// write(2) until everything is written; gives up silently on a closed pipe
    /// (SIGPIPE has already ended us unless it is ignored).
    static func writeAll(_ descriptor: Int32, _ text: String) {
        writeAll(descriptor, Array(text.utf8))
    }

    /// `writeAll` for bytes (a native message's frame).
    static func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) {
        try? FileDescriptor(rawValue: descriptor).writeAll(bytes)
    }

    /// Replaces this process with `argv[0]` looked up in PATH. Returns only on
    /// failure, with the reason.
    public static func replaceProcess(_ argv: [String]) -> String {
        guard let program = argv.first else { return "empty command" }
        let cArguments = argv.map { strdup($0) } + [nil]
        defer { cArguments.forEach { free($0) } }
        execvp(program, cArguments)
        return Errno.current.description
    }

    /// What stat(2) says about a path, or the reason it could not.
    struct FileStatus: Equatable {
        var isRegularFile: Bool
        var isDirectory: Bool
        /// Permission bits only (0o600).
        var permissions: UInt32
        var ownerUID: UInt32
    }

    enum StatFailure: Error, Equatable {
        case missing
        case other(String)
    }

    static func status(of path: String) -> Result<FileStatus, StatFailure> {
        var info = stat()
        guard stat(path, &info) == 0 else {
            let code = errno
            return .failure(code == ENOENT || code == ENOTDIR ? .missing : .other(Errno(rawValue: code).description))
        }
        let kind = info.st_mode & S_IFMT
        return .success(FileStatus(isRegularFile: kind == S_IFREG, isDirectory: kind == S_IFDIR,
                                   permissions: UInt32(info.st_mode & 0o7777), ownerUID: info.st_uid))
    }

    /// Opens `path` read-only and closes it again: nil when it can be read, else why not.
    static func readFailure(of path: String) -> String? {
        do {
            try FileDescriptor.open(readingFrom: path).close()
            return nil
        } catch {
            return error.description
        }
    }

    static var userID: UInt32 { getuid() }

    /// Sleeps up to `timeoutMs`, waking early when `descriptor` becomes readable.
    /// Returns true when it did.
    static func waitReadable(_ descriptor: Int32?, timeoutMs: Milliseconds) -> Bool {
        // No descriptor: poll(2) of none is a sleep.
        var entries = descriptor.map { [pollfd(fd: $0, events: Int16(POLLIN), revents: 0)] } ?? []
        return (try? Deadline.after(max(0, timeoutMs)).wait(for: &entries)) == true
    }

    /// Ends the process quietly (status 0) on Ctrl-C: for `probe --watch`,
    /// whose normal end is an interrupt and which holds nothing to clean up.
    /// SIGINT is also unblocked: a parent (a test harness thread, say) may
    /// have left it blocked in the mask we inherited.
    static func exitQuietlyOnInterrupt() {
        signal(SIGINT) { _ in _exit(0) }
        var interrupt = sigset_t()
        sigemptyset(&interrupt)
        sigaddset(&interrupt, SIGINT)
        sigprocmask(SIG_UNBLOCK, &interrupt, nil)
    }
}

extension SystemCalls {
    /// Runs `body` with fd 2 pointing at /dev/null, so the programs it spawns
    /// (which inherit stderr) stay quiet; fd 2 is restored afterwards.
    static func withChildStderrSilenced<T>(_ body: () -> T) -> T {
        let saved = dup(2)
        let null = open("/dev/null", O_WRONLY | O_CLOEXEC)
        guard saved >= 0, null >= 0 else {
            if saved >= 0 { close(saved) }
            if null >= 0 { close(null) }
            return body()
        }
        dup2(null, 2)
        close(null)
        defer {
            dup2(saved, 2)
            close(saved)
        }
        return body()
    }
}
