import Kafka
import NIOCore
import TestSupport
import Testing

@Suite("Records read in place on a real broker", .needsBroker, .timeLimit(.minutes(2)))
struct InPlaceReadTests {
    /// What a test keeps of a record read in place.
    struct Read: Equatable {
        var partition: Int32
        var offset: Int64
        var key: [UInt8]?
        var value: [UInt8]?
        var kind: [UInt8]?
        var duplicate: [UInt8]?
        var noValue: [UInt8]?
        var missing: [UInt8]?
        var timestamp: KafkaTimestamp?
    }

    @Test(
        "a record read in place has its key, value, first header of a name and timestamp; each partition's end is reported"
    )
    func readInPlace() async throws {
        let topic = try await TestBroker.createTopic("in-place", partitions: 2)
        let sent = [
            ProducerRecord(
                topic: topic, partition: .explicit(0), key: ByteBuffer(string: "token-a"),
                value: ByteBuffer(string: #"{"a":1}"#),
                headers: [KafkaHeader(key: "kind", value: "message")], timestamp: 1_700_000_000_000),
            ProducerRecord(
                topic: topic, partition: .explicit(0), key: nil, value: ByteBuffer(string: "no key"),
                timestamp: 1_700_000_000_001),
            ProducerRecord(
                topic: topic, partition: .explicit(1), key: ByteBuffer(string: "token-b"), value: nil,
                headers: [
                    KafkaHeader(key: "empty", value: nil), KafkaHeader(key: "dup", value: "1"),
                    KafkaHeader(key: "dup", value: "2"),
                ],
                timestamp: 1_700_000_000_002),
            ProducerRecord(
                topic: topic, partition: .explicit(1), key: ByteBuffer(), value: ByteBuffer(),
                timestamp: 1_700_000_000_003),
        ]
        let producer = try TestBroker.producer()
        try (try await producer.send(sent)).throwFirstError()
        try await producer.close()

        let consumer = try KafkaConsumer(
            configuration: TestBroker.consumerConfiguration(group: nil), logger: TestBroker.logger)
        try await consumer.assign(
            [0, 1].map { TopicPartitionOffset(TopicPartition(topic, $0), offset: KafkaOffset.beginning) })
        var read: [Read] = []
        var ends: [TopicPartitionOffset] = []
        let deadline = ContinuousClock.now + .seconds(30)
        while Set(ends.map(\.topicPartition)).count < 2, ContinuousClock.now < deadline {
            let batch = try await consumer.pollInPlace()
            var readTwice = 0
            batch.readRecords { record in
                #expect(record.topic == topic)
                read.append(
                    Read(
                        partition: record.partition, offset: record.offset, key: record.key.map(Array.init),
                        value: record.value.map(Array.init),
                        kind: record.header("kind").map(Array.init), duplicate: record.header("dup").map(Array.init),
                        noValue: record.header("empty").map(Array.init),
                        missing: record.header("missing").map(Array.init),
                        timestamp: record.timestamp
                    ))
            }
            batch.readRecords { _ in readTwice += 1 }
            #expect(readTwice == 0, "a batch is read once")
            ends += batch.endsOfPartition
        }
        try await consumer.close()

        func time(_ milliseconds: Int64) -> KafkaTimestamp {
            KafkaTimestamp(milliseconds: milliseconds, kind: .createTime)
        }
        #expect(
            read.sorted { ($0.partition, $0.offset) < ($1.partition, $1.offset) } == [
                Read(
                    partition: 0, offset: 0, key: Array("token-a".utf8), value: Array(#"{"a":1}"#.utf8),
                    kind: Array("message".utf8), timestamp: time(1_700_000_000_000)),
                Read(
                    partition: 0, offset: 1, key: nil, value: Array("no key".utf8), timestamp: time(1_700_000_000_001)),
                Read(
                    partition: 1, offset: 0, key: Array("token-b".utf8), value: nil, duplicate: Array("1".utf8),
                    timestamp: time(1_700_000_000_002)),
                Read(partition: 1, offset: 1, key: [], value: [], timestamp: time(1_700_000_000_003)),
            ])
        #expect(
            Set(ends) == [
                TopicPartitionOffset(TopicPartition(topic, 0), offset: 2),
                TopicPartitionOffset(TopicPartition(topic, 1), offset: 2),
            ])
    }
}
