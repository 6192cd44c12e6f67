import Foundation
import Kafka
import Logging
import NIOCore
import TestSupport
import Testing

@testable import BridgeCore
@_spi(Benchmarks) @testable import BridgeWorker

/// A restore learns which devices have inputs on their way through the repartition topic, so that
/// a worker that takes a partition over (or restarts) does not let a later input overtake them
/// On the real broker named by `KAFKA_BOOTSTRAP_SERVERS`.
@Suite(
    "Restoring forwards in flight",
    .needsBroker,
    .timeLimit(.minutes(2))
)
struct RestoreForwardsTests {
    let logger = TestBroker.logger

    @Test(
        "the repartition records past the committed offset mark their devices; earlier ones and other partitions' do not"
    )
    func forwardsPastCommittedOffset() async throws {
        let kafka = TestBroker.kafka()
        let id = UUID().uuidString.prefix(8)
        let changelog = "restore-changelog.\(id)"
        let repartition = "restore-repartition.\(id)"
        try await TestBroker.createTopics([
            NewTopic(name: changelog, partitions: 2), NewTopic(name: repartition, partitions: 2),
        ])
        let producer = try KafkaProducer(configuration: KafkaProducerConfiguration(kafka: kafka), logger: logger)
        func forward(_ token: String, source: String, partition: Int32) -> ProducerRecord {
            ProducerRecord(
                topic: repartition, partition: .explicit(partition), key: ByteBuffer(string: token),
                value: ByteBuffer(),
                headers: [KafkaHeader(key: "kind", value: "connect"), KafkaHeader(key: "source", value: source)],
                timestamp: 1)
        }
        _ = try await producer.send([
            forward("read-already", source: "send:1:1", partition: 0),
            forward("on-its-way", source: "send:1:2", partition: 0),
            forward("twice", source: "send:1:3", partition: 0),
            forward("twice", source: "send:1:4", partition: 0),
            forward("elsewhere", source: "send:1:5", partition: 1),
        ])
        try await producer.close()

        let restorer = TestBroker.restorer(changelog: changelog, repartition: repartition)
        var states = DeviceStates()
        try await restorer.restore(
            [0], committed: CommittedInputs([:]),
            forwards: [TopicPartitionOffset(TopicPartition(repartition, 0), offset: 1)], into: &states)

        #expect(states.forwardsInFlight(in: 0) == 2)
        #expect(states.forwards.contains("on-its-way", in: 0) && states.forwards.contains("twice", in: 0))
        #expect(!states.forwards.contains("read-already", in: 0) && !states.forwards.contains("elsewhere", in: 1))
        // Released only when the last one is read back.
        states.forwards.arrived("twice", in: 0, source: "send:1:3")
        #expect(states.forwards.contains("twice", in: 0))
        states.forwards.arrived("twice", in: 0, source: "send:1:4")
        #expect(!states.forwards.contains("twice", in: 0))
    }
}
