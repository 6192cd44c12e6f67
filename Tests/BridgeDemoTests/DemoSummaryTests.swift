import FCMBridgeClient
import Foundation
import PropertyBased
import Testing

@testable import BridgeDemo

@Suite("The demo's summary on a terminal")
struct DemoSummaryTests {
    /// A busy run: every count large, a full set of long notable events.
    static func busyBoard(step: Int) throws -> DemoScoreboard {
        var board = DemoScoreboard()
        board.record(.sent(requests: 123_456 + step, outcomes: 130_000))
        board.record(.online(87))
        board.record(.acknowledged(count: 99_999))
        let statuses = [
            #"{"type":"queued","message_id":"1:1:0","token":"demo-1a2b3c4d-17","at":1}"#,
            #"{"type":"collapsed","message_id":"1:2:0","token":"demo-1a2b3c4d-17","at":1,"reason":"collapse_key","replaced_by":"1:3:0"}"#,
            #"{"type":"rejected","message_id":"1:4:0","token":"demo-1a2b3c4d-23","at":1,"reason":"invalid_data_key","detail":"message.data.from: reserved key"}"#,
            #"{"type":"deleted_messages","token":"demo-1a2b3c4d-40","at":2,"reason":"too_many_pending","count":101,"message_ids":["1:5:0"]}"#,
        ]
        for json in statuses { board.record(.status(try StatusEvent.decode(Array(json.utf8)))) }
        board.record(
            .inbox(
                InboxRecord(
                    kind: "deleted_messages", token: "demo-1a2b3c4d-40", reason: "too_many_pending", count: 101 + step))
        )
        return board
    }

    static func summary(_ board: DemoScoreboard, second: Int, columns: Int) -> [String] {
        DemoSummary.lines(
            board, previous: DemoScoreboard(), interval: .seconds(1), elapsed: .seconds(second),
            duration: .seconds(600),
            devices: 100, columns: columns)
    }

    @Test(
        "every line fits the terminal, and redrawn every second the screen holds the last summary only",
        arguments: [80, 120, 200])
    func redraw(columns: Int) throws {
        let display = TerminalDisplay(isTerminal: true, columns: columns)
        var screen = TerminalScreen(columns: columns)
        var shown = 0
        var last: [String] = []
        for second in 1...5 {
            last = Self.summary(try Self.busyBoard(step: second), second: second, columns: display.lineWidth)
            #expect(last.allSatisfy { $0.count < columns }, "\(last)")
            let (text, count) = display.rendering(last, replacing: shown)
            screen.write(text)
            shown = count
        }
        #expect(screen.text == last)
        #expect(screen.text.filter { $0.hasPrefix("fcm-bridge demo") }.count == 1)
        for type in DemoScoreboard.shownTypes { #expect(last.joined().contains(type.name)) }
    }

    @Test("on a wide terminal the summary keeps one line per part")
    func wide() throws {
        let lines = Self.summary(try Self.busyBoard(step: 0), second: 3, columns: 220)
        #expect(lines.count == 5 + 3)
        #expect(lines[2].hasPrefix("statuses  queued 1  dispatched 0"))
    }

    @Test("a summary that shrinks leaves no line of the one before", arguments: [80, 120])
    func shrinking(columns: Int) throws {
        let display = TerminalDisplay(isTerminal: true, columns: columns)
        var screen = TerminalScreen(columns: columns)
        let long = Self.summary(try Self.busyBoard(step: 1), second: 1, columns: display.lineWidth)
        let (first, shown) = display.rendering(long, replacing: 0)
        screen.write(first)
        let short = Self.summary(DemoScoreboard(), second: 2, columns: display.lineWidth)
        screen.write(display.rendering(short, replacing: shown).text)
        #expect(screen.text == short)
    }

    @Test(
        "lines are laid out to the width: broken between items, then words; a word too long is cut",
        arguments: [
            (
                "statuses", ["queued 1", "dispatched 2", "delivered 3"], 30,
                ["statuses  queued 1", "          dispatched 2", "          delivered 3"]
            ),
            ("statuses", ["queued 1", "dispatched 2"], 40, ["statuses  queued 1  dispatched 2"]),
            (
                "  >", ["a notable event that is longer than the line"], 24,
                ["  > a notable event that", "    is longer than the", "    line"]
            ),
            ("  >", ["averyveryverylongtokenthatcannotbreak ok"], 20, ["  > averyveryverylo…", "    ok"]),
            ("", ["nothing to break"], 40, ["nothing to break"]),
        ])
    func layout(label: String, items: [String], columns: Int, expected: [String]) {
        let gap = label.hasPrefix(" ") ? " " : label.isEmpty ? "" : "  "
        #expect(LineLayout.wrap(label, items, columns: columns, gap: gap) == expected)
    }

    @Test("random items at random widths: every line fits, and every word is there in order, whole or cut")
    func layoutProperty() async {
        let word = Gen.int(in: 1...30).map { String(repeating: "w", count: $0) }
        let item = word.array(of: 1...6).map { $0.joined(separator: " ") }
        await propertyCheck(count: 500, input: Gen.int(in: 20...140), item.array(of: 0...8)) { columns, items in
            let lines = LineLayout.wrap("label", items, columns: columns)
            #expect(lines.allSatisfy { $0.count <= columns })
            let words = lines.joined(separator: " ").split(separator: " ").dropFirst().map(String.init)
            let expected = items.flatMap { $0.split(separator: " ").map(String.init) }
            #expect(words.count == expected.count)
            for (word, original) in zip(words, expected) {
                #expect(word == original || word.hasSuffix("…") && original.hasPrefix(word.dropLast()))
            }
        }
    }

    @Test("control characters take no column of their own: they show as spaces")
    func controlCharacters() {
        #expect(LineLayout.wrap("  >", ["a\u{1B}[2Jb\tc\nd"], columns: 80, gap: " ") == ["  > a [2Jb c d"])
    }

    @Test("a line too long for the terminal is cut by the display, so the redraw still fits", arguments: [80, 120])
    func displayCuts(columns: Int) {
        let display = TerminalDisplay(isTerminal: true, columns: columns)
        var screen = TerminalScreen(columns: columns)
        var shown = 0
        for second in 0..<3 {
            let lines = ["title \(second)", String(repeating: "x", count: columns * 2), "last"]
            let (text, count) = display.rendering(lines, replacing: shown)
            screen.write(text)
            shown = count
        }
        #expect(screen.text == ["title 2", String(repeating: "x", count: columns - 1), "last"])
    }
}
