import BlockerSystem
import Glibc
import Testing

@Suite struct ErrnoTests {
    @Test func describesItselfWithStrerror() {
        #expect(Errno.noSuchFileOrDirectory.description == "No such file or directory")
        #expect(Errno(rawValue: EACCES) == .permissionDenied)
        #expect("\(Errno.permissionDenied)" == "Permission denied")
        #expect(Errno.isDirectory.rawValue == EISDIR)
    }

    @Test func currentIsWhatTheFailedCallLeft() {
        #expect(close(-1) == -1)
        #expect(Errno.current == Errno(rawValue: EBADF))
    }

    @Test func retriesWhileInterrupted() throws {
        var calls = 0
        let result = try retryOnInterrupt { () -> Int in
            calls += 1
            if calls < 3 { errno = EINTR; return -1 }
            return 42
        }
        #expect(result == 42)
        #expect(calls == 3)
    }

    @Test func throwsAnyOtherErrorAtOnce() {
        var calls = 0
        #expect(throws: Errno.wouldBlock) {
            try retryOnInterrupt { () -> Int32 in
                calls += 1
                errno = EAGAIN
                return -1
            }
        }
        #expect(calls == 1)
    }

    @Test func zeroIsASuccess() throws {
        // read(2) returns 0 at the end of a file: no error, whatever errno holds.
        var fds: [Int32] = [-1, -1]
        #expect(pipe(&fds) == 0)
        close(fds[1])
        defer { close(fds[0]) }
        errno = EINTR
        var byte: UInt8 = 0
        #expect(try retryOnInterrupt { read(fds[0], &byte, 1) } == 0)
    }

    @Test func aRealSystemCallFailure() {
        #expect(throws: Errno(rawValue: EBADF)) { try retryOnInterrupt { close(-1) } }
    }
}
