import ArgumentParser
import AsyncHTTPClient
import BridgeWorker
import FCMBridgeClient
import Foundation
import Kafka
import Logging
import NIOCore
import ServiceLifecycle

/// `fcm-bridge watch --config FILE --on-deleted-messages URL`: the app server's full-sync
/// trigger, delivered. Reads the status topic as a consumer group and POSTs each
/// `deleted_messages` event (and, with `--rejected`, each `rejected`) to the webhook as the
/// bridge wrote it, retrying with backoff until the webhook answers 2xx; an event's offset is
/// committed only after that, so none is lost (at least once: the webhook dedupes by the
/// event's `message_ids`, or by its `X-FCM-Bridge-Event` header, `topic:partition:offset`).
struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "POST deleted_messages (and rejected) status events to an app server's webhook.",
        discussion: """
        Runs until SIGTERM or SIGINT. Start several with the same --group to share the status \
        topic's partitions. A webhook that fails (not 2xx, or unreachable) is retried with \
        exponential backoff from 0.5 s up to 30 s, for as long as it takes: later events of that \
        partition wait, so their order holds.
        """
    )

    @OptionGroup var options: ConfigurationOptions
    @OptionGroup var logging: LoggingOptions

    @Option(help: "The webhook each deleted_messages event is POSTed to, as JSON.")
    var onDeletedMessages: String

    @Flag(help: "POST rejected events to the webhook too.")
    var rejected = false

    @Option(help: "The consumer group of the watchers.")
    var group = "fcm-bridge-watch"

    func validate() throws {
        guard let url = URL(string: onDeletedMessages), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
            throw ValidationError("--on-deleted-messages must be an http:// or https:// URL, got \"\(onDeletedMessages)\"")
        }
    }

    func run() async throws {
        let logger = logging.logger(label: "fcm-bridge.watch")
        let configuration = try options.load(logger: logger)
        var kafka = configuration.kafkaConsumers
        kafka.clientID += "-watch"
        let statuses = try StatusEvents(kafka: kafka, topic: configuration.topics.status, groupID: group, logger: logger)
        let webhook = Webhook(url: onDeletedMessages, logger: logger)
        logger.info("watching status events", metadata: [
            "topic": "\(configuration.topics.status)", "group": "\(group)", "webhook": "\(onDeletedMessages)", "rejected": "\(rejected)",
        ])
        let types: Set<StatusEvent.EventType> = rejected ? [.deletedMessages, .rejected] : [.deletedMessages]
        let watching = Watching(statuses: statuses, types: types, webhook: webhook, logger: logger)
        let group = ServiceGroup(configuration: .init(services: [watching], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        do {
            try await group.run()
        } catch {
            try? await statuses.close()
            throw error
        }
        try await statuses.close()
    }
}

/// The watch loop, as a service: SIGTERM or SIGINT stop it between deliveries, or in a retry.
private struct Watching: Service {
    let statuses: StatusEvents
    let types: Set<StatusEvent.EventType>
    let webhook: Webhook
    let logger: Logger

    func run() async throws {
        do {
            try await cancelWhenGracefulShutdown {
                for try await event in statuses where types.contains(event.type) {
                    try await webhook.deliver(event)
                }
            }
        } catch is CancellationError {
            logger.notice("stopping: what was delivered is committed; the rest is delivered by the next watcher")
        }
    }
}

/// POSTs events to a URL until it answers 2xx.
struct Webhook {
    let url: String
    let logger: Logger
    var firstBackoff = Duration.milliseconds(500)
    var maximumBackoff = Duration.seconds(30)

    /// Returns once the webhook took `event`; throws only when cancelled.
    func deliver(_ event: StatusEvent) async throws {
        var backoff = firstBackoff
        for attempt in 1... {
            var request = HTTPClientRequest(url: url)
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "application/json")
            request.headers.add(name: "X-FCM-Bridge-Event", value: event.position)
            request.body = .bytes(ByteBuffer(bytes: event.json))
            let failure: String
            do {
                let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
                _ = try? await response.body.collect(upTo: 64 * 1024)
                if (200..<300).contains(response.status.code) {
                    logger.info("delivered", metadata: ["event": "\(event.position)", "token": "\(event.token ?? "none")", "attempts": "\(attempt)"])
                    return
                }
                failure = "HTTP \(response.status.code)"
            } catch {
                failure = "\(error)"
            }
            logger.warning("the webhook did not take the event; retrying", metadata: [
                "event": "\(event.position)", "failure": "\(failure)", "attempt": "\(attempt)", "retry_in": "\(backoff)",
            ])
            try await Task.sleep(for: backoff)
            backoff = min(backoff * 2, maximumBackoff)
        }
    }
}
