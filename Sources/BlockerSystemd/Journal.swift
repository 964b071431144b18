import CSystemd
import Glibc

/// journald's native protocol.
public enum Journal {
    /// Sends one entry of `FIELD=value` pairs (sd_journal_sendv: the variadic
    /// sd_journal_send does not import into Swift).
    public static func send(_ fields: [(String, String)]) throws(SystemdError) {
        let lines = fields.map { strdup("\($0.0)=\($0.1)")! }
        defer { lines.forEach { free($0) } }
        var vectors = lines.map { iovec(iov_base: UnsafeMutableRawPointer($0), iov_len: strlen($0)) }
        try SystemdError.check(sd_journal_sendv(&vectors, Int32(vectors.count)), "sd_journal_sendv")
    }

    /// The newest entry with every `FIELD=value` of `matches`, as its fields
    /// (a field given twice keeps its last value); nil when there is none.
    /// Reads the local journal files this user may read (sd_journal_open:
    /// files it cannot read are passed over, not an error).
    public static func newest(matching matches: [String]) throws(SystemdError) -> [String: String]? {
        var handle: OpaquePointer?
        try SystemdError.check(sd_journal_open(&handle, Int32(SD_JOURNAL_LOCAL_ONLY)), "sd_journal_open")
        defer { sd_journal_close(handle) }
        for match in matches {
            try SystemdError.check(sd_journal_add_match(handle, match, 0), "sd_journal_add_match")
        }
        try SystemdError.check(sd_journal_seek_tail(handle), "sd_journal_seek_tail")
        guard try SystemdError.check(sd_journal_previous(handle), "sd_journal_previous") > 0 else { return nil }
        var fields: [String: String] = [:]
        var data: UnsafeRawPointer?
        var length = 0
        sd_journal_restart_data(handle)
        while try SystemdError.check(sd_journal_enumerate_data(handle, &data, &length), "sd_journal_enumerate_data") > 0,
              let data {
            let text = String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
            guard let equals = text.firstIndex(of: "=") else { continue }
            fields[String(text[..<equals])] = String(text[text.index(after: equals)...])
        }
        return fields
    }
}
