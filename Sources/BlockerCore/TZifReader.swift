// TZif files (RFC 8536, what /usr/share/zoneinfo holds): the reader.

extension TimeZoneRules {
    /// Reads a TZif file of version 1, 2, 3 or 4. With version 2 or later the 64-bit data
    /// is used and the footer's POSIX string covers instants after the last transition.
    public init(identifier: String, tzif: [UInt8]) throws(TimeZoneError) {
        var reader = TZifReader(bytes: tzif, identifier: identifier)
        let first = try reader.header()
        let block: TZifReader.Block
        var footer: PosixTimeZone? = nil
        if first.version >= 2 {
            try reader.skip(first.dataLength(timeSize: 4))
            let second = try reader.header()
            block = try reader.dataBlock(second, timeSize: 8)
            footer = try reader.footer()
        } else {
            block = try reader.dataBlock(first, timeSize: 4)
        }
        self.init(identifier: identifier, transitionTimes: block.times,
                  transitionTypes: block.typeIndices.map { block.types[Int($0)] },
                  initialType: block.types[0], rule: footer)
    }
}

private struct TZifReader {
    let bytes: [UInt8]
    let identifier: String
    var index = 0

    struct Header {
        var version: Int
        var isUTCCount, isStandardCount, leapCount, timeCount, typeCount, characterCount: Int

        func dataLength(timeSize: Int) -> Int {
            timeCount * (timeSize + 1) + typeCount * 6 + characterCount + leapCount * (timeSize + 4)
                + isStandardCount + isUTCCount
        }
    }

    struct Block {
        var times: [Int64]
        var typeIndices: [UInt8]
        var types: [LocalTimeType]
    }

    func error(_ reason: String) -> TimeZoneError {
        TimeZoneError("\(identifier): not a valid TZif time zone file (\(reason))")
    }

    mutating func skip(_ count: Int) throws(TimeZoneError) {
        guard bytes.count - index >= count else { throw error("truncated") }
        index += count
    }

    private mutating func byte() throws(TimeZoneError) -> UInt8 {
        guard index < bytes.count else { throw error("truncated") }
        defer { index += 1 }
        return bytes[index]
    }

    private mutating func bigEndian(size: Int) throws(TimeZoneError) -> UInt64 {
        guard bytes.count - index >= size else { throw error("truncated") }
        var value: UInt64 = 0
        for byte in bytes[index..<index + size] { value = value << 8 | UInt64(byte) }
        index += size
        return value
    }

    private mutating func int32() throws(TimeZoneError) -> Int32 {
        Int32(bitPattern: UInt32(truncatingIfNeeded: try bigEndian(size: 4)))
    }

    private mutating func time(size: Int) throws(TimeZoneError) -> Int64 {
        size == 8 ? Int64(bitPattern: try bigEndian(size: 8)) : Int64(try int32())
    }

    mutating func header() throws(TimeZoneError) -> Header {
        guard bytes.count - index >= 44, Array(bytes[index..<index + 4]) == Array("TZif".utf8) else {
            throw error("no TZif magic")
        }
        index += 4
        let versionByte = try byte()
        let version: Int
        switch versionByte {
        case 0: version = 1
        case UInt8(ascii: "2")...UInt8(ascii: "9"): version = Int(versionByte - UInt8(ascii: "0"))
        default: throw error("unknown version byte \(versionByte)")
        }
        try skip(15)
        var counts: [Int] = []
        for _ in 0..<6 { counts.append(Int(try bigEndian(size: 4))) }
        let header = Header(version: version, isUTCCount: counts[0], isStandardCount: counts[1],
                            leapCount: counts[2], timeCount: counts[3], typeCount: counts[4],
                            characterCount: counts[5])
        guard header.typeCount >= 1, header.characterCount >= 1 else { throw error("no local time types") }
        guard header.isUTCCount == 0 || header.isUTCCount == header.typeCount,
              header.isStandardCount == 0 || header.isStandardCount == header.typeCount else {
            throw error("indicator counts do not match the type count")
        }
        return header
    }

    mutating func dataBlock(_ header: Header, timeSize: Int) throws(TimeZoneError) -> Block {
        guard bytes.count - index >= header.dataLength(timeSize: timeSize) else { throw error("truncated") }
        var times: [Int64] = []
        times.reserveCapacity(header.timeCount)
        for _ in 0..<header.timeCount {
            let t = try time(size: timeSize)
            if let previous = times.last, t <= previous { throw error("transition times out of order") }
            times.append(t)
        }
        var typeIndices: [UInt8] = []
        for _ in 0..<header.timeCount {
            let i = try byte()
            guard Int(i) < header.typeCount else { throw error("transition type index out of range") }
            typeIndices.append(i)
        }
        var rawTypes: [(offset: Int32, isDaylight: Bool, nameIndex: Int)] = []
        for _ in 0..<header.typeCount {
            let offset = try int32()
            let isDaylight = try byte()
            let nameIndex = Int(try byte())
            // RFC 8536 keeps offsets within ±26 hours (and never -2^31).
            guard offset > -93_600, offset < 93_600 else { throw error("UTC offset \(offset) out of range") }
            guard isDaylight <= 1, nameIndex < header.characterCount else { throw error("bad local time type") }
            rawTypes.append((offset, isDaylight == 1, nameIndex))
        }
        let names = Array(bytes[index..<index + header.characterCount])
        index += header.characterCount
        var types: [LocalTimeType] = []
        for raw in rawTypes {
            guard let end = names[raw.nameIndex...].firstIndex(of: 0) else { throw error("unterminated abbreviation") }
            types.append(LocalTimeType(utcOffset: raw.offset, isDaylightSaving: raw.isDaylight,
                                       abbreviation: String(decoding: names[raw.nameIndex..<end], as: UTF8.self)))
        }
        // Leap-second records and the standard/UT indicators do not change local time.
        try skip(header.leapCount * (timeSize + 4) + header.isStandardCount + header.isUTCCount)
        return Block(times: times, typeIndices: typeIndices, types: types)
    }

    /// The `\nTZ\n` footer of a version 2+ file; nil when empty or absent.
    mutating func footer() throws(TimeZoneError) -> PosixTimeZone? {
        guard index < bytes.count else { return nil }
        guard bytes[index] == UInt8(ascii: "\n"),
              let end = bytes[(index + 1)...].firstIndex(of: UInt8(ascii: "\n")) else {
            throw error("footer is not a newline-enclosed TZ string")
        }
        let text = String(decoding: bytes[(index + 1)..<end], as: UTF8.self)
        index = end + 1
        if text.isEmpty { return nil }
        do {
            return try PosixTimeZone(parsing: text)
        } catch {
            throw self.error("footer: \(error.message)")
        }
    }
}
