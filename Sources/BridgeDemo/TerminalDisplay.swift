import Foundation

/// Where the demo's summary goes: on a terminal, redrawn in place every second; otherwise (a
/// pipe, a log file, a test), printed every `pipedEvery` seconds.
public struct TerminalDisplay: Sendable {
    /// Whether standard output is a terminal, where the summary is redrawn in place.
    public var isTerminal: Bool
    /// Seconds between summaries when it is not.
    public var pipedEvery: Int

    /// Standard output, whatever it is.
    public init(isTerminal: Bool = isatty(STDOUT_FILENO) == 1, pipedEvery: Int = 5) {
        self.isTerminal = isTerminal
        self.pipedEvery = max(pipedEvery, 1)
    }

    /// Shows a summary, on a terminal in place of the `replacing` lines shown last; returns how
    /// many lines are there now.
    func show(_ lines: [String], replacing: Int) -> Int {
        if isTerminal {
            // Up to the first line shown last, then each line cleared before it is written.
            let up = replacing > 0 ? "\u{1B}[\(replacing)F" : ""
            var text = up + lines.map { "\u{1B}[2K" + $0 }.joined(separator: "\n") + "\n"
            for _ in lines.count..<max(replacing, lines.count) { text += "\u{1B}[2K\n" }
            write(text)
            return max(replacing, lines.count)
        }
        write(lines.joined(separator: "\n") + "\n\n")
        return 0
    }

    /// Shows the last summary, `lines`, for good, replacing the `replacing` lines shown last.
    func finish(_ lines: [String], replacing: Int) {
        if isTerminal {
            _ = show(lines, replacing: replacing)
        } else {
            write(lines.joined(separator: "\n") + "\n")
        }
    }

    private func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }
}
