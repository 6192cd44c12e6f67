import Foundation

/// Where the demo's summary goes: on a terminal, redrawn in place every second in lines that fit
/// its width; otherwise (a pipe, a log file, a test), printed every `pipedEvery` seconds.
public struct TerminalDisplay: Sendable {
    /// Whether standard output is a terminal, where the summary is redrawn in place.
    public var isTerminal: Bool
    /// Seconds between summaries when it is not.
    public var pipedEvery: Int
    /// The terminal's width in columns; nil: read it from the terminal at each redraw, so that a
    /// resized terminal is redrawn to its new width.
    public var columns: Int?

    /// Standard output, whatever it is.
    public init(isTerminal: Bool = isatty(STDOUT_FILENO) == 1, pipedEvery: Int = 5, columns: Int? = nil) {
        self.isTerminal = isTerminal
        self.pipedEvery = max(pipedEvery, 1)
        self.columns = columns
    }

    /// How many characters a line may have: one less than the terminal's columns (a line that
    /// reaches the last column wraps at once on some terminals), at least 40; unbounded when the
    /// output is not a terminal.
    public var lineWidth: Int {
        guard isTerminal else { return .max }
        return max(columns ?? Self.terminalColumns(), 41) - 1
    }

    /// Shows a summary, on a terminal in place of the `replacing` lines shown last; returns how
    /// many lines are there now.
    func show(_ lines: [String], replacing: Int) -> Int {
        let (text, shown) = rendering(lines, replacing: replacing)
        write(text)
        return shown
    }

    /// Shows the last summary, `lines`, for good, replacing the `replacing` lines shown last.
    func finish(_ lines: [String], replacing: Int) {
        if isTerminal {
            _ = show(lines, replacing: replacing)
        } else {
            write(lines.joined(separator: "\n") + "\n")
        }
    }

    /// The text that shows `lines` in place of the `replacing` lines shown last, and how many
    /// lines are there then. On a terminal, each line is cut to ``lineWidth``, so that none wraps
    /// and the next redraw goes up exactly as many lines as this one wrote.
    func rendering(_ lines: [String], replacing: Int) -> (text: String, shown: Int) {
        guard isTerminal else { return (lines.joined(separator: "\n") + "\n\n", 0) }
        let width = lineWidth
        // Up to the first line shown last, then each line cleared before it is written.
        var text = replacing > 0 ? "\u{1B}[\(replacing)F" : ""
        text +=
            lines.map { "\u{1B}[2K" + ($0.count > width ? String($0.prefix(width)) : $0) }.joined(separator: "\n")
            + "\n"
        for _ in lines.count..<max(replacing, lines.count) { text += "\u{1B}[2K\n" }
        return (text, max(replacing, lines.count))
    }

    /// Standard output's width in columns, 80 when it does not say.
    static func terminalColumns() -> Int {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
        return Int(size.ws_col)
    }

    private func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }
}
