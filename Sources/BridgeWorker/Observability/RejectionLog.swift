import BridgeCore
import Logging

/// Logs each rejected or dead-lettered input with its reason and source, at most
/// ``maximumPerWindow`` lines per ``window``, so a flood of bad input cannot fill a disk; what it
/// held back is counted, and the count is logged when the window ends.
struct RejectionLog {
    static let window = Duration.seconds(10)
    static let maximumPerWindow = 20

    let logger: Logger
    private var windowStart: ContinuousClock.Instant
    private var logged = 0
    private var suppressed = 0

    init(logger: Logger, now: ContinuousClock.Instant = .now) {
        self.logger = logger
        self.windowStart = now
    }

    /// Logs the rejections `tally` noted, as far as the window allows.
    mutating func log(_ tally: OutputTally, now: ContinuousClock.Instant) {
        endWindowIfDue(now: now)
        for note in tally.notes {
            guard logged < Self.maximumPerWindow else {
                suppressed += 1
                continue
            }
            logged += 1
            logger.notice(
                note.deadLettered ? "rejected input, written to the dead letter topic" : "rejected input",
                metadata: [
                    "source": "\(note.source)", "reason": "\(note.reason)", "detail": "\(note.detail)",
                ])
        }
        suppressed += tally.unnotedRejections
    }

    /// Ends the window when it is over, saying how many lines it held back.
    mutating func endWindowIfDue(now: ContinuousClock.Instant) {
        guard now - windowStart >= Self.window else { return }
        if suppressed > 0 {
            logger.warning(
                "rejected inputs not logged, over the limit of \(Self.maximumPerWindow) lines per \(Self.window)",
                metadata: [
                    "suppressed": "\(suppressed)"
                ])
        }
        windowStart = now
        logged = 0
        suppressed = 0
    }
}
