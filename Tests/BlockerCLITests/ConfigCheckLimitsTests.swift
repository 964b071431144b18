import Foundation
import Testing
import TestSupport

extension BinaryTests {
    /// A 40,000-part dotted key crashed toml++ inside blockerctl (SIGSEGV):
    /// now the real binary refuses it with its position and exits 1.
    @Test func configCheckRefusesARunawayDottedKeyWithoutCrashing() throws {
        let directory = try TemporaryDirectory()
        let key = Array(repeating: "a", count: 40_000).joined(separator: ".")
        let file = try directory.write("deep.toml", "[earn]\npushups = 1\n" + key + " = 1\n")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = ["config", "check", file]
        process.environment = Self.noBus
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 1)
        #expect(stderr == "blockerctl: error: \(file):3:1: this key has 40000 dotted parts, more than 32; "
            + "blocker.toml's keys are one word (like probe = \"auto\")\n")
    }
}
