import Kafka
import Synchronization
import TestSupport

/// A rebalance listener that records what it was told, and checks that a revocation reaches it
/// while the consumer still holds the partitions (before librdkafka completes the revoke).
final class RecordingListener: KafkaRebalanceListener {
    enum Event: Equatable, CustomStringConvertible {
        case assigned(Set<TopicPartition>)
        case revoked(Set<TopicPartition>, stillAssigned: Bool)

        var description: String {
            switch self {
            case .assigned(let partitions): "assigned \(partitions.sorted())"
            case .revoked(let partitions, let held): "revoked \(partitions.sorted())\(held ? "" : " (already gone)")"
            }
        }
    }

    private let storage = Mutex<[Event]>([])

    var events: [Event] { storage.withLock { $0 } }

    /// What the listener's events say the consumer owns now.
    var owned: Set<TopicPartition> {
        events.reduce(into: []) { owned, event in
            switch event {
            case .assigned(let partitions): owned.formUnion(partitions)
            case .revoked(let partitions, _): owned.subtract(partitions)
            }
        }
    }

    func partitionsRevoked(_ partitions: [TopicPartition], lost: Bool, consumer: KafkaConsumer) async throws {
        let held = Set(try consumer.assignment()).isSuperset(of: partitions)
        storage.withLock { $0.append(.revoked(Set(partitions), stillAssigned: held)) }
    }

    func partitionsAssigned(_ partitions: [TopicPartition], consumer: KafkaConsumer) async throws {
        storage.withLock { $0.append(.assigned(Set(partitions))) }
    }
}

/// A consumer polled by a task of its own until stopped.
struct PollingConsumer {
    let consumer: KafkaConsumer
    let listener: RecordingListener
    let task: Task<Void, any Error>

    init(group: String, topics: [String]) throws {
        listener = RecordingListener()
        consumer = try KafkaConsumer(
            configuration: TestBroker.consumerConfiguration(group: group),
            rebalanceListener: listener,
            logger: TestBroker.logger
        )
        try consumer.subscribe(topics)
        let consumer = self.consumer
        task = Task {
            while !Task.isCancelled { _ = try await consumer.poll() }
        }
    }

    /// Stops polling and leaves the group, also when polling failed (whose error it throws; a
    /// poll's `CancellationError` is how polling stops).
    func close() async throws {
        task.cancel()
        let polling = await task.result
        try await consumer.close()
        if case .failure(let error) = polling, !(error is CancellationError) { throw error }
    }
}
