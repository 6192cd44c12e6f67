import Kafka
import Logging
import NIOCore
import Testing

@testable import Kafka

/// Each client's life, without a broker: what is served after `close()`, a second close, and a
/// close with deliveries pending. Port 9 (discard) on loopback: nothing listens.
@Suite("Client lifecycles")
struct ClientLifecycleTests {
    static let kafka = KafkaConfiguration(bootstrapServers: "127.0.0.1:9", clientID: "lifecycle-test")
    static let logger = Logger(label: "lifecycle-test", factory: { _ in SwiftLogNoOpLogHandler() })

    @Test(
        "the state machine: running serves calls; the first close closes, a second does nothing; loops run until closed"
    )
    func stateMachine() {
        var lifecycle = ClientLifecycle()
        #expect(lifecycle.servesCalls(duringClose: false) && lifecycle.loopsRun)
        #expect(lifecycle.beginClose() == .close)
        #expect(
            !lifecycle.servesCalls(duringClose: false) && lifecycle.servesCalls(duringClose: true) && lifecycle.loopsRun
        )
        #expect(lifecycle.beginClose() == .none)
        lifecycle.finishClose()
        #expect(!lifecycle.servesCalls(duringClose: true) && !lifecycle.loopsRun)
        #expect(lifecycle.beginClose() == .none)
    }

    static func rebalance(_ kind: RebalanceEvent.Kind, _ partition: Int32) -> RebalanceEvent {
        RebalanceEvent(
            kind: kind, partitions: NativePartitionList([TopicPartition("t", partition)]), lost: false,
            cooperative: false)
    }

    static func describe(_ action: ConsumerRebalances.NextAction) -> String {
        switch action {
        case .readRecords: "read"
        case .completeRevocation(let event): "complete \(event.partitions.partitions[0].partition)"
        case .returnEvent(let event): "return \(event.partitions.partitions[0].partition)"
        }
    }

    @Test(
        "rebalances without a listener: returned one at a time, a revocation completed only at the next poll, after the caller committed"
    )
    func rebalancesReturnedInTurn() {
        var rebalances = ConsumerRebalances()
        #expect(Self.describe(rebalances.next()) == "read")
        for (kind, partition) in [(RebalanceEvent.Kind.revoke, Int32(1)), (.assign, 2)] {
            guard case .wakePoll = rebalances.reported(Self.rebalance(kind, partition)) else {
                Issue.record("an open consumer answered a rebalance itself")
                return
            }
        }
        let turns = (0..<4).map { _ in Self.describe(rebalances.next()) }
        #expect(turns == ["return 1", "complete 1", "return 2", "read"])
    }

    @Test(
        "a revocation arriving while closing is answered at once by the callback; the close answers the ones before it, in order"
    )
    func revocationWhileClosing() {
        var rebalances = ConsumerRebalances()
        _ = rebalances.reported(Self.rebalance(.revoke, 1))
        _ = rebalances.next()  // returned: the caller commits, and the next poll would complete it
        _ = rebalances.reported(Self.rebalance(.assign, 2))
        let unanswered = rebalances.beginClose()
        #expect(unanswered.map(\.partitions.partitions[0].partition) == [1, 2])
        guard case .answer = rebalances.reported(Self.rebalance(.revoke, 3)) else {
            Issue.record("a revocation while closing was queued for a poll that never comes")
            return
        }
        #expect(Self.describe(rebalances.next()) == "read" && rebalances.takeReported().isEmpty)
        #expect(rebalances.beginClose().isEmpty, "a second close answers nothing twice")
    }

    @Test("a producer refuses records after close, at once; a second close does nothing")
    func producerAfterClose() async throws {
        let producer = try KafkaProducer(
            configuration: KafkaProducerConfiguration(kafka: Self.kafka), logger: Self.logger)
        try await producer.close(timeout: .milliseconds(100))
        let start = ContinuousClock.now
        let error = await #expect(throws: KafkaError.self) {
            try await producer.send(ProducerRecord(topic: "t", value: ByteBuffer(string: "x")))
        }
        #expect(error?.code == .closed)
        #expect(
            await #expect(throws: KafkaError.self) { try await producer.flush(timeout: .seconds(1)) }?.code == .closed)
        #expect(start.duration(to: .now) < .seconds(1))
        try await producer.close()
    }

    @Test("a producer closed with a delivery pending gives it up: its waiter gets an error, and the close says why")
    func producerCloseWithPendingDelivery() async throws {
        let producer = try KafkaProducer(
            configuration: KafkaProducerConfiguration(kafka: Self.kafka), logger: Self.logger)
        let pending = try await producer.enqueue([ProducerRecord(topic: "t", value: ByteBuffer(string: "x"))])
        await #expect(throws: KafkaError.self) { try await producer.close(timeout: .milliseconds(200)) }
        let reports = await pending.reports()
        #expect(reports.count == 1 && reports[0].error != nil, "\(reports)")
    }

    @Test("a consumer refuses polls and commits after close, at once; a second close does nothing")
    func consumerAfterClose() async throws {
        let consumer = try KafkaConsumer(
            configuration: KafkaConsumerConfiguration(kafka: Self.kafka, groupID: nil), logger: Self.logger)
        try await consumer.close()
        #expect(await #expect(throws: KafkaError.self) { try await consumer.poll() }?.code == .closed)
        #expect(
            await #expect(throws: KafkaError.self) {
                try await consumer.commit([TopicPartitionOffset(TopicPartition("t", 0), offset: 1)])
            }?.code == .closed)
        #expect(#expect(throws: KafkaError.self) { try consumer.subscribe(["t"]) }?.code == .closed)
        try await consumer.close()
    }

    @Test("an admin refuses requests after close, at once; a second close does nothing")
    func adminAfterClose() async throws {
        let admin = try KafkaAdmin(configuration: Self.kafka, logger: Self.logger)
        await admin.close()
        #expect(
            await #expect(throws: KafkaError.self) { try await admin.topics(timeout: .seconds(5)) }?.code == .closed)
        #expect(
            await #expect(throws: KafkaError.self) {
                try await admin.createTopics([NewTopic(name: "t", partitions: 1)])
            }?.code == .closed)
        await admin.close()
    }
}
