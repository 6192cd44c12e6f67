import ArgumentParser
import Foundation
import Kafka
import Logging
import NIOCore

/// `fcm-bridge smoke`: sends records through the Kafka layer and reads them back, printing each.
/// A newcomer's first look at the Kafka layer working against a broker.
struct SmokeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "smoke",
        abstract: "Round-trip records through a Kafka broker with the Kafka layer."
    )

    @Option(help: "Kafka bootstrap servers (host:port,...).")
    var bootstrapServers: String = ProcessInfo.processInfo.environment["KAFKA_BOOTSTRAP_SERVERS"] ?? "127.0.0.1:9092"

    @Option(help: "How many records to send.")
    var count: Int = 10

    func run() async throws {
        var logger = Logger(label: "fcm-bridge.smoke")
        logger.logLevel = .info
        try Librdkafka.requireMinimumVersion()
        logger.info("librdkafka \(Librdkafka.version)")

        let kafka = KafkaConfiguration(bootstrapServers: bootstrapServers, clientID: "fcm-bridge-smoke")
        let topic = "fcm-bridge.smoke.\(UUID().uuidString.prefix(8))"
        try await withKafkaAdmin(configuration: kafka, logger: logger) { admin in
            try await admin.createTopics([NewTopic(name: topic, partitions: 1)])
        }

        let records = (0..<count).map { index in
            ProducerRecord(
                topic: topic,
                key: ByteBuffer(string: "device-\(index % 3)"),
                value: ByteBuffer(string: #"{"n": \#(index)}"#),
                headers: [KafkaHeader(key: "kind", value: "smoke")]
            )
        }
        let reports = try await withKafkaProducer(
            configuration: KafkaProducerConfiguration(kafka: kafka), logger: logger
        ) {
            try await $0.send(records)
        }
        try reports.throwFirstError()
        logger.info("sent \(reports.count) records to \(topic)")

        var configuration = KafkaConsumerConfiguration(kafka: kafka, groupID: nil)
        configuration.reportsEndOfPartition = true
        let received = try await withKafkaConsumer(configuration: configuration, logger: logger) { consumer in
            try await consumer.assign([TopicPartitionOffset(TopicPartition(topic, 0), offset: KafkaOffset.beginning)])
            var received = 0
            let deadline = ContinuousClock.now + .seconds(30)
            reading: while ContinuousClock.now < deadline {
                for event in try await consumer.poll() {
                    switch event {
                    case .record(let record):
                        received += 1
                        let key = record.key.map { String(buffer: $0) } ?? "null"
                        let value = record.value.map { String(buffer: $0) } ?? "null"
                        print(
                            "\(record.topicPartition)@\(record.offset) key=\(key) value=\(value) headers=\(record.headers.map(\.key))"
                        )
                    case .endOfPartition where received >= count:
                        break reading
                    case .endOfPartition, .partitionsAssigned, .partitionsRevoked:
                        continue
                    }
                }
            }
            return received
        }
        guard received == count else {
            logger.error("read back \(received) of \(count) records")
            throw ExitCode(1)
        }
        logger.info("read back all \(received) records")
    }
}
