/// Text for a sink that parses Pango markup (waybar's tooltip, a
/// notification's body): window titles and app ids are chosen by whatever
/// runs — any web page sets its title — so they go in as text, never as markup.
public enum MarkupText {
    /// `text` as Pango markup that shows exactly `text`: the five XML
    /// characters become entities, and the C0 controls GMarkup refuses
    /// (all but tab and newline; one would blank the whole tooltip) are dropped.
    public static func escaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\t", "\n": out.unicodeScalars.append(scalar)
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F { continue }
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
