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
    /// level `logging` and the configuration say; or exit status 2 after logging every problem,
    /// each naming its field.
    func load(logging: LoggingOptions, label: String) throws -> (BridgeConfiguration, Logger) {
        var logger = logging.logger(label: label)
        do {
            let configuration = try loadOrThrow()
            logger.logLevel = logging.level(configured: configuration.logLevel)
            return (configuration, logger)
        } catch {
            for problem in error.problems { logger.critical("cannot start: \(problem.line)") }
            throw ExitCode(2)
        }
    }

    /// The configuration, or a ``ConfigurationError`` holding every problem, each naming its
    /// field: of the file, of the environment, and the Kafka properties librdkafka refuses.
    func loadOrThrow() throws(ConfigurationError) -> BridgeConfiguration {
        let environment = ProcessInfo.processInfo.environment
        let (configuration, problems) =
            if let config {
                ConfigurationLoader.read(file: config, environment: environment)
            } else {
                ConfigurationLoader.read(yaml: "", environment: environment)
            }
        let all = (problems?.problems ?? []) + configuration.kafkaPropertyProblems
        if let error = ConfigurationError(combining: all) { throw error.attributed(to: environment) }
        return configuration
    }
}
