import BlockerCore
import BlockerSystem
import Glibc

extension TimeZoneRules {
    /// The zone the user lives in: TZ when set (":Europe/Paris", "Europe/Paris", a POSIX string like "EST5EDT,M3.2.0,M11.1.0", or an absolute path), else /etc/localtime, else UTC. TZDIR overrides /usr/share/zoneinfo.
    ///
    /// Follows glibc where it is clear (an empty TZ means UTC; a name is looked up as a file
    /// before it is read as a POSIX string) but, unlike glibc, a TZ naming no zone is an error
    /// rather than silent UTC: schedules in the wrong zone would block at the wrong hours.
    public static func system(environment: [String: String]) throws(TimeZoneError) -> TimeZoneRules {
        try system(environment: environment, localtimePath: "/etc/localtime")
    }

    /// `system(environment:)` with the default zone file elsewhere (tests).
    public static func system(environment: [String: String], localtimePath: String) throws(TimeZoneError) -> TimeZoneRules {
        let directory = environment["TZDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? defaultZoneinfoDirectory
        guard var tz = environment["TZ"] else {
            switch readZoneFile(atPath: localtimePath) {
            case .success(let bytes):
                return try TimeZoneRules(identifier: zoneName(ofLocaltime: localtimePath), tzif: bytes)
            case .failure(.missing):
                return .utc
            case .failure(.unreadable(let reason)):
                throw TimeZoneError("cannot read \(localtimePath): \(reason); set TZ or repair it with `timedatectl set-timezone ZONE`")
            }
        }
        // A leading colon means "implementation-defined"; like glibc, read it as a name or path.
        if tz.hasPrefix(":") { tz.removeFirst() }
        if tz.isEmpty { return .utc }
        if tz.hasPrefix("/") {
            switch readZoneFile(atPath: tz) {
            case .success(let bytes):
                return try TimeZoneRules(identifier: zoneName(inPath: tz) ?? tz, tzif: bytes)
            case .failure(.missing):
                throw TimeZoneError("TZ=\(tz): no such time zone file; \(fixHint)")
            case .failure(.unreadable(let reason)):
                throw TimeZoneError("TZ=\(tz): cannot read the time zone file: \(reason)")
            }
        }
        try checkZoneName(tz)
        let path = directory + "/" + tz
        switch readZoneFile(atPath: path) {
        case .success(let bytes):
            return try TimeZoneRules(identifier: tz, tzif: bytes)
        case .failure(.missing):
            // Not a file: maybe a POSIX string ("EST5EDT,M3.2.0,M11.1.0", "<+0530>-5:30").
            if let rules = try? TimeZoneRules(posix: tz) { return rules }
            throw TimeZoneError("TZ=\(tz): unknown time zone (no file \(path), and not a POSIX TZ string); \(fixHint)")
        case .failure(.unreadable(let reason)):
            throw TimeZoneError("TZ=\(tz): cannot read \(path): \(reason)")
        }
    }

    /// The zone blocker counts days and schedules in: the one the config
    /// names (`[daemon] time-zone`), else the system's (`system(environment:)`).
    public static func chosen(_ name: String?, environment: [String: String]) throws(TimeZoneError) -> TimeZoneRules {
        guard let name else { return try system(environment: environment) }
        return try named(name, zoneinfoDirectory: environment["TZDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? defaultZoneinfoDirectory)
    }

    /// The zone `identifier` ("Europe/Paris") from the tzdata directory.
    public static func named(_ identifier: String, zoneinfoDirectory: String = "/usr/share/zoneinfo") throws(TimeZoneError) -> TimeZoneRules {
        try checkZoneName(identifier)
        let path = zoneinfoDirectory + "/" + identifier
        switch readZoneFile(atPath: path) {
        case .success(let bytes):
            return try TimeZoneRules(identifier: identifier, tzif: bytes)
        case .failure(.missing):
            throw TimeZoneError("unknown time zone \"\(identifier)\" (no file \(path)); \(fixHint)")
        case .failure(.unreadable(let reason)):
            throw TimeZoneError("time zone \"\(identifier)\": cannot read \(path): \(reason)")
        }
    }
}

private let defaultZoneinfoDirectory = "/usr/share/zoneinfo"
private let fixHint = "list valid names with `timedatectl list-timezones` and set TZ to one of them (e.g. TZ=Europe/Paris)"

/// "Europe/Paris" when /etc/localtime links into a zoneinfo directory (as timedatectl makes it), else "localtime".
private func zoneName(ofLocaltime path: String) -> String {
    var buffer = [CChar](repeating: 0, count: 4096)
    let length = readlink(path, &buffer, buffer.count - 1)
    guard length > 0 else { return "localtime" }
    let target = String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return zoneName(inPath: target) ?? "localtime"
}

/// The part of a path after its last "zoneinfo/" ("Europe/Paris"), or nil.
private func zoneName(inPath path: String) -> String? {
    let bytes = Array(path.utf8)
    let marker = Array("zoneinfo/".utf8)
    guard bytes.count > marker.count else { return nil }
    for start in stride(from: bytes.count - marker.count - 1, through: 0, by: -1)
    where bytes[start..<start + marker.count].elementsEqual(marker) {
        return String(decoding: bytes[(start + marker.count)...], as: UTF8.self)
    }
    return nil
}

/// Names are relative to the zoneinfo directory and stay inside it.
private func checkZoneName(_ identifier: String) throws(TimeZoneError) {
    guard !identifier.isEmpty, !identifier.hasPrefix("/") else {
        throw TimeZoneError("\"\(identifier)\" is not a time zone name (like Europe/Paris); \(fixHint)")
    }
    guard !identifier.contains("..") else {
        throw TimeZoneError("\"\(identifier)\" is not a time zone name: \"..\" is not allowed; \(fixHint)")
    }
}

private enum ZoneFileFailure: Error {
    case missing
    case unreadable(String)
}

/// TZif files are a few kilobytes; anything larger is not one (and TZ=/dev/zero must not hang).
private let maximumZoneFileSize = 1 << 20

/// The whole file, or why not.
private func readZoneFile(atPath path: String) -> Result<[UInt8], ZoneFileFailure> {
    do {
        return .success(try FileContents.read(atPath: path, limit: maximumZoneFileSize))
    } catch {
        switch error {
        // EISDIR: TZ=Europe names a directory, not a zone.
        case .system(.noSuchFileOrDirectory), .system(.notDirectory), .system(.isDirectory): return .failure(.missing)
        case let .system(code): return .failure(.unreadable(code.description))
        case .tooLarge: return .failure(.unreadable("larger than a time zone file can be"))
        }
    }
}
