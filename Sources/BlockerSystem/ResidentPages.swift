import Glibc

/// Gives back the pages of read-only file mappings (the program's and its
/// libraries' code and constants) that starting up touched: most of blockerd's
/// resident memory is clean code pages of the statically linked Swift runtime
/// that config parsing, the ledger's schema check and the bus setup ran once.
/// They stay in the page cache; whatever the loop uses faults back in.
public enum ResidentPages {
    /// Drops this process's pages of every read-only file mapping whose pages
    /// are all the file's own (MADV_DONTNEED); returns how many mappings were
    /// advised. MADV_PAGEOUT would leave every page another process maps too
    /// (blockerd's probe helper is the same program, libstdc++ is everyone's).
    /// A mapping with anonymous pages (RELRO: relocated, then made read-only)
    /// is left alone: dropping those would throw the relocations away.
    @discardableResult
    public static func releaseReadOnlyFileMappings() -> Int {
        guard let smaps = try? FileContents.read(atPath: "/proc/self/smaps", limit: 8 << 20) else { return 0 }
        var advised = 0
        for mapping in Mapping.all(smaps: String(decoding: smaps, as: UTF8.self)) where mapping.isPureFileCopy {
            if madvise(UnsafeMutableRawPointer(bitPattern: mapping.start), Int(mapping.end - mapping.start),
                       MADV_DONTNEED) == 0 {
                advised += 1
            }
        }
        return advised
    }

    /// One mapping of /proc/PID/smaps: its "start-end perms offset dev inode
    /// path" line and the anonymous kB among its pages.
    struct Mapping: Equatable {
        init(start: UInt, end: UInt, writable: Bool, path: String, anonymousKB: Int? = nil) {
            self.start = start; self.end = end; self.writable = writable; self.path = path
            self.anonymousKB = anonymousKB
        }

        var start: UInt
        var end: UInt
        var writable: Bool
        var path: String
        /// From the "Anonymous:" line; nil until read.
        var anonymousKB: Int?

        /// Read-only, from a file, and not one page of it copied on write.
        var isPureFileCopy: Bool { !writable && path.hasPrefix("/") && anonymousKB == 0 }

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

        /// Every mapping of an smaps text, each with its "Anonymous:" count.
        static func all(smaps: String) -> [Mapping] {
            var mappings: [Mapping] = []
            for line in smaps.split(separator: "\n") {
                if let mapping = Mapping(line: String(line)) {
                    mappings.append(mapping)
                } else if line.hasPrefix("Anonymous:"), !mappings.isEmpty {
                    mappings[mappings.count - 1].anonymousKB = Int(line.split(separator: " ")[1])
                }
            }
            return mappings
        }
    }
}

extension String {
    fileprivate var trimmingLeadingSpaces: String { String(drop { $0 == " " }) }
}
