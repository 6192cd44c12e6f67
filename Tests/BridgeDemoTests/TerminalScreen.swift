/// A terminal screen of fixed width, as xterm and tmux keep one: enough of it to show what the
/// demo's redraws leave on the screen. Text wraps at the last column (deferred: the wrap happens
/// at the next character), `\n` is a carriage return and a line feed (the tty's `onlcr`),
/// `ESC [ n F` moves to the start of the line n above (not above the top), `ESC [ 2 K` clears
/// the cursor's line. The screen scrolls without limit, so every line ever written stays.
struct TerminalScreen {
    let columns: Int
    private(set) var rows: [[Character]] = [[]]
    private var row = 0
    private var column = 0
    private var wrapPending = false

    init(columns: Int) { self.columns = columns }

    /// The lines on the screen that hold anything, trailing spaces dropped.
    var text: [String] {
        rows.map { String($0).replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression) }.filter {
            !$0.isEmpty
        }
    }

    mutating func write(_ text: String) {
        var characters = text.makeIterator()
        while let character = characters.next() {
            switch character {
            case "\n":
                lineFeed()
            case "\u{1B}":
                guard characters.next() == "[" else { continue }
                var parameter = ""
                while let next = characters.next() {
                    if next.isNumber {
                        parameter.append(next)
                        continue
                    }
                    let count = Int(parameter) ?? 1
                    if next == "F" {
                        row = max(row - count, 0)
                        column = 0
                        wrapPending = false
                    } else if next == "K", count == 2 {
                        rows[row] = []
                    }
                    break
                }
            default:
                if wrapPending { lineFeed() }
                while rows[row].count < column { rows[row].append(" ") }
                if column < rows[row].count { rows[row][column] = character } else { rows[row].append(character) }
                if column == columns - 1 { wrapPending = true } else { column += 1 }
            }
        }
    }

    private mutating func lineFeed() {
        row += 1
        column = 0
        wrapPending = false
        if row == rows.count { rows.append([]) }
    }
}
