import Kafka
import NIOCore
import TestSupport
import Testing

@Suite("Consumer groups on a real broker", .needsBroker, .timeLimit(.minutes(2)))
struct ConsumerGroupTests {
    @Test("two members split a 4-partition topic; the survivor takes all; hooks run in order, before revokes complete")
    func rebalance() async throws {
        let topic = try await TestBroker.createTopic("group", partitions: 4)
        let all = Set((0..<4).map { TopicPartition(topic, Int32($0)) })
        let group = TestBroker.uniqueName("group")

        let first = try PollingConsumer(group: group, topics: [topic])
        #expect(await eventually { first.listener.owned == all }, "first member: \(first.listener.events)")

        let second = try PollingConsumer(group: group, topics: [topic])
        let split = await eventually {
            let (a, b) = (first.listener.owned, second.listener.owned)
            return !a.isEmpty && !b.isEmpty && a.isDisjoint(with: b) && a.union(b) == all
        }
        #expect(split, "first: \(first.listener.events), second: \(second.listener.events)")
        #expect(Set(try first.consumer.assignment()) == first.listener.owned)
        #expect(Set(try second.consumer.assignment()) == second.listener.owned)

        try await second.close()
        #expect(await eventually { first.listener.owned == all }, "after leave: \(first.listener.events)")
        try await first.close()

        for member in [first, second] {
            let events = member.listener.events
            // Eager protocol: assign and revoke alternate, each revoke takes back the whole last
            // assignment, and every revoke reached the hook while the partitions were still held.
            for (index, event) in events.enumerated() {
                switch event {
                case .assigned:
                    #expect(index % 2 == 0, "\(events)")
                case .revoked(let partitions, let held):
                    #expect(index % 2 == 1, "\(events)")
                    #expect(held, "\(events)")
                    if case .assigned(let previous) = events[index - 1] { #expect(partitions == previous) }
                }
            }
        }
        // The survivor's story ends with everything assigned, then revoked on its own close.
        let survivor = first.listener.events
        #expect(survivor.suffix(2) == [.assigned(all), .revoked(all, stillAssigned: true)], "\(survivor)")
        #expect(survivor.count >= 6, "all, give some back, all again: \(survivor)")
        // The leaver got a share, and gave it back when it closed.
        #expect(second.listener.events.count >= 2)
        #expect(second.listener.owned.isEmpty)
    }

    @Test("committed offsets survive a consumer restart")
    func commitSurvivesRestart() async throws {
        let topic = try await TestBroker.createTopic("commit")
        let partition = TopicPartition(topic, 0)
        let group = TestBroker.uniqueName("commit")
        let producer = try TestBroker.producer()
        try await producer.send((0..<10).map { ProducerRecord(topic: topic, value: ByteBuffer(string: "\($0)")) })
            .throwFirstError()
        try await producer.close()

        let first = try KafkaConsumer(
            configuration: TestBroker.consumerConfiguration(group: group), logger: TestBroker.logger)
        try first.subscribe([topic])
        let read = try await first.pollRecords(count: 10)
        #expect(read.map(\.offset) == Array(0..<10))
        try await first.commit([TopicPartitionOffset(partition, offset: 6)])
        try await first.close()

        let second = try KafkaConsumer(
            configuration: TestBroker.consumerConfiguration(group: group), logger: TestBroker.logger)
        #expect(try await second.committed([partition]) == [TopicPartitionOffset(partition, offset: 6)])
        try second.subscribe([topic])
        let rest = try await second.pollUntilEnd(of: [partition])
        try await second.close()
        #expect(rest.map(\.offset) == [6, 7, 8, 9])
        #expect(rest.map { String(buffer: $0.value ?? ByteBuffer()) } == ["6", "7", "8", "9"])
    }
}
