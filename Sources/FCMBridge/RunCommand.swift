import ArgumentParser
import BridgeConfig
import BridgeWorker
import Foundation
import Logging
import ServiceLifecycle

/// `fcm-bridge run --config FILE`: runs one worker of the fleet until SIGTERM or SIGINT.
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a bridge worker.",
        discussion: """
        Every configuration field can be overridden by an environment variable: FCM_BRIDGE_ and the
        field's path in capitals with dots as underscores (queue.max_pending is
        FCM_BRIDGE_QUEUE_MAX_PENDING; kafka.properties entries are FCM_BRIDGE_KAFKA_PROPERTIES_<NAME>).
        """
    )

    @Option(name: .shortAndLong, help: "The YAML configuration file.")
    var config: String?

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: Logger.Level = .info

    func run() async throws {
        let logger = {
            var logger = Logger(label: "fcm-bridge")
            logger.logLevel = logLevel
            return logger
        }()
        let environment = ProcessInfo.processInfo.environment
        let configuration: BridgeConfiguration
        do {
            configuration = try config.map { try ConfigurationLoader.load(file: $0, environment: environment) }
                ?? ConfigurationLoader.load(yaml: "", environment: environment)
        } catch {
            logger.critical("cannot start: \(error)")
            throw ExitCode(2)
        }
        let worker = BridgeWorker(configuration: configuration, logger: logger)
        // No signals for the group itself: ShutdownSignals owns them, for the second signal and the deadline.
        let group = ServiceGroup(configuration: .init(services: [worker], logger: logger))
        let deadline = Duration.milliseconds(configuration.shutdownTimeoutMilliseconds)
        do {
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask { await ShutdownSignals.watch(group, deadline: deadline, logger: logger) }
                try await group.run()
                tasks.cancelAll()
            }
        } catch let error as ConfigurationError {
            // Found only once connected (the internal topics' layout): still the configuration's fault.
            logger.critical("cannot start: \(error)")
            throw ExitCode(2)
        }
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
