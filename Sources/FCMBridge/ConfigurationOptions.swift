import ArgumentParser
import BridgeConfig
import BridgeWorker
import Foundation
import Logging

/// `--config FILE`, and loading it with the environment's overrides.
struct ConfigurationOptions: ParsableArguments {
    @Option(
        name: .shortAndLong, help: "The YAML configuration file; without one, only FCM_BRIDGE_ variables configure.")
    var config: String?

    /// The configuration and the command's root logger (see ``LoggingOptions``), logging at the
    /// level `logging` and the configuration say; or exit status 2 after logging the field and
    /// the problem.
    func load(logging: LoggingOptions, label: String) throws -> (BridgeConfiguration, Logger) {
        var logger = logging.logger(label: label)
        do {
            let configuration = try loadOrThrow()
            logger.logLevel = logging.level(configured: configuration.logLevel)
            return (configuration, logger)
        } catch {
            logger.critical("cannot start: \(error)")
            throw ExitCode(2)
        }
    }

    /// The configuration, or the ``ConfigurationError`` naming the field: of the file, of the
    /// environment, or a Kafka property librdkafka refuses.
    func loadOrThrow() throws(ConfigurationError) -> BridgeConfiguration {
        let environment = ProcessInfo.processInfo.environment
        let configuration =
            if let config {
                try ConfigurationLoader.load(file: config, environment: environment)
            } else {
                try ConfigurationLoader.load(yaml: "", environment: environment)
            }
        try configuration.checkKafkaProperties()
        return configuration
    }
}
