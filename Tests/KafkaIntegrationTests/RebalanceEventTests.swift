import Kafka
import NIOCore
import TestSupport
import Testing

/// A group consumer without a listener gets rebalances as events of its poll, each alone: an
/// assignment before any record of it, a revocation while the partitions are still held (so the
/// caller can commit first), completed only at the next poll.
@Suite("Rebalances as poll events on a real broker", .needsBroker, .timeLimit(.minutes(2)))
struct RebalanceEventTests {
    @Test(
        "assignment comes before the records; revocation comes while still held and completes at the next poll",
        arguments: [nil, PartitionTurns(recordsPerTurn: 1)])
    func events(turns: PartitionTurns?) async throws {
        let topic = try await TestBroker.createTopic("events", partitions: 2)
        let all = Set((0..<2).map { TopicPartition(topic, Int32($0)) })
        let producer = try TestBroker.producer()
        _ = try await producer.send(
            (0..<2).map {
                ProducerRecord(topic: topic, partition: .explicit(Int32($0)), value: ByteBuffer(bytes: [UInt8($0)]))
            })
        try await producer.close()
        let group = TestBroker.uniqueName("events")

        var configuration = TestBroker.consumerConfiguration(group: group)
        configuration.reportsEndOfPartition = false
        configuration.partitionTurns = turns
        let first = try KafkaConsumer(configuration: configuration, logger: TestBroker.logger)
        try first.subscribe([topic])
        var assigned: Set<TopicPartition> = []
        var records = 0
        let deadline = ContinuousClock.now + .seconds(30)
        while records < 2, ContinuousClock.now < deadline {
            let events = try await first.poll(timeout: .milliseconds(100))
            for event in events {
                switch event {
                case .partitionsAssigned(let partitions):
                    #expect(events.count == 1, "a rebalance comes alone")
                    assigned.formUnion(partitions)
                case .record(let record):
                    #expect(assigned.contains(record.topicPartition), "a record before its assignment")
                    records += 1
                case .partitionsRevoked, .endOfPartition:
                    Issue.record("unexpected \(event)")
                }
            }
        }
        #expect(records == 2 && assigned == all)

        // A second member joins: the first is told to give up everything (eager protocol) while it
        // still holds the partitions.
        let second = try KafkaConsumer(configuration: configuration, logger: TestBroker.logger)
        try second.subscribe([topic])
        let joining = Task {
            for _ in 0..<300 where !Task.isCancelled { _ = try await second.poll(timeout: .milliseconds(100)) }
        }
        var revoked: [TopicPartition]?
        while revoked == nil, ContinuousClock.now < deadline + .seconds(30) {
            for case .partitionsRevoked(let partitions, let lost) in try await first.poll(timeout: .milliseconds(100)) {
                #expect(!lost)
                #expect(Set(try first.assignment()) == Set(partitions), "still held when told")
                revoked = partitions
            }
        }
        #expect(revoked.map(Set.init) == all)
        // The next poll completes the revocation; a new assignment may follow in the same call.
        let next = try await first.poll(timeout: .milliseconds(10))
        if case .partitionsAssigned(let partitions)? = next.first {
            #expect(Set(try first.assignment()) == Set(partitions))
        } else {
            #expect(try first.assignment().isEmpty, "the revocation was not completed: \(next)")
        }
        joining.cancel()
        _ = try? await joining.value
        try await first.close()
        try await second.close()
    }

    @Test("a poll returns what has arrived without waiting to fill its batch")
    func returnsPromptly() async throws {
        let topic = try await TestBroker.createTopic("prompt")
        let producer = try TestBroker.producer()
        _ = try await producer.send(ProducerRecord(topic: topic, value: ByteBuffer(bytes: [1])))
        try await producer.close()
        var configuration = TestBroker.consumerConfiguration(group: nil)
        configuration.reportsEndOfPartition = false
        let consumer = try KafkaConsumer(configuration: configuration, logger: TestBroker.logger)
        try await consumer.assign([TopicPartitionOffset(TopicPartition(topic, 0), offset: KafkaOffset.beginning)])
        var received = 0
        var polls = 0
        // Each poll may wait 20 s for a batch of 1,000; one that waited to fill it would take
        // 20 s, so a read of the lone record within 3 polls of a fresh fetch shows it did not.
        let started = ContinuousClock.now
        while received == 0, polls < 3 {
            for case .record in try await consumer.poll(maxRecords: 1_000, timeout: .seconds(20)) { received += 1 }
            polls += 1
        }
        #expect(received == 1)
        #expect(ContinuousClock.now - started < .seconds(20), "the poll waited for a full batch")
        try await consumer.close()
    }

    @Test(
        "in turns, a record is read within two polls of its arrival, however many records of another partition wait ahead of it"
    )
    func turnsAroundABacklog() async throws {
        let topic = try await TestBroker.createTopic("turns", partitions: 2)
        let producer = try TestBroker.producer()
        _ = try await producer.send(
            (0..<5_000).map { _ in ProducerRecord(topic: topic, partition: .explicit(0), value: ByteBuffer(bytes: [0]))
            })
        var configuration = TestBroker.consumerConfiguration(group: TestBroker.uniqueName("turns"))
        configuration.reportsEndOfPartition = false
        configuration.partitionTurns = PartitionTurns(recordsPerTurn: 100)
        let consumer = try KafkaConsumer(configuration: configuration, logger: TestBroker.logger)
        try consumer.subscribe([topic])
        let records = { () async throws -> [ConsumerRecord] in
            try await consumer.poll(maxRecords: 100, timeout: .milliseconds(100)).compactMap {
                if case .record(let record) = $0 { record } else { nil }
            }
        }
        // The backlog is being read (and fetched ahead) when the lone record arrives.
        let deadline = ContinuousClock.now + .seconds(60)
        while try await records().isEmpty, ContinuousClock.now < deadline {}
        try await Task.sleep(for: .milliseconds(500))
        _ = try await producer.send(
            ProducerRecord(topic: topic, partition: .explicit(1), value: ByteBuffer(bytes: [1])))
        try await producer.close()
        try await Task.sleep(for: .milliseconds(500))
        var polls = 0
        var lone = false
        while !lone, ContinuousClock.now < deadline {
            let batch = try await records()
            if !batch.isEmpty { polls += 1 }
            lone = batch.contains { $0.topicPartition.partition == 1 }
        }
        // Read through one queue, in the order fetched, it comes after what waits of the 5,000
        // (in poll 50 here).
        #expect(lone && polls <= 2, "partition 1's record came in poll \(polls) after its arrival")
        try await consumer.close()
    }
}
