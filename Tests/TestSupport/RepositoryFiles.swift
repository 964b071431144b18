import Foundation

/// This repository's own files, found from this source file
/// (Tests/TestSupport/ → the root): the documents the tests check against
/// the declarations they repeat.
public enum RepositoryFile {
    public static let root: String = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path

    /// The text of `path`, relative to the root: `docs/man/blockerd.8`.
    public static func text(_ path: String) throws -> String {
        try String(contentsOfFile: "\(root)/\(path)", encoding: .utf8)
    }

    /// The body rows (`| … |` lines, header and rule left out) of the first
    /// table after `heading` (`## D-Bus`) in a Markdown file.
    public static func tableRows(_ path: String, after heading: String) throws -> [Substring] {
        let text = try text(path)
        guard let section = text.firstRange(of: "\n\(heading)\n") else { throw TestFailure("\(path) has no \(heading)") }
        let lines = text[section.upperBound...].split(separator: "\n")
        return Array(lines.drop { !$0.hasPrefix("|") }.prefix { $0.hasPrefix("|") }.dropFirst(2))
    }

    /// A man page's source line as it reads: quotes, `\-`, `\(dq` and `\&` undone.
    public static func roffPlain(_ line: Substring) -> String {
        line.replacingOccurrences(of: "\\-", with: "-").replacingOccurrences(of: "\\(dq", with: "\u{1}")
            .replacingOccurrences(of: "\\&", with: "").replacingOccurrences(of: "\"", with: "")
            .replacingOccurrences(of: "\u{1}", with: "\"")
    }
}
