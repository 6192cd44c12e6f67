import ArgumentParser
import BridgeConfig
import BridgeEndpoints
import BridgeWorker
import Foundation
import Logging
import Prometheus
import ServiceLifecycle

/// `fcm-bridge run --config FILE`: runs one worker of the fleet, and its HTTP endpoints, until
/// SIGTERM or SIGINT.
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a bridge worker.",
        discussion: """
            Run up to as many workers as the input topics have partitions, with the same \
            kafka.group_id; more stand idle. \
            Each serves /metrics, /healthz and /readyz on http.listen (default 0.0.0.0:9090).

            Every configuration field can be overridden by an environment variable: FCM_BRIDGE_ and the \
            field's path in capitals with dots as underscores (queue.max_pending is \
            FCM_BRIDGE_QUEUE_MAX_PENDING; kafka.properties entries are FCM_BRIDGE_KAFKA_PROPERTIES_<NAME>). \
            `fcm-bridge validate-config` shows the result.

            Exit status: 0 after a graceful shutdown; 1 on a failure at run time, or a shutdown \
            that overran shutdown_timeout_ms; 2 on a configuration error (every problem is logged, \
            each naming its field); 64 on a usage error; 128 + the signal's number on a second \
            SIGTERM or SIGINT.
            """
    )

    @OptionGroup var options: ConfigurationOptions
    @OptionGroup var logging: LoggingOptions

    func run() async throws {
        let (configuration, logger) = try options.load(logging: logging, label: "fcm-bridge")
        let signals = await ShutdownSignals.trap()
        let registry = PrometheusCollectorRegistry()
        let worker = BridgeWorker(
            configuration: configuration, metrics: PrometheusMetricsFactory(registry: registry), logger: logger)
        var services: [any Service] = [worker]
        if let address = configuration.http {
            // First in the list, so that it is shut down last: it answers until the worker is done.
            services.insert(
                OperationsEndpoints(
                    address: address, registry: registry, health: worker.health, queries: worker.queries, logger: logger
                ),
                at: 0)
        } else {
            logger.notice("http endpoints off (http.listen: off): no /metrics, /healthz or /readyz")
        }
        // No signals for the group itself: ShutdownSignals owns them, for the second signal and the deadline.
        let group = ServiceGroup(configuration: .init(services: services, logger: logger))
        let deadline = Duration.milliseconds(configuration.shutdownTimeoutMilliseconds)
        do {
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask { await ShutdownSignals.watch(signals, group, deadline: deadline, logger: logger) }
                try await group.run()
                tasks.cancelAll()
            }
        } catch let error as ConfigurationError {
            // Found only once connected (the internal topics' layout): still the configuration's fault.
            for problem in error.problems { logger.critical("cannot start: \(problem.line)") }
            throw ExitCode(2)
        }
    }
}
