@testable import BlockerSystem
import Testing

@Suite struct ResidentPagesTests {
    @Test func mapsLinesAreReadWithTheirPathAndWhetherTheyAreWritable() {
        let code = ResidentPages.Mapping(line: "5581c2a00000-5581c2b4a000 r-xp 00001000 08:01 1234   /usr/bin/blockerd")
        #expect(code == .init(start: 0x5581c2a00000, end: 0x5581c2b4a000, writable: false, path: "/usr/bin/blockerd"))
        let data = ResidentPages.Mapping(line: "7f0000000000-7f0000001000 rw-p 00000000 00:00 0 ")
        #expect(data?.writable == true && data?.path == "")
        let spaced = ResidentPages.Mapping(line: "1000-2000 r--p 0 08:01 9 /home/u/my programs/x (deleted)")
        #expect(spaced?.path == "/home/u/my programs/x (deleted)")
        #expect(ResidentPages.Mapping(line: "garbage") == nil)
        #expect(ResidentPages.Mapping(line: "2000-1000 r--p 0 08:01 9 /x") == nil)
    }

    @Test func thisProcessHasReadOnlyFileMappingsToRelease() {
        // The test binary's own code and libc at least; the advice is harmless
        // (pages fault back in as they are used).
        #expect(ResidentPages.releaseReadOnlyFileMappings() >= 2)
    }
}
