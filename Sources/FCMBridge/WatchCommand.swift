import ArgumentParser
import BridgeConfig
import BridgeEndpoints
import BridgeHealth
import BridgeWatch
import BridgeWorker
import FCMBridgeClient
import Foundation
import Kafka
import Logging
import Prometheus
import ServiceLifecycle

/// `fcm-bridge watch --config FILE --on-deleted-messages URL`: the app server's full-sync
/// trigger, delivered. Reads the status topic as a consumer group and POSTs each event of the
/// chosen types to the webhook as the bridge wrote it, signed in the Standard Webhooks form. An
/// event's offset is committed only once the webhook took it or it was parked, so none is lost
/// (at least once: the webhook dedupes by `webhook-id`).
struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "POST status events (deleted_messages by default) to an app server's webhook, signed.",
        discussion: """
            Runs until SIGTERM or SIGINT. Start several with the same --group to share the status \
            topic's partitions. Each POST carries webhook-id (the event's id, topic:partition:offset), \
            webhook-timestamp and webhook-signature (Standard Webhooks: v1,<base64 HMAC-SHA256> of \
            id.timestamp.body per secret). Secrets (whsec_<base64>, separated by spaces, commas or \
            lines; several while one is rotated) come from the environment variable \
            FCM_BRIDGE_WEBHOOK_SECRETS or from --secrets-file, never from the YAML file.

            A webhook that answers 5xx, 408 or 429 (after its Retry-After), or cannot be reached, is \
            retried with exponential backoff and jitter from 0.5 s up to 30 s, for as long as it takes: \
            later events wait, so their order holds. Any other 4xx refuses the event: after \
            --park-after refusals it is written to the parking topic <group>.parked and the watcher \
            moves on; --replay-parked sends the parked events again once the app server is fixed.
            """
    )

    /// The environment variable holding the webhook secrets.
    static let secretsVariable = "FCM_BRIDGE_WEBHOOK_SECRETS"

    @OptionGroup var options: ConfigurationOptions
    @OptionGroup var logging: LoggingOptions

    @Option(help: "The webhook each event is POSTed to, as JSON.")
    var onDeletedMessages: String

    @Option(
        help: "The status types to POST, separated by commas (deleted_messages, rejected, expired, fanned_out, ...).")
    var types = "deleted_messages"

    @Flag(help: "POST rejected events too (the same as adding rejected to --types).")
    var rejected = false

    @Option(help: "The consumer group of the watchers; the parking topic is <group>.parked.")
    var group = "fcm-bridge-watch"

    @Option(help: "A file with the webhook secrets, in place of \(Self.secretsVariable).")
    var secretsFile: String?

    @Flag(help: "POST without signatures (only for a webhook that checks none).")
    var unsigned = false

    @Option(help: "How many times the webhook may refuse an event (a 4xx other than 408 and 429) before it is parked.")
    var parkAfter = 5

    @Option(help: "Where /metrics, /healthz and /readyz listen (host:port), or off.")
    var httpListen = "0.0.0.0:9091"

    @Flag(help: "Send the parked events again, from the parking topic's start, and exit at its end.")
    var replayParked = false

    func validate() throws {
        guard let url = URL(string: onDeletedMessages), ["http", "https"].contains(url.scheme ?? ""), url.host != nil
        else {
            throw ValidationError(
                "--on-deleted-messages must be an http:// or https:// URL, got \"\(onDeletedMessages)\"")
        }
        guard parkAfter >= 1 else { throw ValidationError("--park-after must be at least 1, got \(parkAfter)") }
        // The parking topic is named after the group: a topic name of at most 249 letters, digits, . _ -.
        let parking = ParkingTopic.name(forGroup: group)
        guard parking.count <= 249,
            parking.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) })
        else {
            throw ValidationError(
                "--group must be letters, digits, '.', '_' or '-', at most 242 of them (its parking topic is <group>.parked), got \"\(group)\""
            )
        }
        guard httpListen == "off" || HTTPAddress(parsing: httpListen) != nil else {
            throw ValidationError("--http-listen must be host:port or off, got \"\(httpListen)\"")
        }
        _ = try eventTypes()
    }

    /// The types `--types` and `--rejected` name.
    func eventTypes() throws -> Set<StatusEvent.EventType> {
        var names = types.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        if rejected { names.append("rejected") }
        let chosen = names.map { name in StatusEvent.EventType.known.first { $0.name == name } }
        guard !chosen.isEmpty, !chosen.contains(nil) else {
            throw ValidationError(
                "--types must name status types (\(StatusEvent.EventType.known.map(\.name).joined(separator: ", "))), got \"\(types)\""
            )
        }
        return Set(chosen.compactMap { $0 })
    }

    /// The secrets, or exit status 2 naming where they were looked for. Never logs a secret.
    func secrets(logger: Logger) throws -> [WebhookSecret] {
        let source = secretsFile.map { "--secrets-file \($0)" } ?? Self.secretsVariable
        do {
            let text: String
            if let secretsFile {
                text = try String(contentsOfFile: secretsFile, encoding: .utf8)
            } else {
                text = ProcessInfo.processInfo.environment[Self.secretsVariable] ?? ""
            }
            let secrets = try WebhookSecret.list(text)
            if secrets.isEmpty && !unsigned {
                logger.critical(
                    "cannot start: no webhook secret in \(source); give one (whsec_<base64>), or --unsigned for a webhook that checks none"
                )
                throw ExitCode(2)
            }
            return unsigned ? [] : secrets
        } catch let error as WebhookSecret.InvalidSecret {
            logger.critical("cannot start: \(source): \(error)")
            throw ExitCode(2)
        } catch let error as ExitCode {
            throw error
        } catch {
            logger.critical("cannot start: \(source): \(error.localizedDescription)")
            throw ExitCode(2)
        }
    }

    func run() async throws {
        let (configuration, logger) = try options.load(logging: logging, label: "fcm-bridge.watch")
        let secrets = try secrets(logger: logger)
        let registry = PrometheusCollectorRegistry()
        let health = WorkerHealth()
        var policy = DeliveryAttempts.Policy()
        policy.refusalsBeforeParking = parkAfter
        let webhook = Webhook(url: onDeletedMessages, secrets: secrets)
        do {
            try await watch(
                configuration, webhook: webhook, health: health, registry: registry, policy: policy, logger: logger)
        } catch {
            try? await webhook.shutdown()
            throw error
        }
        try await webhook.shutdown()
    }

    /// Watches, or with `--replay-parked` replays, through `webhook`.
    private func watch(
        _ configuration: BridgeConfiguration, webhook: Webhook, health: WorkerHealth,
        registry: PrometheusCollectorRegistry,
        policy: DeliveryAttempts.Policy, logger: Logger
    ) async throws {
        let delivery = EventDelivery(
            webhook: webhook, policy: policy,
            metrics: WatchMetrics(factory: PrometheusMetricsFactory(registry: registry)), health: health, logger: logger
        )
        var kafka = configuration.kafkaConsumers
        kafka.clientID += "-watch"
        // The watcher holds its partitions while a webhook is down, for as long as that takes,
        // without polling: the group must not count it as gone (its heartbeats say it is alive;
        // /healthz says whether its loop turns). librdkafka's maximum, unless configured.
        if kafka.properties["max.poll.interval.ms"] == nil { kafka.properties["max.poll.interval.ms"] = "86400000" }
        let parkingTopic = ParkingTopic.name(forGroup: group)
        var services: [any Service] = []
        if let address = HTTPAddress(parsing: httpListen) {
            services.append(
                OperationsEndpoints(
                    address: address, field: "--http-listen", registry: registry, health: health, logger: logger))
        }
        if replayParked {
            try await replay(
                parkingTopic, kafka: kafka, delivery: delivery, services: services, webhook: webhook, logger: logger)
            return
        }
        try await createParkingTopic(parkingTopic, configuration: configuration, logger: logger)
        let watchedTypes = try eventTypes()
        logger.info(
            "watching status events",
            metadata: [
                "topic": "\(configuration.topics.status)", "group": "\(group)", "webhook": "\(webhook.redactedURL)",
                "types": "\(watchedTypes.map(\.name).sorted().joined(separator: ","))",
                "signed_with": "\(webhook.secretCount) secret(s)",
                "parking_topic": "\(parkingTopic)", "park_after": "\(parkAfter)",
            ])
        do {
            try await withKafkaProducer(
                configuration: KafkaProducerConfiguration(kafka: configuration.kafkaClients), logger: logger
            ) { producer in
                let statuses = try StatusEvents(
                    kafka: kafka, topic: configuration.topics.status, groupID: group, logger: logger,
                    polled: { health.turned() }, commitsEachEvent: true)
                let watcher = Watcher(
                    statuses: statuses, types: watchedTypes, delivery: delivery,
                    parking: ParkingTopic(name: parkingTopic, producer: producer), logger: logger)
                let group = ServiceGroup(
                    configuration: .init(
                        services: services + [watcher], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
                do {
                    try await group.run()
                } catch {
                    try? await statuses.close()
                    throw error
                }
                try await statuses.close()
            }
        } catch let error as ConfigurationError {
            for problem in error.problems { logger.critical("cannot start: \(problem.line)") }
            throw ExitCode(2)
        }
    }

    /// Creates the parking topic where it is missing: one partition (parked events are few),
    /// kept until replayed.
    private func createParkingTopic(_ name: String, configuration: BridgeConfiguration, logger: Logger) async throws {
        try await withKafkaAdmin(configuration: configuration.kafkaClients, logger: logger) { admin in
            try await admin.createTopics([NewTopic(name: name, partitions: 1, configs: InternalTopicSettings.parking)])
        }
    }

    /// Replays the parking topic: exit 0 once every parked event was delivered, 1 when the
    /// webhook still refuses one, 3 when no partition of the topic could be read.
    private func replay(
        _ topic: String, kafka: KafkaConfiguration, delivery: EventDelivery, services: [any Service], webhook: Webhook,
        logger: Logger
    ) async throws {
        var consumer = KafkaConsumerConfiguration(kafka: kafka, groupID: "\(group).replay")
        consumer.autoOffsetReset = .earliest
        let replay = ParkedReplay(consumerConfiguration: consumer, topic: topic, delivery: delivery, logger: logger)
        logger.info("replaying parked events", metadata: ["topic": "\(topic)", "webhook": "\(webhook.redactedURL)"])
        let outcome: ParkedReplay.Outcome
        do {
            outcome = try await withThrowingTaskGroup(of: ParkedReplay.Outcome?.self) { tasks in
                let endpoints = ServiceGroup(configuration: .init(services: services, logger: logger))
                if !services.isEmpty {
                    tasks.addTask {
                        try await endpoints.run()
                        return nil
                    }
                }
                defer { tasks.cancelAll() }
                return try await replay.run()
            }
        } catch let error as ReplayError {
            logger.critical("cannot replay: \(error)")
            throw ExitCode(3)
        }
        switch outcome {
        case .delivered(let count):
            logger.notice("replayed every parked event", metadata: ["delivered": "\(count)"])
        case .stillRefused(let id, let answer, let count):
            logger.error(
                "the webhook still refuses a parked event; it stays parked, with those after it",
                metadata: [
                    "event": "\(id)", "answer": "\(answer.summary)", "delivered": "\(count)",
                ])
            throw ExitCode(1)
        }
    }
}
