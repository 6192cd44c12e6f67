import Kafka
import NIOCore
import TestSupport
import Testing

@Suite("Produce errors reach the caller", .needsBroker, .timeLimit(.minutes(2)))
struct ProduceErrorTests {
    @Test("a record over librdkafka's size limit fails with MSG_SIZE_TOO_LARGE")
    func clientSizeLimit() async throws {
        let topic = try await TestBroker.createTopic("toolarge")
        let producer = try TestBroker.producer(properties: ["message.max.bytes": "100000"])
        let reports = try await producer.send([
            ProducerRecord(topic: topic, value: ByteBuffer(repeating: 1, count: 200_000)),
            ProducerRecord(topic: topic, value: ByteBuffer(repeating: 1, count: 10)),
        ])
        try await producer.close()
        #expect(reports[0].error?.code == KafkaError.Code.messageSizeTooLarge)
        #expect(reports[1].error == nil)
        await #expect(throws: KafkaError.self) {
            let producer = try TestBroker.producer(properties: ["message.max.bytes": "100000"])
            defer { Task { try await producer.close() } }
            try await producer.send(ProducerRecord(topic: topic, value: ByteBuffer(repeating: 1, count: 200_000)))
        }
    }

    @Test("a record over the broker's size limit fails with the broker's error, where the broker has one")
    func brokerSizeLimit() async throws {
        let topic = try await TestBroker.createTopic("brokerlimit")
        let size = 20_000_000
        // The client would allow 30 MB; Apache Kafka's brokers default to about 1 MB per batch.
        let producer = try TestBroker.producer(properties: [
            "message.max.bytes": "30000000", "message.timeout.ms": "20000", "compression.type": "none",
        ])
        let report = try await producer.send([
            ProducerRecord(topic: topic, value: ByteBuffer(repeating: 7, count: size))
        ])[0]
        try await producer.close()
        if let error = report.error {
            #expect(
                [KafkaError.Code.messageSizeTooLarge, KafkaError.Code.invalidRecord].contains(error.code), "\(error)")
        } else {
            // The broker has no such limit (tansu): then it must have kept the whole record.
            var configuration = TestBroker.consumerConfiguration(group: nil)
            configuration.kafka.properties = [
                "fetch.max.bytes": "50000000", "receive.message.max.bytes": "60000000",
                "max.partition.fetch.bytes": "50000000",
            ]
            let consumer = try KafkaConsumer(configuration: configuration, logger: TestBroker.logger)
            try await consumer.assign([TopicPartitionOffset(TopicPartition(topic, 0), offset: KafkaOffset.beginning)])
            let records = try await consumer.pollRecords(count: 1)
            try await consumer.close()
            #expect(records.first?.value?.readableBytes == size)
        }
    }

    @Test("a missing topic with auto-creation off fails delivery, where the broker honours it")
    func missingTopic() async throws {
        let topic = TestBroker.uniqueName("missing")
        let producer = try TestBroker.producer(properties: [
            "allow.auto.create.topics": "false", "message.timeout.ms": "5000",
        ])
        let report = try await producer.send([ProducerRecord(topic: topic, value: ByteBuffer(string: "x"))])[0]
        try await producer.close()
        if let error = report.error {
            #expect(
                [
                    KafkaError.Code.unknownTopicOrPartition, KafkaError.Code.unknownTopic,
                    KafkaError.Code.messageTimedOut,
                ].contains(error.code), "\(error)")
        } else {
            // The broker created the topic anyway (tansu always does): then it must exist now.
            let admin = try KafkaAdmin(configuration: TestBroker.kafka(), logger: TestBroker.logger)
            let metadata = try await admin.topic(topic)
            await admin.close()
            #expect(metadata != nil, "delivered to \(topic), which the broker does not know")
        }
    }
}
