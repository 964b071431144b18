import CRE2

/// A compiled RE2 regex: matching runs in time linear in the text, whatever
/// the pattern (no backtracking). The only file that touches CRE2.
final class RE2Regex: Sendable {
    /// RE2's message for a pattern it refuses.
    struct CompileError: Error, CustomStringConvertible {
        var description: String
    }

    // RE2 objects are immutable once compiled and safe to match from any thread.
    nonisolated(unsafe) private let handle: OpaquePointer

    /// `maxMemory` bounds the compiled program and its matching automata (bytes).
    init(_ pattern: String, caseInsensitive: Bool, maxMemory: Int) throws(CompileError) {
        var pattern = pattern
        var error: UnsafeMutablePointer<CChar>?
        let compiled = pattern.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { text in
                cre2_compile(text.baseAddress, text.count, caseInsensitive, Int64(maxMemory),
                             &error)
            }
        }
        guard let compiled else {
            defer { cre2_free_error(error) }
            throw CompileError(description: error.map { String(cString: $0) } ?? "out of memory")
        }
        handle = compiled
    }

    deinit { cre2_free(handle) }

    /// Whether the regex matches anywhere in `text`.
    func matchesAnywhere(in text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { utf8 in
                cre2_partial_match(handle, utf8.baseAddress, utf8.count)
            }
        }
    }
}
