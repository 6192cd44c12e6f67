import ArgumentParser
import BridgeConfig
import BridgeWorker
import Kafka

/// `fcm-bridge topics --config FILE [--create]`: checks every topic the configuration names
/// (partition counts, the internal topics' settings) and, with `--create`, creates what is
/// missing as a starting worker would.
struct TopicsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "topics",
        abstract: "Verify, or create, every topic a configuration names.",
        discussion: """
            Reports each topic's partitions, what would break (internal topics split differently from \
            the device state, settings that would lose state or event time, missing topics) and what \
            costs throughput (inputs not co-partitioned with the state). Exits 0 when a worker can run \
            on them, 1 when not, 2 for a bad configuration.
            """
    )

    @OptionGroup var options: ConfigurationOptions
    @OptionGroup var logging: LoggingOptions

    @Flag(
        help: "Create missing topics (inputs and outputs with topics.partitions, internal ones split like the state).")
    var create = false

    func run() async throws {
        let (configuration, logger) = try options.load(logging: logging, label: "fcm-bridge.topics")
        let report: TopicReport
        do {
            report = try await withKafkaAdmin(configuration: configuration.kafkaClients, logger: logger) { admin in
                try await create
                    ? TopicReport.create(configuration, admin: admin, logger: logger)
                    : TopicReport.survey(configuration, admin: admin)
            }
        } catch let error as ConfigurationError {
            for problem in error.problems { printError(problem.line) }
            throw ExitCode(2)
        }
        print(report)
        if !report.problems.isEmpty { throw ExitCode(1) }
    }
}
