import Foundation
import Kafka
import Logging
import NIOCore
import TestSupport
import Testing

@testable import BridgeWorker

/// The repartition topic is trimmed behind the group's commits where the broker supports
/// DeleteRecords, and left whole, without stalling the worker, where it does not. On the real broker named by `KAFKA_BOOTSTRAP_SERVERS`.
@Suite(
    "Trimming the repartition topic",
    .needsBroker,
    .timeLimit(.minutes(2))
)
struct RepartitionTrimmerTests {
    let logger = TestBroker.logger

    @Test(
        "records before the committed offset are deleted, or all kept where the broker refuses; other topics are never touched"
    )
    func trims() async throws {
        let kafka = TestBroker.kafka()
        let id = UUID().uuidString.prefix(8)
        let repartition = "trim-repartition.\(id)"
        let input = "trim-input.\(id)"
        let admin = try KafkaAdmin(configuration: kafka, logger: logger)
        try await admin.createTopics([NewTopic(name: repartition, partitions: 1), NewTopic(name: input, partitions: 1)])
        let producer = try KafkaProducer(configuration: KafkaProducerConfiguration(kafka: kafka), logger: logger)
        for topic in [repartition, input] {
            try await producer.send(
                (0..<6).map {
                    ProducerRecord(topic: topic, partition: .explicit(0), value: ByteBuffer(bytes: [UInt8($0)]))
                }
            ).throwFirstError()
        }
        try await producer.close()

        let trimmer = RepartitionTrimmer(topic: repartition, interval: .zero, logger: logger)
        async let trimming: Void = trimmer.run(admin: admin)
        for offset in [2, 4] as [Int64] {
            trimmer.committed([
                TopicPartitionOffset(TopicPartition(repartition, 0), offset: offset),
                TopicPartitionOffset(TopicPartition(input, 0), offset: offset),
            ])
        }
        trimmer.finish()
        await trimming

        let kept = try await TestBroker.readToEnd(repartition).map(\.offset)
        #expect(kept == [4, 5] || kept == Array(0...5), "\(kept)")
        #expect(try await TestBroker.readToEnd(input).map(\.offset) == Array(0...5))
        await admin.close()
    }
}
