/// Where text goes: the process's stdout/stderr, or a buffer (tests, end-to-end harnesses).
public protocol TextOutput: AnyObject {
    func write(_ text: String)
}

/// Writes straight to a file descriptor with write(2): no stdio buffer to flush
/// before `exit` or `execvp`, and nothing shared to race on in Swift 6 mode.
public final class FileDescriptorOutput: TextOutput {
    public let descriptor: Int32
    public init(descriptor: Int32) { self.descriptor = descriptor }
    public func write(_ text: String) { SystemCalls.writeAll(descriptor, text) }
}

/// Collects everything written, for tests and for callers that want the text.
public final class CapturedOutput: TextOutput {
    public private(set) var text = ""
    public init() {}
    public func write(_ text: String) { self.text += text }
}

/// ANSI styles used in human output.
public enum Style: String, Sendable, CaseIterable {
    case bold = "1", dim = "2", red = "31", green = "32", yellow = "33", cyan = "36"
}

/// Colors only where a person is looking: stdout is a terminal, NO_COLOR is
/// not set (no-color.org: set and non-empty), and TERM is not "dumb".
public func colorEnabled(stdoutIsTerminal: Bool, environment: [String: String]) -> Bool {
    guard stdoutIsTerminal else { return false }
    if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return false }
    return environment["TERM"] != "dumb"
}

/// A stream plus whether it may be painted.
public struct Printer {
    public let output: any TextOutput
    public let color: Bool

    public init(output: any TextOutput, color: Bool) {
        self.output = output
        self.color = color
    }

    public func line(_ text: String = "") { output.write(text + "\n") }

    /// `text` wrapped in the style's escape codes, or untouched when colors are off.
    /// Pad before painting: escape codes have no width but count as characters.
    public func paint(_ text: String, _ style: Style) -> String {
        color && !text.isEmpty ? "\u{1B}[\(style.rawValue)m\(text)\u{1B}[0m" : text
    }
}

/// Label/value rows with the values in one column.
enum AlignedRows {
    static func render(_ rows: [(label: String, value: String)], gap: Int = 2) -> [String] {
        let width = rows.map(\.label.count).max() ?? 0
        return rows.map { $0.label.padding(to: width + gap) + $0.value }
    }
}

extension String {
    /// Pads with spaces on the right to `width` characters (never truncates).
    func padding(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }

    /// Pads with spaces on the left to `width` characters.
    func leftPadding(to width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
