import Kafka
import NIOCore
import TestSupport
import Testing

@Suite("Transactions on a real broker", .needsBroker, .timeLimit(.minutes(2)))
struct TransactionTests {
    @Test("a committed transaction's records and consumer offsets are both visible")
    func commit() async throws {
        let input = try await TestBroker.createTopic("tx-in")
        let output = try await TestBroker.createTopic("tx-out")
        let group = TestBroker.uniqueName("tx")
        let plain = try TestBroker.producer()
        try await plain.send((0..<5).map { ProducerRecord(topic: input, value: ByteBuffer(string: "in-\($0)")) })
            .throwFirstError()
        try await plain.close()

        let consumer = try KafkaConsumer(
            configuration: TestBroker.consumerConfiguration(group: group), logger: TestBroker.logger)
        try consumer.subscribe([input])
        let records = try await consumer.pollRecords(count: 5)
        try #require(records.count == 5)

        let producer = try TestBroker.producer(transactionalID: TestBroker.uniqueName("tx-id"))
        try await producer.initTransactions()
        try producer.beginTransaction()
        let outputs = records.map {
            ProducerRecord(
                topic: output, value: ByteBuffer(string: "out-" + ($0.value.map { String(buffer: $0) } ?? "")))
        }
        try await producer.send(outputs).throwFirstError()
        let next = TopicPartitionOffset(TopicPartition(input, 0), offset: (records.last?.offset ?? 0) + 1)
        try await producer.sendOffsetsToTransaction([next], groupMetadata: try consumer.groupMetadata())
        try await producer.commitTransaction()
        try await producer.close()

        #expect(try await consumer.committed([TopicPartition(input, 0)]) == [next])
        try await consumer.close()
        let visible = try await TestBroker.readAll([TopicPartition(output, 0)], isolation: .readCommitted)
        #expect(visible.map { String(buffer: $0.value ?? ByteBuffer()) } == (0..<5).map { "out-in-\($0)" })
    }
}
