/// What X11 properties say, decoded: pure, apart from the probe's I/O.
extension X11Probe {
    /// `WM_CLASS` is "instance\0class\0".
    static func parseClass(_ property: XProperty?) -> (instance: String?, wmClass: String?) {
        guard let property else { return (nil, nil) }
        let parts = property.bytes.split(separator: 0, omittingEmptySubsequences: false)
        func part(_ i: Int) -> String? {
            guard i < parts.count, !parts[i].isEmpty else { return nil }
            return text(XProperty(type: property.type, format: 8, bytes: Array(parts[i])))
        }
        return (part(0), part(1))
    }

    /// A text property. `_NET_WM_NAME` is UTF-8 whatever its type says
    /// (xdotool stores it as STRING); type STRING is Latin-1 by the book, but
    /// many clients put UTF-8 there, so valid UTF-8 is read as UTF-8.
    static func text(_ property: XProperty?, alwaysUTF8: Bool = false) -> String? {
        guard let property, property.format == 8 else { return nil }
        var bytes = property.bytes[...]
        while bytes.last == 0 { bytes = bytes.dropLast() }
        if alwaysUTF8 || property.type != .string { return String(decoding: bytes, as: UTF8.self) }
        return String(validating: bytes, as: UTF8.self) ?? latin1(bytes)
    }

    private static func latin1<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> String {
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: bytes.map { Unicode.Scalar($0) })
        return String(scalars)
    }
}
