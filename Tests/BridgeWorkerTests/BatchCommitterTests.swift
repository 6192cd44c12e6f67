@testable import BridgeCore
@testable import BridgeWorker
import Foundation
import Kafka
import Logging
import Testing

/// Commits on the real broker named by `KAFKA_BOOTSTRAP_SERVERS`.
@Suite(
    "Batch commits",
    .enabled(if: ProcessInfo.processInfo.environment["KAFKA_BOOTSTRAP_SERVERS"] != nil, "KAFKA_BOOTSTRAP_SERVERS is not set: run `bash scripts/test.sh`"),
    .timeLimit(.minutes(2))
)
struct BatchCommitterTests {
    let logger = Logger(label: "batch-test", factory: { _ in SwiftLogNoOpLogHandler() })

    @Test("at least once: when an output is not acknowledged, the changelog writes of its batch are never produced")
    func changelogFollowsOutputs() async throws {
        let kafka = KafkaConfiguration(bootstrapServers: ProcessInfo.processInfo.environment["KAFKA_BOOTSTRAP_SERVERS"] ?? "", clientID: "batch-test")
        let id = UUID().uuidString.prefix(8)
        let names = OutputTopic.allCases.map { "batch-\($0).\(id)" }
        let admin = try KafkaAdmin(configuration: kafka, logger: logger)
        try await admin.createTopics(names.map { NewTopic(name: $0, partitions: 1) } + [NewTopic(name: "batch-input.\(id)", partitions: 1)])
        await admin.close()
        let producer = try KafkaProducer(configuration: KafkaProducerConfiguration(kafka: kafka), logger: logger)
        let consumer = try KafkaConsumer(configuration: KafkaConsumerConfiguration(kafka: kafka, groupID: "batch-test-\(id)"), logger: logger)
        let committer = BatchCommitter(
            delivery: .atLeastOnce, producer: producer, outputs: try OutputProducer(producer: producer, topicNames: names),
            interval: .milliseconds(100), maxRecords: 100, maxBytes: 1 << 20, logger: logger
        )

        // An inbox record for a partition the topic does not have cannot be delivered; the
        // changelog record written after it says the device got it.
        var records = OutputRecords()
        records.begin(.inbox, partition: 7, timestamp: 1)
        records.value { $0.append(utf8: "message") }
        records.begin(.changelog, partition: 0, timestamp: 1)
        records.key { $0.append(utf8: "a 1:0:0 device") }
        records.value { $0.append(utf8: "dispatched") }
        var batch = OpenBatch()
        batch.offsets[TopicPartition("batch-input.\(id)", 0)] = 1
        batch.records = 1
        await #expect(throws: (any Error).self) {
            try await committer.send(&records, in: &batch)
            try await committer.commit(&batch, consumer: consumer)
        }

        var reader = KafkaConsumerConfiguration(kafka: kafka, groupID: nil)
        reader.reportsEndOfPartition = true
        let changelog = try KafkaConsumer(configuration: reader, logger: logger)
        try await changelog.assign([TopicPartitionOffset(TopicPartition(names[OutputTopic.changelog.rawValue], 0), offset: KafkaOffset.beginning)])
        var read: [ConsumerEvent] = []
        while !read.contains(where: { if case .endOfPartition = $0 { true } else { false } }) {
            read += try await changelog.poll()
        }
        #expect(!read.contains { if case .record = $0 { true } else { false } }, "the changelog got ahead of the outputs")
        try await changelog.close()
        try await consumer.close()
        try? await producer.close()
    }
}
