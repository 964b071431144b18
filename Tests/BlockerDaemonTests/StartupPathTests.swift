import Foundation
import Testing
import TestSupport
@testable import BlockerDaemon

/// Where blockerd puts its state, and what it refuses to write through.
@Suite("State paths")
struct StartupPathTests {
    @Test func aRelativeStateDirIsTakenFromTheWorkingDirectory() throws {
        let options = try #require(try DaemonOptions.parse(["--state-dir", "x/y", "--config=conf/b.toml"],
                                                           environment: ["HOME": "/home/u"],
                                                           workingDirectory: "/srv/work"))
        #expect(options.stateDirectory == "/srv/work/x/y")
        #expect(options.configPath == "/srv/work/conf/b.toml")
        let absolute = try #require(try DaemonOptions.parse(["--state-dir", "/var/x"], environment: [:],
                                                            workingDirectory: "/srv/work"))
        #expect(absolute.stateDirectory == "/var/x")
    }

    @Test func aSymlinkedLockIsRefusedAndItsTargetLeftAlone() throws {
        let directory = try TemporaryDirectory()
        let root = directory.path
        let precious = root + "/precious.txt"
        try "keep me\n".write(toFile: precious, atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: root + "/blockerd.lock", withDestinationPath: precious)
        let error = #expect(throws: StateLockError.self) { _ = try StateLock(directory: root) }
        #expect("\(error.map { "\($0)" } ?? "")".contains("not a regular file"))
        #expect(try String(contentsOfFile: precious, encoding: .utf8) == "keep me\n")
    }

    @Test func aFIFOAtTheLockNameIsRefusedWithoutHanging() throws {
        let directory = try TemporaryDirectory()
        let root = directory.path
        #expect(mkfifo(root + "/blockerd.lock", 0o600) == 0)
        #expect(throws: StateLockError.self) { _ = try StateLock(directory: root) }
    }
}
