import BlockerBus
import BlockerCore
import BlockerJSON

/// One line for a status bar, from a status (or from blockerd being away): pure.
/// waybar's `custom` module with `return-type: json` reads {text, tooltip,
/// class, percentage}; i3blocks (`format=json`) reads {full_text, short_text,
/// color}; polybar and i3status read plain text.
enum StatusBar {
    enum Format: String, CaseIterable {
        case waybar, i3blocks, text
    }

    /// The `class`: shielded (the app in front is covered), low (under the
    /// threshold), ok; down while blockerd is not running.
    enum State: String {
        case ok, low, shielded, down
    }

    /// A full bar is an hour of balance.
    static let fullBalanceMs: Milliseconds = 3_600_000

    struct Line: Equatable {
        var text: String
        var tooltip: String
        var state: State
        var percentage: Int
    }

    /// The status `elapsedMs` after it was asked: while spending, the time
    /// since comes off the balance and counts as used (blockerd shields at zero
    /// and says so).
    static func projected(_ report: StatusReport?, elapsedMs: Milliseconds) -> StatusReport? {
        guard var report, report.spending else { return report }
        let spent = min(max(0, elapsedMs), max(0, report.balanceMs))
        report.balanceMs -= spent
        report.todayUsedMs += spent
        return report
    }

    /// How long until the projected balance loses its next whole second, or
    /// nil when it is not being spent (wait for a signal only).
    static func nextSecond(_ report: StatusReport?, elapsedMs: Milliseconds) -> Milliseconds? {
        guard let report, report.spending else { return nil }
        let left = report.balanceMs - max(0, elapsedMs)
        guard left > 0 else { return nil }
        let intoSecond = left % 1000
        return intoSecond == 0 ? 1000 : intoSecond
    }

    static func line(_ report: StatusReport?, lowMs: Milliseconds, clock: LocalClock, now: WallInstant) -> Line {
        guard let report else {
            return Line(text: tr("blocker off"), tooltip: tr("blockerd is not running — systemctl --user start blockerd"),
                        state: .down, percentage: 0)
        }
        let balance = DurationText.format(report.balanceMs)
        let state: State = report.shield.active ? .shielded : report.balanceMs <= lowMs ? .low : .ok
        // The tooltip reads as `status` does: the same words, one line each.
        var tooltip = [tr("balance") + " " + balance]
        if let front = report.foreground { tooltip.append(tr("front") + " " + StatusText.describe(front)) }
        if report.locked { tooltip.append(tr("screen locked")) }
        if report.shield.active {
            tooltip.append(tr("shield") + " " + tr("up")
                           + StatusText.shieldDetail(report.shield, clock: clock, now: now, naming: .noSite))
        }
        tooltip.append(tr("today") + " " + StatusText.today(report))
        let percentage = Int(min(100, (max(0, report.balanceMs) * 100).count(of: fullBalanceMs)))
        return Line(text: state == .shielded ? tr("{balance} (covered)", ["balance": balance]) : balance,
                    tooltip: tooltip.joined(separator: "\n"), state: state, percentage: percentage)
    }

    /// i3blocks' colors by state (the bar's own default for ok).
    static func color(_ state: State) -> String? {
        switch state {
        case .ok: nil
        case .low: "#FFB000"
        case .shielded: "#FF4040"
        case .down: "#808080"
        }
    }

    static func render(_ line: Line, format: Format) -> String {
        switch format {
        case .waybar:
            // waybar parses both as Pango markup; the tooltip carries the window's title.
            return JSONValue.object([
                ("text", .string(MarkupText.escaped(line.text))), ("tooltip", .string(MarkupText.escaped(line.tooltip))),
                ("class", .string(line.state.rawValue)), ("percentage", .integer(Int64(line.percentage))),
            ]).rendered
        case .i3blocks:
            var fields: [(String, JSONValue)] = [("full_text", .string(line.text)), ("short_text", .string(line.text))]
            if let color = color(line.state) { fields.append(("color", .string(color))) }
            return JSONValue.object(fields).rendered
        case .text:
            return line.state == .down ? line.text : "\(line.text) [\(line.state.rawValue)]"
        }
    }
}
