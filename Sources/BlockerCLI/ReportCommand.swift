import BlockerBus
import BlockerCore
import BlockerSystem
import Glibc

/// `blockerctl report [--weeks N] --output FILE.png|FILE.svg`
struct ReportCommand: BlockerCommand {
    static let weeksRange: ClosedRange<UInt32> = 1...52

    static let spec = CommandSpec(
        ["report"],
        abstract: N_("Draw earned and used time per day and per group as a PNG or SVG picture"),
        options: [
            .value("--output", "FILE", required: true,
                   help: N_("the picture to write: a name ending in .png or .svg (replaced whole, never half-written)"),
                   completion: .file),
            .value("--weeks", "N", help: N_("how many weeks back, this one included: 1 to 52 (default 1)")),
        ],
        discussion: N_("Draws a bar per day for the time earned (green) and the metered time used (orange), the time in front of\neach group over those days (busiest first), today's balance and the busiest group. Each gap (blockerd not\nrunning; one across midnight on both days) is a grey mark under its day at its time of day, listed under\nthe groups as history words it (\"off 1h 10m (stopped; 1h 09m unguarded)\"), and the heading totals them\n(\"off 3h 05m in 2 gaps\"). A day with integrity notes (what blockerd saw that may have been a way around\nit) has a red \"!\" badge over its bars, with the time they concerned when a week is shown, and the notes are\nlisted above the gaps as history words them (\"uncovered 14:02 for 18m: ...\"). Up to 7 weeks the picture\nis 1070x496 pixels; from 8 weeks on it grows 12 pixels a day. The numbers: blockerctl history --csv\n(--gaps for the gaps, --notes for the notes)."))

    enum Format: Equatable {
        case png, svg

        init?(path: String) {
            let name = path.lowercased()
            if name.hasSuffix(".png") { self = .png } else if name.hasSuffix(".svg") { self = .svg } else { return nil }
        }
    }

    let output: String
    let format: Format
    let weeks: UInt32

    init(_ arguments: ParsedArguments) throws(UsageError) {
        let output = arguments.value("--output") ?? ""
        guard let format = Format(path: output), !output.hasSuffix("/") else {
            throw UsageError(tr("--output must name a file ending in .png or .svg, not {output}; e.g. --output week.png", ["output": "\(quoted(output))"]))
        }
        self.output = output
        self.format = format
        if let text = arguments.value("--weeks") {
            guard text.count <= 3, text.allSatisfy({ $0.isASCII && $0.isNumber }), let weeks = UInt32(text),
                  Self.weeksRange.contains(weeks) else {
                throw UsageError(tr("--weeks must be a whole number from 1 to 52, not {text}", ["text": "\(quoted(text))"]))
            }
            self.weeks = weeks
        } else {
            weeks = 1
        }
    }

    func run(_ context: CommandContext) throws(CommandFailure) {
        // The file is reserved first: a path that cannot be written fails before blockerd is asked anything.
        let file = try ReplacingFile.reserve(output)
        do throws(CommandFailure) {
            let days = weeks * 7
            let zone = context.localClock.zone
            let (status, rows, gaps, notes, opens) = try context.call { service throws(BusFailure) in
                (try service.status(), try service.history(days: days), HistoryGaps.fetch(service, days: days),
                 HistoryNotes.fetch(service, days: days, now: context.invocation.clock(), zone: zone),
                 HistoryOpens.fetch(service, days: UInt32(days)))
            }
            let layout = ReportLayout(days: HistoryDay.days(from: rows, alsoOn: notes.keys), balanceMs: status.balanceMs,
                                      gaps: gaps, notes: notes, opens: opens, zone: zone)
            do {
                try ReportDrawing.draw(layout, format: format, to: file.temporaryPath)
            } catch {
                throw CommandFailure(tr("cannot draw {output}: {error}", ["output": "\(output)", "error": "\(error)"]), fix: tr("see that the disk is not full, then run it again"))
            }
            try file.commit()
            context.out.line(ReportDrawing.summary(layout, path: output, format: format))
        } catch {
            file.discard()
            throw error
        }
    }
}

/// Paints a `ReportLayout` with cairo: the same rectangles and text on a PNG or an SVG surface.
enum ReportDrawing {
    static func draw(_ layout: ReportLayout, format: ReportCommand.Format, to path: String) throws(CairoError) {
        let canvas = try CairoCanvas(format == .png ? .png : .svg(path: path), width: layout.width, height: layout.height)
        for rect in layout.rects {
            canvas.fill(x: rect.x, y: rect.y, width: rect.width, height: rect.height, color: rect.color)
        }
        // Texts after all rectangles: the "!" on a note's badge is painted over it.
        for text in layout.texts {
            canvas.text(text.text, x: text.x, y: text.y, size: text.size, bold: text.bold, color: text.color,
                        anchor: text.anchor)
        }
        try canvas.finish(pngPath: format == .png ? path : nil)
    }

