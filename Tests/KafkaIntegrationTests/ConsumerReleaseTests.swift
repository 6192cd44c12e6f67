import Foundation
import Kafka
import TestSupport
import Testing

/// A group consumer released without ``KafkaConsumer/close()`` (a bug of its owner) must not
/// hang: its release frees it without the consumer close, which would wait for an answer to the
/// revocation of what it holds, with nobody polling for it any more.
@Suite("Consumers released without close", .needsBroker, .timeLimit(.minutes(2)))
struct ConsumerReleaseTests {
    @Test(
        "a consumer released while it holds partitions is destroyed, not left waiting for an answer to its revocation")
    func releasedHoldingPartitions() async throws {
        let topic = try await TestBroker.createTopic("release", partitions: 2)
        var configuration = TestBroker.consumerConfiguration(group: TestBroker.uniqueName("release"))
        configuration.reportsEndOfPartition = false
        let holder = ConsumerHolder(try KafkaConsumer(configuration: configuration, logger: TestBroker.logger))
        try holder.consumer?.subscribe([topic])
        #expect(try await holder.pollUntil { if case .partitionsAssigned = $0 { true } else { false } })
        _ = try await holder.consumer?.poll(timeout: .milliseconds(100))

        // Released on a thread of its own, so that a hang fails this test instead of the run.
        Thread.detachNewThread { holder.release() }
        let deadline = ContinuousClock.now + .seconds(30)
        while !holder.released, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(holder.released, "releasing the consumer hangs in rd_kafka_destroy")
    }
}

/// Holds the only reference to a consumer, so that a thread of the test's choosing releases it.
private final class ConsumerHolder: @unchecked Sendable {
    private let lock = NSLock()
    private var held: KafkaConsumer?
    private var done = false

    init(_ consumer: KafkaConsumer) { held = consumer }

    var consumer: KafkaConsumer? { lock.withLock { held } }

    /// Whether ``release()`` has returned: the consumer is destroyed.
    var released: Bool { lock.withLock { done } }

    /// Drops the last reference, destroying the consumer on the calling thread.
    func release() {
        var consumer = lock.withLock {
            defer { held = nil }
            return held
        }
        consumer = nil
        lock.withLock { done = consumer == nil }
    }

    /// Polls until an event matches; false if none did within 30 s.
    func pollUntil(_ matches: (ConsumerEvent) -> Bool) async throws -> Bool {
        guard let consumer else { return false }
        return try await consumer.pollUntil(matches) != nil
    }
}
