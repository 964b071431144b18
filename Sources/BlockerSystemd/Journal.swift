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
}
