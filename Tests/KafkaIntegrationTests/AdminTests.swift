import Kafka
import NIOCore
import TestSupport
import Testing

@Suite("Admin", .needsBroker, .timeLimit(.minutes(2)))
struct AdminTests {
    @Test("topic configs set at creation are described back; an unknown topic is absent")
    func describeConfigs() async throws {
        let admin = try KafkaAdmin(configuration: TestBroker.kafka(), logger: TestBroker.logger)
        let name = TestBroker.uniqueName("configs")
        try await admin.createTopics(
            [
                NewTopic(
                    name: name, partitions: 1,
                    configs: [
                        "cleanup.policy": "compact", "message.timestamp.type": "LogAppendTime",
                    ])
            ], ignoreExisting: false)
        let configs = try await admin.topicConfigs([name])
        #expect(configs[name]?["cleanup.policy"] == "compact", "\(configs)")
        #expect(configs[name]?["message.timestamp.type"] == "LogAppendTime", "\(configs)")
        let unknown = TestBroker.uniqueName("never-created")
        #expect(try await admin.topicConfigs([unknown, name]).keys.sorted() == [name])
        await admin.close()
    }
}

extension AdminTests {
    @Test("each topic has an id of its own, the same each time it is asked; an unknown topic has none")
    func topicIDs() async throws {
        // Every cluster the suite runs on gives topic ids: Kafka since 2.8, and the local broker.
        let admin = try KafkaAdmin(configuration: TestBroker.kafka(), logger: TestBroker.logger)
        let names = [TestBroker.uniqueName("id-a"), TestBroker.uniqueName("id-b")]
        try await admin.createTopics(names.map { NewTopic(name: $0, partitions: 1) }, ignoreExisting: false)
        let first = try await admin.topicID(of: names[0])
        let second = try await admin.topicID(of: names[1])
        let again = try await admin.topicID(of: names[0])
        let unknown = try await admin.topicID(of: TestBroker.uniqueName("never-created"))
        await admin.close()
        #expect(first != nil && second != nil && first != second)
        #expect(again == first)
        #expect(unknown == nil)
    }

    @Test("DeleteRecords moves the log start where the broker supports it, and fails cleanly where not")
    func deleteRecords() async throws {
        let admin = try KafkaAdmin(configuration: TestBroker.kafka(), logger: TestBroker.logger)
        let name = try await TestBroker.createTopic("trim")
        let partition = TopicPartition(name, 0)
        let producer = try TestBroker.producer()
        let reports = try await producer.send(
            (0..<5).map { ProducerRecord(topic: name, partition: .explicit(0), value: ByteBuffer(bytes: [UInt8($0)])) })
        try reports.throwFirstError()
        try await producer.close()
        do {
            let low = try await admin.deleteRecords(before: [TopicPartitionOffset(partition, offset: 3)])
            #expect(low == [TopicPartitionOffset(partition, offset: 3)])
            #expect(try await TestBroker.readAll([partition]).map(\.offset) == [3, 4])
        } catch let error as KafkaError {
            // Not supported by this broker: the request fails with an error, and the broker
            // still serves the partition whole.
            TestBroker.logger.notice("DeleteRecords not supported: \(error)")
            #expect(try await TestBroker.readAll([partition]).map(\.offset) == [0, 1, 2, 3, 4])
            let again = try TestBroker.producer()
            try await again.send([ProducerRecord(topic: name, partition: .explicit(0), value: ByteBuffer(bytes: [5]))])
                .throwFirstError()
            try await again.close()
            #expect(try await TestBroker.readAll([partition]).map(\.offset) == [0, 1, 2, 3, 4, 5], "still writable")
        }
        await admin.close()
    }
}
