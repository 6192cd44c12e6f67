import Foundation
import Logging
import ServiceLifecycle
import UnixSignals

/// How `fcm-bridge run` ends on SIGTERM or SIGINT: the first starts a graceful shutdown of the
/// service group (finish the batch at hand, leave the consumer group); a second one, or the
/// shutdown deadline passing, ends the process at once. Ending at once loses nothing: offsets are
/// committed only with their outputs, so the partitions' next owner processes the rest again.
enum ShutdownSignals {
    /// The signals it watches, trapped from now on: made before anything starts, so that no
    /// signal finds the process with the default action (an exit that skips the shutdown).
    static func trap() async -> UnixSignalsSequence {
        await UnixSignalsSequence(trapping: .sigterm, .sigint)
    }

    /// Watches `signals` (from ``trap()``) until the calling task is cancelled (when `group`
    /// has finished).
    static func watch(_ signals: UnixSignalsSequence, _ group: ServiceGroup, deadline: Duration, logger: Logger) async {
        await withTaskGroup(of: Void.self) { deadlineTask in
            var shuttingDown = false
            for await signal in signals {
                guard !shuttingDown else {
                    logger.warning(
                        "second signal: exiting at once; whatever was not committed is processed again",
                        metadata: [
                            "signal": "\(signal)"
                        ])
                    exit(128 + signal.rawValue)
                }
                shuttingDown = true
                logger.notice(
                    "shutting down: finishing the batch at hand; a second signal exits at once",
                    metadata: [
                        "signal": "\(signal)", "deadline": "\(deadline)",
                    ])
                await group.triggerGracefulShutdown()
                deadlineTask.addTask {
                    // Cancelled when the group finished in time.
                    guard (try? await Task.sleep(for: deadline)) != nil else { return }
                    logger.critical(
                        "the shutdown did not finish within its deadline (shutdown_timeout_ms): exiting; whatever was not committed is processed again",
                        metadata: [
                            "deadline": "\(deadline)"
                        ])
                    exit(1)
                }
            }
            deadlineTask.cancelAll()
        }
    }
}
