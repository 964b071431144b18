/// WebExtension native messaging's framing (issue 24): each message is its
/// length as 4 bytes in the machine's order (little-endian on every machine
/// blocker is built for), then that many bytes of UTF-8 JSON. Firefox and
/// Chromium refuse a message over 1 MiB from the host; blocker holds the
/// browser's messages to the same bound, so a garbage length never makes it
/// wait for gigabytes.
public enum NativeMessaging {
    public static let maximumBytes = 1 << 20

    /// `json` framed for the browser; nil when it is over `maximumBytes`.
    public static func frame(_ json: [UInt8]) -> [UInt8]? {
        guard json.count <= maximumBytes else { return nil }
        let length = UInt32(json.count)
        return [UInt8(length & 0xFF), UInt8((length >> 8) & 0xFF), UInt8((length >> 16) & 0xFF), UInt8(length >> 24)] + json
    }

    /// The length a frame starts with: its first 4 bytes, little-endian.
    static func length(at start: Int, of bytes: [UInt8]) -> UInt32 {
        (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[start + $1]) << (8 * UInt32($1)) }
    }
}

/// Why the browser's stream cannot be read on.
public enum NativeMessageError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A length over `NativeMessaging.maximumBytes` (garbage, or not a browser).
    case tooLong(UInt32)
    /// The pipe closed inside a message: `have` of `want` bytes (length included) arrived.
    case closedMidMessage(have: Int, want: Int)

    public var description: String {
        switch self {
        case let .tooLong(length):
            return "a message of \(length) bytes, over the \(NativeMessaging.maximumBytes)-byte limit: not a browser's native messaging"
        case let .closedMidMessage(have, want):
            return "the browser closed the pipe inside a message (\(have) of \(want) bytes)"
        }
    }
}

/// Cuts the browser's byte stream into messages, whatever pieces read(2)
/// hands it; pure, so a test feeds it any split.
public struct NativeMessageReader: Sendable {
    private var buffer: [UInt8] = []

    public init() {}

    /// The messages `bytes` completes (their JSON bytes, in order); the rest waits for more.
    public mutating func feed(_ bytes: [UInt8]) throws(NativeMessageError) -> [[UInt8]] {
        buffer += bytes
        var messages: [[UInt8]] = []
        var start = 0
        while buffer.count - start >= 4 {
            let length = NativeMessaging.length(at: start, of: buffer)
            guard length <= NativeMessaging.maximumBytes else { throw .tooLong(length) }
            let end = start + 4 + Int(length)
            guard buffer.count >= end else { break }
            messages.append(Array(buffer[(start + 4)..<end]))
            start = end
        }
        buffer.removeFirst(start)
        return messages
    }

    /// At the end of the stream: nothing may be left half-read.
    public func finish() throws(NativeMessageError) {
        guard !buffer.isEmpty else { return }
        let want = buffer.count >= 4 ? 4 + Int(NativeMessaging.length(at: 0, of: buffer)) : 4
        throw .closedMidMessage(have: buffer.count, want: want)
    }
}
