import FCMBridgeClient

/// The demo's terminal summary, as lines of text.
public enum DemoSummary {
    /// The live summary after `elapsed` of a run of `duration` (nil: until Ctrl-C), with rates
    /// since `previous`, one `interval` ago, in lines of at most `columns` characters (at least 12).
    public static func lines(
        _ board: DemoScoreboard, previous: DemoScoreboard, interval: Duration, elapsed: Duration,
        duration: Duration?, devices: Int, columns: Int = .max
    ) -> [String] {
        let seconds = max(interval / .seconds(1), 0.001)
        func rate(_ value: KeyPath<DemoScoreboard, Int>) -> Int {
            Int((Double(board[keyPath: value] - previous[keyPath: value]) / seconds).rounded())
        }
        let statuses = DemoScoreboard.shownTypes.map { "\($0.name) \(board.statuses[$0, default: 0])" }
        return LineLayout.wrap(
            "fcm-bridge demo", progress(board, elapsed: elapsed, duration: duration), columns: columns)
            + LineLayout.wrap(
                "requests",
                [
                    "\(board.requestsSent) sent (\(rate(\.requestsSent))/s)",
                    "inbox \(board.inboxMessages) messages (\(rate(\.inboxMessages))/s)",
                    "acks \(board.acknowledged)",
                ], columns: columns)
            + LineLayout.wrap("statuses", statuses, columns: columns)
            + LineLayout.wrap(
                "devices",
                [
                    "\(board.online) of \(devices) online", "waiting \(board.waiting.count) messages",
                    "full syncs \(board.fullSyncs)",
                ], columns: columns, gap: "   ")
            + LineLayout.wrap(
                "topics",
                [
                    "\(board.statuses[.fannedOut, default: 0]) sends fanned out to \(board.devicesReached) devices",
                    "\(board.pendingFanOuts) fanning out",
                ], columns: columns, gap: "   ")
            + board.notable.flatMap { LineLayout.wrap("  >", [$0], columns: columns, gap: " ") }
    }

    /// The closing line: whether every request was accounted for, in lines of at most `columns`
    /// characters.
    public static func verdict(_ board: DemoScoreboard, elapsed: Duration, columns: Int = .max) -> [String] {
        let figures =
            "\(board.outcomes) of \(board.expectedOutcomes) final statuses for \(board.requestsSent) requests, "
            + "\(board.waiting.count) waiting, \(board.repeats) repeated"
        let after = "after \(clock(elapsed))"
        let verdict: String
        if board.stopped || !board.checksEachMessage {
            verdict = "demo stopped \(after)"
        } else {
            verdict =
                board.accountedFor
                ? "demo finished \(after): every outcome accounted for"
                : "demo finished \(after): NOT every outcome accounted for"
        }
        return LineLayout.wrap("", ["\(verdict) (\(figures))"], columns: columns, gap: "")
    }

    private static func progress(_ board: DemoScoreboard, elapsed: Duration, duration: Duration?) -> [String] {
        guard let duration else { return [clock(elapsed), "(Ctrl-C stops it)"] }
        if board.trafficStopped {
            return [clock(elapsed), "traffic stopped; every device online; waiting for the last statuses"]
        }
        let fraction = duration > .zero ? min(max(elapsed / duration, 0), 1) : 1
        let filled = Int((fraction * 30).rounded(.down))
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: 30 - filled)
        return ["\(clock(elapsed)) / \(clock(duration))", "[\(bar)] \(Int((fraction * 100).rounded(.down)))%"]
    }

    /// `mm:ss`.
    static func clock(_ duration: Duration) -> String {
        let seconds = max(duration.components.seconds, 0)
        let minutes = seconds / 60
        let rest = seconds % 60
        return (minutes < 10 ? "0" : "") + "\(minutes):" + (rest < 10 ? "0" : "") + "\(rest)"
    }
}
