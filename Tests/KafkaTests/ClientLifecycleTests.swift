import Kafka
import Logging
import NIOCore
import Synchronization
import TestSupport
import Testing

@testable import Kafka

/// Each client's life, without a broker: what is served after `close()`, a second close, and a
/// close with deliveries pending, from a task going on or cancelled. Port 9 (discard) on
/// loopback: nothing listens.
@Suite("Client lifecycles", .timeLimit(.minutes(1)))
struct ClientLifecycleTests {
    static let kafka = KafkaConfiguration(bootstrapServers: "127.0.0.1:9", clientID: "lifecycle-test")
    static let logger = Logger(label: "lifecycle-test", factory: { _ in SwiftLogNoOpLogHandler() })

    @Test(
        "the state machine holds the handle: every call gets it while running, only a close's own calls while closing, none once closed; loops run until closed"
    )
    func stateMachine() {
        var lifecycle = ClientLifecycle<Int>()
        #expect(lifecycle.handle(duringClose: true) == nil && lifecycle.beginClose() == .none)
        lifecycle.start(7)
        #expect(lifecycle.handle(duringClose: false) == 7 && lifecycle.loopHandle == 7 && !lifecycle.isClosed)
        #expect(lifecycle.beginClose() == .close)
        #expect(lifecycle.handle(duringClose: false) == nil)
        #expect(lifecycle.handle(duringClose: true) == 7 && lifecycle.loopHandle == 7)
        #expect(lifecycle.beginClose() == .none)
        lifecycle.finishClose()
        #expect(lifecycle.handle(duringClose: true) == nil && lifecycle.loopHandle == nil && lifecycle.isClosed)
        #expect(lifecycle.beginClose() == .none)
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

    @Test("a close from a cancelled task still gives up what is pending: its waiter gets an error")
    func producerClosedFromCancelledTask() async throws {
        let producer = try KafkaProducer(
            configuration: KafkaProducerConfiguration(kafka: Self.kafka), logger: Self.logger)
        let pending = try await producer.enqueue([ProducerRecord(topic: "t", value: ByteBuffer(string: "x"))])
        let closing = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await producer.close(timeout: .milliseconds(200))
        }
        // Waited for beside, not awaited: a waiter nobody resumes would hang the test run.
        let reports = Mutex<[DeliveryReport]?>(nil)
        Task { reports.withLock { [reports = await pending.reports()] in $0 = reports } }
        await #expect(throws: KafkaError.self) { try await closing.value }
        let arrived = await eventually(timeout: .seconds(10)) { reports.withLock { $0 != nil } }
        #expect(arrived, "the pending delivery's waiter was never resumed")
        #expect(reports.withLock { $0?.first?.error } != nil)
    }

    @Test(
        "a consumer refuses every call after close, at once, in turns or not; a second close does nothing",
        arguments: [nil, PartitionTurns(recordsPerTurn: 10)])
    func consumerAfterClose(turns: PartitionTurns?) async throws {
        var configuration = KafkaConsumerConfiguration(kafka: Self.kafka, groupID: "lifecycle-test")
        configuration.partitionTurns = turns
        let consumer = try KafkaConsumer(configuration: configuration, logger: Self.logger)
        try await consumer.close()
        let partition = TopicPartition("t", 0)
        let calls: [(String, () async throws -> Void)] = [
            ("committed", { _ = try await consumer.committed([partition]) }),
            ("seek", { try await consumer.seek([TopicPartitionOffset(partition, offset: 0)]) }),
            ("assign", { try await consumer.assign([TopicPartitionOffset(partition, offset: 0)]) }),
            ("positions", { _ = try consumer.positions([partition]) }),
            ("pause", { try consumer.pause([partition]) }), ("resume", { try await consumer.resume([partition]) }),
            ("assignment", { _ = try consumer.assignment() }), ("group metadata", { _ = try consumer.groupMetadata() }),
        ]
        for (name, call) in calls {
            #expect(await #expect(throws: KafkaError.self, "\(name)") { try await call() }?.code == .closed)
        }
        #expect(consumer.highWatermark(of: partition) == nil)
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
