import Glibc

/// Gives back the pages of read-only file mappings (the program's and its
/// libraries' code and constants) that starting up touched: most of blockerd's
/// resident memory is clean code pages of the statically linked Swift runtime
/// that config parsing, the ledger's schema check and the bus setup ran once.
/// They stay in the page cache; whatever the loop uses faults back in.
public enum ResidentPages {
    /// Pages out every read-only file mapping of this process (MADV_PAGEOUT,
    /// Linux 5.4+); returns how many mappings were advised. Writable mappings
    /// are left alone: their dirty pages would have nowhere to go but swap.
    @discardableResult
    public static func releaseReadOnlyFileMappings() -> Int {
        guard let maps = try? FileContents.read(atPath: "/proc/self/maps", limit: 1 << 20) else { return 0 }
        var advised = 0
        for line in maps.split(separator: UInt8(ascii: "\n")) {
            guard let mapping = Mapping(line: String(decoding: line, as: UTF8.self)), !mapping.writable,
                  mapping.path.hasPrefix("/") else { continue }
            if madvise(UnsafeMutableRawPointer(bitPattern: mapping.start), Int(mapping.end - mapping.start),
                       pageOut) == 0 {
                advised += 1
            }
        }
        return advised
    }

    /// MADV_PAGEOUT; Glibc of Debian 12 knows it, Swift's import may not.
    private static let pageOut: Int32 = 21

    /// One line of /proc/PID/maps: "start-end perms offset dev inode path".
    struct Mapping: Equatable {
        init(start: UInt, end: UInt, writable: Bool, path: String) {
            self.start = start; self.end = end; self.writable = writable; self.path = path
        }

        var start: UInt
        var end: UInt
        var writable: Bool
        var path: String

        init?(line: String) {
            let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
            guard fields.count >= 5 else { return nil }
            let range = fields[0].split(separator: "-")
            guard range.count == 2, let start = UInt(range[0], radix: 16), let end = UInt(range[1], radix: 16),
                  end > start, fields[1].count == 4 else { return nil }
            self.start = start
            self.end = end
            writable = fields[1].dropFirst().first == "w"
            path = fields.count == 6 ? String(fields[5]).trimmingLeadingSpaces : ""
        }
    }
}

extension String {
    fileprivate var trimmingLeadingSpaces: String { String(drop { $0 == " " }) }
}
