@testable import BlockerSystem
import Glibc
import Testing
import TestSupport

// Serialized: a release in one test would drop the pages another one just touched.
@Suite(.serialized) struct ResidentPagesTests {
    @Test func mapsLinesAreReadWithTheirPathAndWhetherTheyAreWritable() {
        let code = ResidentPages.Mapping(line: "5581c2a00000-5581c2b4a000 r-xp 00001000 08:01 1234   /usr/bin/blockerd")
        #expect(code == .init(start: 0x5581c2a00000, end: 0x5581c2b4a000, writable: false, path: "/usr/bin/blockerd"))
        let data = ResidentPages.Mapping(line: "7f0000000000-7f0000001000 rw-p 00000000 00:00 0 ")
        #expect(data?.writable == true && data?.path == "")
        let spaced = ResidentPages.Mapping(line: "1000-2000 r--p 0 08:01 9 /home/u/my programs/x (deleted)")
        #expect(spaced?.path == "/home/u/my programs/x (deleted)")
        #expect(ResidentPages.Mapping(line: "garbage") == nil)
        #expect(ResidentPages.Mapping(line: "2000-1000 r--p 0 08:01 9 /x") == nil)
        #expect(ResidentPages.Mapping(line: "VmFlags: rd ex mr mw me dw") == nil)
    }

    @Test func smapsMappingsCarryTheirAnonymousPages() {
        let smaps = """
            1000-3000 r-xp 00001000 08:01 12 /usr/bin/blockerd
            Rss:                   8 kB
            Anonymous:             0 kB
            VmFlags: rd ex mr mw me dw
            3000-4000 r--p 00003000 08:01 12 /usr/bin/blockerd
            Anonymous:             4 kB
            """
        let mappings = ResidentPages.Mapping.all(smaps: smaps)
        #expect(mappings.map(\.anonymousKB) == [0, 4])
        // Code is dropped; relocated constants (RELRO) would lose their relocations.
        #expect(mappings.map(\.isPureFileCopy) == [true, false])
    }

    /// The same file mapped twice: a page two mappings share is what
    /// MADV_PAGEOUT leaves resident (blockerd and its probe helper are one program).
    @Test func aPageAnotherMappingSharesIsDroppedAndReadBack() throws {
        let dir = try TemporaryDirectory()
        try dir.write("pages", String(repeating: "b", count: 16384))
        let fd = open(dir.path + "/pages", O_RDONLY)
        #expect(fd >= 0)
        defer { close(fd) }
        let first = try #require(mmap(nil, 16384, PROT_READ, MAP_PRIVATE, fd, 0))
        let second = try #require(mmap(nil, 16384, PROT_READ, MAP_PRIVATE, fd, 0))
        defer { munmap(first, 16384); munmap(second, 16384) }
        func touch(_ map: UnsafeMutableRawPointer) -> Int {
            (0..<4).reduce(0) { $0 + Int(map.load(fromByteOffset: $1 * 4096, as: UInt8.self)) }
        }
        #expect(touch(first) == 4 * 98 && touch(second) == 4 * 98)
        #expect(residentKB(first) == 16)
        ResidentPages.releaseReadOnlyFileMappings()
        #expect(residentKB(first) == 0 && residentKB(second) == 0)
        #expect(touch(first) == 4 * 98)
    }

    /// A read-only private mapping written before it was made read-only (as
    /// the loader does with RELRO) keeps what was written.
    @Test func aMappingWithCopiedPagesKeepsThem() throws {
        let dir = try TemporaryDirectory()
        try dir.write("relro", String(repeating: "a", count: 4096))
        let fd = open(dir.path + "/relro", O_RDONLY)
        defer { close(fd) }
        let map = try #require(mmap(nil, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0))
        defer { munmap(map, 4096) }
        map.storeBytes(of: UInt8(ascii: "z"), as: UInt8.self)
        #expect(mprotect(map, 4096, PROT_READ) == 0)
        ResidentPages.releaseReadOnlyFileMappings()
        #expect(map.load(as: UInt8.self) == UInt8(ascii: "z"))
    }

    @Test func thisProcessHasReadOnlyFileMappingsToRelease() {
        // The test binary's own code and libc at least; the advice is harmless
        // (pages fault back in as they are used).
        #expect(ResidentPages.releaseReadOnlyFileMappings() >= 2)
    }

    /// Rss (kB) of the mapping that starts at `start`, from /proc/self/smaps.
    private func residentKB(_ start: UnsafeMutableRawPointer) -> Int? {
        guard let smaps = try? FileContents.read(atPath: "/proc/self/smaps", limit: 8 << 20) else { return nil }
        let address = String(UInt(bitPattern: start), radix: 16)
        var inside = false
        for line in String(decoding: smaps, as: UTF8.self).split(separator: "\n") {
            if ResidentPages.Mapping(line: String(line)) != nil { inside = line.hasPrefix(address + "-") }
            if inside, line.hasPrefix("Rss:") { return Int(line.split(separator: " ")[1]) }
        }
        return nil
    }
}
