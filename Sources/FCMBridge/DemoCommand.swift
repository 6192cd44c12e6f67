import ArgumentParser
import BridgeDemo
import BridgeWorker
import Foundation
import Logging
import UnixSignals

/// `fcm-bridge demo`: a live demo against a running bridge. Devices connect, disconnect, read
/// their inboxes, acknowledge and do full syncs, while an app server sends traffic; a summary is
/// redrawn every second until Ctrl-C, or for `--duration` seconds, after which every device
/// connects and the demo checks that every request ended in its final statuses.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run simulated devices and an app server against a running bridge, with a live summary.",
        discussion: """
            Start a worker first (scripts/demo.sh does both). The devices follow a fixed cycle: most are \
            online 7 s of every 10, every tenth only 4 s of every 20; every 10 s one of those gets more \
            messages than queue.max_pending allows while it sleeps, so its queue is discarded \
            (deleted_messages) and it does a full sync when it connects. Ctrl-C or SIGTERM ends the \
            run with a final summary, a second one at once. A bounded run exits 1 when a request did \
            not end in its final statuses, each once, within --settle-timeout.
            """
    )

    @OptionGroup var options: ConfigurationOptions
    @OptionGroup var logging: LoggingOptions

    @Option(help: "Simulated devices.")
    var devices = 100

    @Option(help: "Send requests a second.")
    var rate = 200

    @Option(help: "Seconds of traffic, then a check that every request is accounted for (default: until Ctrl-C).")
    var duration: Int?

    @Option(help: "Seconds a bounded run waits for the last statuses once traffic stops.")
    var settleTimeout = 60

    func validate() throws {
        guard (1...100_000).contains(devices) else {
            throw ValidationError("--devices must be 1 to 100000, got \(devices)")
        }
        guard (1...100_000).contains(rate) else { throw ValidationError("--rate must be 1 to 100000, got \(rate)") }
        if let duration, !(1...86_400).contains(duration) {
            throw ValidationError("--duration must be 1 to 86400 seconds, got \(duration)")
        }
        guard (1...3600).contains(settleTimeout) else {
            throw ValidationError("--settle-timeout must be 1 to 3600 seconds, got \(settleTimeout)")
        }
    }

    /// How long an ended demo, its summary shown, waits for its parts to stop and its clients
    /// to close.
    static let closingDeadline = Duration.seconds(15)

    func run() async throws {
        var (configuration, logger) = try options.load(logging: logging, label: "fcm-bridge.demo")
        // The summary is the output; only trouble is logged.
        logger.logLevel = max(logger.logLevel, .warning)
        var kafka = configuration.kafkaClients
        var readers = configuration.kafkaConsumers
        kafka.clientID += "-demo"
        readers.clientID += "-demo"
        var settings = LiveDemo.Settings(kafka: kafka, readers: readers)
        settings.sendTopic = configuration.topics.send
        settings.presenceTopic = configuration.topics.presence
        settings.inboxTopic = configuration.topics.inbox
        settings.statusTopic = configuration.topics.status
        settings.subscriptionsTopic = configuration.topics.subscriptions
        settings.devices = devices
        settings.rate = rate
        settings.duration = duration.map { .seconds($0) }
        settings.settleTimeout = .seconds(settleTimeout)
        settings.maxPending = configuration.queue.maxPending
        settings.allowsRepeats = configuration.delivery == .atLeastOnce
        let demo = LiveDemo(settings: settings, logger: logger)
        let (summarized, summary) = AsyncStream.makeStream(of: (status: Int32, failure: String?).self)
        let board = try await withThrowingTaskGroup(of: DemoScoreboard?.self) { group in
            group.addTask {
                // Ctrl-C (or SIGTERM) ends the run with a final summary; a second one at once.
                var signals = 0
                for await signal in await UnixSignalsSequence(trapping: .sigint, .sigterm) {
                    signals += 1
                    guard signals == 1 else { Foundation.exit(128 + signal.rawValue) }
                    demo.stop()
                }
                return nil
            }
            group.addTask { [logger] in
                // The summary is out: stopping the parts and closing the clients (which a broker
                // gone away holds) may not hold the terminal for long.
                for await (status, failure) in summarized {
                    guard (try? await Task.sleep(for: Self.closingDeadline)) != nil else { return nil }
                    logger.warning(
                        "the demo's Kafka clients did not close within \(Self.closingDeadline) of its summary; exiting without them"
                    )
                    if let failure { logger.error("the demo failed: \(failure)") }
                    Foundation.exit(status)
                }
                return nil
            }
            group.addTask {
                try await demo.run { board, failure in
                    summary.yield((exitStatus(board, failed: failure != nil), failure))
                }
            }
            defer { group.cancelAll() }
            while let result = try await group.next() {
                if let board = result { return board }
            }
            return DemoScoreboard()
        }
        if exitStatus(board, failed: false) != 0 { throw ExitCode(1) }
    }

    /// 1 for a failed run, or a bounded run not stopped early that cannot vouch for every
    /// request; 0 otherwise.
    private func exitStatus(_ board: DemoScoreboard, failed: Bool) -> Int32 {
        failed || duration != nil && !board.stopped && !board.accountedFor ? 1 : 0
    }
}
