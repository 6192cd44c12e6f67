/// Lays out the demo's summary lines to fit a terminal's width, so that redrawing them in place
/// moves the cursor up exactly as many lines as were written (a line the terminal wraps itself
/// counts twice on the screen and once in the redraw).
enum LineLayout {
    /// `items` after `label`, two spaces apart, on as few lines of at most `columns` characters
    /// as it takes (at least the label and two more): lines break between items and go on
    /// indented as far as the first item. An item too long for a line of its own breaks between
    /// words, and a word too long is cut, ending in "…". The first item follows the label after
    /// two spaces, or after `gap`. Control characters show as spaces: each takes no column, or
    /// moves the cursor.
    static func wrap(_ label: String, _ items: [String], columns: Int, gap: String = "  ") -> [String] {
        let indent = String(repeating: " ", count: label.count + gap.count)
        let width = max(columns, indent.count + 2)
        var lines: [String] = []
        var line = label + gap
        var lineHasItem = false
        for item in items.flatMap({ pieces(of: printable($0), width: width - indent.count) }) {
            let separator = lineHasItem ? "  " : ""
            if lineHasItem && line.count + separator.count + item.count > width {
                lines.append(line)
                line = indent + item
            } else {
                line += separator + item
            }
            lineHasItem = true
        }
        lines.append(line)
        return lines
    }

    private static func printable(_ text: String) -> String {
        func isControl(_ scalar: Unicode.Scalar) -> Bool { scalar.properties.generalCategory == .control }
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var shown = String.UnicodeScalarView()
        shown.append(contentsOf: text.unicodeScalars.map { isControl($0) ? " " : $0 })
        return String(shown)
    }

    /// `text` broken into pieces of at most `width` characters: whole when it fits, else between
    /// words, with a word longer than `width` cut.
    private static func pieces(of text: String, width: Int) -> [String] {
        guard text.count > width else { return [text] }
        var pieces: [String] = []
        var piece = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: true).map(String.init) {
            let word = word.count > width ? String(word.prefix(width - 1)) + "…" : word
            if piece.isEmpty {
                piece = word
            } else if piece.count + 1 + word.count <= width {
                piece += " " + word
            } else {
                pieces.append(piece)
                piece = word
            }
        }
        if !piece.isEmpty { pieces.append(piece) }
        return pieces
    }
}
