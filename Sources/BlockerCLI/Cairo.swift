import CCairo

// The only Swift that calls cairo_*: a surface to paint rectangles and text on,
// written as PNG or SVG, and a PNG read back (tests sample its pixels).
// No cairo pointer leaves this file.

/// What cairo said went wrong, in its words.
struct CairoError: Error, Equatable, CustomStringConvertible {
    var description: String

    init(_ status: cairo_status_t, _ action: String) {
        description = "\(action): \(String(cString: cairo_status_to_string(status)))"
    }
}

/// One drawing: an image surface (written as PNG at the end) or an SVG
/// surface (cairo streams it to its file as it goes, complete at `finish`).
final class CairoCanvas {
    enum Kind: Equatable {
        case png
        /// The SVG is written to this path.
        case svg(path: String)
    }

    private let surface: OpaquePointer
    private let context: OpaquePointer
    private let kind: Kind
    private var finished = false

    init(_ kind: Kind, width: Int, height: Int) throws(CairoError) {
        self.kind = kind
        switch kind {
        case .png:
            surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, Int32(width), Int32(height))
        case let .svg(path):
            surface = cairo_svg_surface_create(path, Double(width), Double(height))
            // Pixels, so the SVG's numbers are the layout's (1.16 defaults to points).
            cairo_svg_surface_set_document_unit(surface, CAIRO_SVG_UNIT_PX)
        }
        let status = cairo_surface_status(surface)
        guard status == CAIRO_STATUS_SUCCESS else {
            cairo_surface_destroy(surface)
            throw CairoError(status, "cannot create the drawing surface")
        }
        context = cairo_create(surface)
    }

    deinit {
        cairo_destroy(context)
        if !finished { cairo_surface_finish(surface) }
        cairo_surface_destroy(surface)
    }

    private func setColor(_ color: ReportColor) {
        cairo_set_source_rgb(context, Double(color.red) / 255, Double(color.green) / 255, Double(color.blue) / 255)
    }

    func fill(x: Int, y: Int, width: Int, height: Int, color: ReportColor) {
        setColor(color)
        cairo_rectangle(context, Double(x), Double(y), Double(width), Double(height))
        cairo_fill(context)
    }

    /// `text` on the baseline at y, its left end, middle or right end at x.
    func text(_ text: String, x: Int, y: Int, size: Int, bold: Bool, color: ReportColor,
              anchor: ReportLayout.Text.Anchor) {
        cairo_select_font_face(context, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL,
                               bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL)
        cairo_set_font_size(context, Double(size))
        var extents = cairo_text_extents_t()
        cairo_text_extents(context, text, &extents)
        let shift = switch anchor {
        case .start: 0.0
        case .middle: extents.x_advance / 2
        case .end: extents.x_advance
        }
        setColor(color)
        cairo_move_to(context, Double(x) - shift, Double(y))
        cairo_show_text(context, text)
    }

    /// Ends the drawing: PNG → written to `pngPath`; SVG → flushed and closed.
    func finish(pngPath: String?) throws(CairoError) {
        let drawing = cairo_status(context)
        guard drawing == CAIRO_STATUS_SUCCESS else { throw CairoError(drawing, "cannot draw the report") }
        switch kind {
        case .png:
            cairo_surface_flush(surface)
            let status = cairo_surface_write_to_png(surface, pngPath ?? "")
            guard status == CAIRO_STATUS_SUCCESS else { throw CairoError(status, "cannot write the PNG") }
        case .svg:
            cairo_surface_finish(surface)
            finished = true
            let status = cairo_surface_status(surface)
            guard status == CAIRO_STATUS_SUCCESS else { throw CairoError(status, "cannot write the SVG") }
        }
    }
}

/// A PNG read back into memory, for looking at its pixels.
struct CairoPNG {
    let width: Int
    let height: Int
    /// Row-major 0xRRGGBB (alpha dropped).
    private let pixels: [UInt32]

    init(path: String) throws(CairoError) {
        let surface = cairo_image_surface_create_from_png(path)
        defer { cairo_surface_destroy(surface) }
        let status = cairo_surface_status(surface)
        guard status == CAIRO_STATUS_SUCCESS else { throw CairoError(status, "cannot read \(path)") }
        cairo_surface_flush(surface)
        width = Int(cairo_image_surface_get_width(surface))
        height = Int(cairo_image_surface_get_height(surface))
        let stride = Int(cairo_image_surface_get_stride(surface))
        var pixels = [UInt32](repeating: 0, count: width * height)
        if let data = cairo_image_surface_get_data(surface) {
            // ARGB32 and RGB24 are both native-endian 32-bit words.
            let raw = UnsafeRawPointer(data)
            for y in 0..<height {
                for x in 0..<width {
                    pixels[y * width + x] = raw.load(fromByteOffset: y * stride + x * 4, as: UInt32.self) & 0xFF_FFFF
                }
            }
        }
        self.pixels = pixels
    }

    func color(x: Int, y: Int) -> ReportColor? {
        guard (0..<width).contains(x), (0..<height).contains(y) else { return nil }
        return ReportColor(pixels[y * width + x])
    }
}
