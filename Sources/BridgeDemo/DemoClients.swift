import FCMBridgeClient
import Kafka
import Logging

/// The demo's Kafka clients: the app server's sender and status reader, and the devices'
/// presence producer and inbox reader, each reader in a consumer group of this run's own.
struct DemoClients: Sendable {
    let sender: FCMBridgeSender
    let statuses: StatusEvents
    let presence: KafkaProducer
    let inbox: KafkaConsumer

    init(settings: LiveDemo.Settings, run: String, logger: Logger) throws {
        sender = try FCMBridgeSender(
            kafka: settings.kafka, topic: settings.sendTopic, subscriptionsTopic: settings.subscriptionsTopic,
            logger: logger)
        statuses = try StatusEvents(
            kafka: settings.readers, topic: settings.statusTopic, groupID: "fcm-bridge-demo-\(run)-app-server",
            logger: logger)
        presence = try KafkaProducer(configuration: KafkaProducerConfiguration(kafka: settings.kafka), logger: logger)
        // A new group starts at the beginning (auto.offset.reset's default here: earliest).
        inbox = try KafkaConsumer(
            configuration: KafkaConsumerConfiguration(
                kafka: settings.readers, groupID: "fcm-bridge-demo-\(run)-devices"), logger: logger)
        try inbox.subscribe([settings.inboxTopic])
    }

    /// Closes them all; a failure is logged, not thrown: the demo is over either way.
    func close(logger: Logger) async {
        func closing(_ name: String, _ close: () async throws -> Void) async {
            do { try await close() } catch { logger.warning("closing the demo's \(name) client failed: \(error)") }
        }
        await closing("sender") { try await sender.close() }
        await closing("presence") { try await presence.close() }
        await closing("inbox") { try await inbox.close() }
        await closing("status") { try await statuses.close() }
    }
}
