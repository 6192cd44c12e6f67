import ArgumentParser
import BridgeConfig
import Foundation
import Kafka
import Logging

/// `fcm-bridge demo`: plays an app server and a device against a running bridge. It sends
/// messages to an offline device, connects the device, and prints what the bridge writes to the
/// status and inbox topics for it.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Send messages through a running bridge and show its inbox and status records."
    )

    @Option(name: .shortAndLong, help: "The bridge's YAML configuration file (for the cluster and topic names).")
    var config: String?

    @Option(help: "How long to wait for the bridge, in seconds.")
    var timeout: Int = 60

    func run() async throws {
        var logger = Logger(label: "fcm-bridge.demo")
        logger.logLevel = .warning
        let configuration = try config.map { try ConfigurationLoader.load(file: $0, environment: ProcessInfo.processInfo.environment) }
            ?? ConfigurationLoader.load(yaml: "", environment: ProcessInfo.processInfo.environment)
        let kafka = KafkaConfiguration(bootstrapServers: configuration.kafka.bootstrapServers, clientID: "fcm-bridge-demo")
        let topics = configuration.topics
        let token = "demo-device-\(UUID().uuidString.prefix(8))"

        let requests = [
            #"{"message": {"token": "\#(token)", "notification": {"title": "Hello", "body": "from fcm-bridge"}}}"#,
            #"{"to": "\#(token)", "collapse_key": "score", "data": {"score": "1-0"}}"#,
            #"{"to": "\#(token)", "collapse_key": "score", "data": {"score": "2-0"}, "priority": "high"}"#,
            #"{"to": "\#(token)", "time_to_live": 0, "notification": {"title": "now or never"}}"#,
            "this is not JSON",
        ]
        let producer = try KafkaProducer(configuration: KafkaProducerConfiguration(kafka: kafka), logger: logger)
        var records = requests.map { ProducerRecord(topic: topics.send, key: Array(token.utf8), value: Array($0.utf8)) }
        records.append(ProducerRecord(topic: topics.presence, key: Array(token.utf8), value: Array(#"{"token": "\#(token)", "event": "connect"}"#.utf8)))
        print("device \(token) is offline; sending \(requests.count) requests, then it connects\n")
        for record in records {
            try await producer.send([record]).throwFirstError()
            try await Task.sleep(for: .milliseconds(200))  // so the connect comes after the sends
        }
        try await producer.close()

        try await show(kafka: kafka, topics: [topics.status, topics.inbox, topics.deadLetters], token: token, logger: logger)
    }

    /// Prints the records about `token` (and dead letters) until the device's messages are all
    /// accounted for, or the timeout.
    private func show(kafka: KafkaConfiguration, topics: [String], token: String, logger: Logger) async throws {
        let admin = try KafkaAdmin(configuration: kafka, logger: logger)
        var partitions: [TopicPartitionOffset] = []
        for topic in topics {
            for partition in try await admin.topic(topic)?.partitions ?? [] {
                partitions.append(TopicPartitionOffset(TopicPartition(topic, partition), offset: KafkaOffset.beginning))
            }
        }
        await admin.close()
        let consumer = try KafkaConsumer(configuration: KafkaConsumerConfiguration(kafka: kafka, groupID: nil), logger: logger)
        try await consumer.assign(partitions)
        var dispatched = 0
        let deadline = ContinuousClock.now + .seconds(timeout)
        while dispatched < 2, ContinuousClock.now < deadline {
            for case .record(let record) in try await consumer.poll() {
                let key = record.key.map { String(buffer: $0) }
                guard key == token || (record.topic == topics[0] && key == nil) || record.topic == topics[2] else { continue }
                let value = record.value.map { String(buffer: $0) } ?? "null"
                if record.topic == topics[2], !value.contains("not JSON") { continue }
                print("\(record.topic): \(value)\n")
                if record.topic == topics[1] && record.headers.string(for: "kind") == "message" { dispatched += 1 }
            }
        }
        try await consumer.close()
        if dispatched < 2 { throw ValidationError("the bridge did not dispatch the demo messages within \(timeout) s: is it running?") }
    }
}