    /// The line `report` prints: what was written and what it shows.
    static func summary(_ layout: ReportLayout, path: String, format: ReportCommand.Format) -> String {
        let busiest = layout.busiestGroup.map { "busiest group \($0.name) (\(DurationText.format($0.usedMs)))" }
            ?? "no group used"
        return "wrote \(path) (\(format == .png ? "PNG" : "SVG"), \(layout.width)×\(layout.height)): "
            + "\(layout.days.count) days, earned \(DurationText.format(layout.earnedMs)), "
            + "used \(DurationText.format(layout.usedMs)), \(busiest), balance \(DurationText.format(layout.balanceMs))"
            + (layout.offGaps > 0 ? ", off \(DurationText.format(layout.offMs)) in \(layout.offGaps) "
                                    + (layout.offGaps == 1 ? "gap" : "gaps") : "")
            + (layout.noteCount > 0
               ? ", " + ReportLayout.noteTotal(layout.noteCount, ms: layout.noteMs, duration: DurationText.format) : "")
            + opensTotal(layout.opens.values.flatMap { $0 })
    }

    /// ", 9 opens (2 of 5 pauses given up), 1 pass", or "" when no group was opened or passed.
    static func opensTotal(_ rows: [OpenDaySummary]) -> String {
        let (opens, paused, givenUp, passes) = rows.reduce((0, 0, 0, 0)) {
            ($0.0 + $1.opens, $0.1 + $1.paused, $0.2 + $1.givenUp, $0.3 + $1.passes)
        }
        guard opens + passes > 0 else { return "" }
        return ", \(opens) \(opens == 1 ? "open" : "opens")"
            + (paused > 0 ? " (\(givenUp) of \(paused) \(paused == 1 ? "pause" : "pauses") given up)" : "")
            + (passes > 0 ? ", \(passes) \(passes == 1 ? "pass" : "passes")" : "")
    }
}

/// A file that appears at its path whole or not at all: written under a
/// temporary name in the same directory (so rename(2) is atomic), synced,
/// then renamed over the path. `discard` removes the temporary file.
struct ReplacingFile {
    let path: String
    let temporaryPath: String

    static func reserve(_ path: String) throws(CommandFailure) -> ReplacingFile {
        let directory: String, name: String
        if let slash = path.lastIndex(of: "/") {
            directory = slash == path.startIndex ? "/" : String(path[..<slash])
            name = String(path[path.index(after: slash)...])
        } else {
            directory = "."
            name = path
        }
        if case let .success(status) = SystemCalls.status(of: path), status.isDirectory {
            throw CommandFailure(tr("cannot write {path}: it is a directory", ["path": "\(path)"]),
                                 fix: tr("give --output a file name ending in .png or .svg"))
        }
        var template = Array("\(directory)/.\(name).XXXXXX".utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else {
            let code = Errno.current
            let fix: String
            switch code.rawValue {
            case ENOENT: fix = "create the directory \(directory) first, or choose another --output"
            case ENOTDIR: fix = "\(directory) is not a directory; choose another --output"
            case EACCES, EPERM, EROFS: fix = "choose an --output in a directory you can write to"
            default: fix = "choose another --output"
            }
            throw CommandFailure(tr("cannot write {path}: cannot create a file in {directory} ({code})", ["path": "\(path)", "directory": "\(directory)", "code": "\(code)"]), fix: fix)
        }
        // Readable like any file the user makes (mkstemp's is 0600).
        let mask = umask(0)
        umask(mask)
        fchmod(descriptor, 0o666 & ~mask)
        close(descriptor)
        return ReplacingFile(path: path, temporaryPath: template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
    }

    func commit() throws(CommandFailure) {
        let descriptor = open(temporaryPath, O_RDONLY | O_CLOEXEC)
        if descriptor >= 0 {
            fsync(descriptor)
            close(descriptor)
        }
        guard rename(temporaryPath, path) == 0 else {
            throw CommandFailure(tr("cannot put {path} in place ({current})", ["path": "\(path)", "current": "\(Errno.current)"]), fix: tr("choose another --output"))
        }
    }

    func discard() { unlink(temporaryPath) }
}
