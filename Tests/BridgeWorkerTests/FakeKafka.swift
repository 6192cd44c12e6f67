import BridgeConfig
import BridgeCore
import BridgeHealth
import Kafka
import Logging
import Synchronization
import TestSupport

@_spi(Benchmarks) @testable import BridgeWorker

/// What the loop did to Kafka, in order.
enum Step: Equatable {
    case began
    case enqueued(Int)
    case offsetsToTransaction([Int64])
    /// Exactly once: the transaction committed. At least once: the outputs were acknowledged.
    case committed
    /// The first commit failed.
    case failed
    case aborted
    case offsetsCommitted([Int64])
    case paused([TopicPartition])
    case resumed([TopicPartition])
}

/// A failure a scenario scripts.
enum Refused: Error, Equatable {
    case poll, commit
}

/// One scripted poll.
enum Poll {
    case events([ConsumerEvent])
    case failure(any Error)
}

/// The consumer and the producer of a loop, in memory: polls follow the script (then return
/// nothing), and the first commit settles only once every scripted poll was served.
final class FakeKafka: InputConsumer, OutputSink {
    private struct State {
        var script: [Poll]
        var served = 0
        var steps: [Step] = []
        var failsFirstCommit: Bool
        var loopEnded = false
    }

    private let state: Mutex<State>
    private let scripted: Int

    init(_ script: [Poll], failsFirstCommit: Bool = false) {
        scripted = script.count
        state = Mutex(State(script: script.reversed(), failsFirstCommit: failsFirstCommit))
    }

    var steps: [Step] { state.withLock { $0.steps } }

    /// Runs a loop over this Kafka until it ends, `done` holds of its steps or `timeout` passes;
    /// returns its error.
    /// Its state partitions are those of `restorer`'s repartition topic, restored by it (none
    /// named: a restorer of a broker nobody reaches, for loops assigned no state partition).
    func runLoop(
        delivery: BridgeConfiguration.Delivery, restorer: ChangelogRestorer? = nil,
        within timeout: Duration = .seconds(10),
        until done: @escaping @Sendable ([Step]) -> Bool
    ) async -> (any Error)? {
        var configuration = BridgeConfiguration(kafka: .init(bootstrapServers: "unused:9092"))
        configuration.bundleID = "com.example.app"
        let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        let committer = BatchCommitter(
            delivery: delivery, outputs: self, interval: .zero, maxRecords: 100, maxBytes: 1 << 20, trimmer: nil,
            metrics: .none, logger: logger)
        let restorer =
            restorer
            ?? ChangelogRestorer(
                consumerConfiguration: configuration.workerConsumer, changelogTopic: configuration.changelogTopic,
                repartitionTopic: configuration.repartitionTopic, logger: logger)
        let processor = RecordProcessor(
            configuration: configuration, statePartitions: 4, colocatedTopics: [],
            limits: OutputLimits(maxRecordBytes: 1_000_000),
            logger: logger)
        let task = Task {
            var loop = WorkerLoop(
                consumer: self, processor: processor, committer: committer, restorer: restorer,
                stateTopic: restorer.repartitionTopic, maxBatchRecords: 100, health: WorkerHealth(),
                logger: logger)
            defer { self.state.withLock { $0.loopEnded = true } }
            try await loop.run()
        }
        _ = await eventually(timeout: timeout, every: .milliseconds(5)) {
            state.withLock { $0.loopEnded || done($0.steps) }
        }
        task.cancel()
        do {
            try await task.value
            return nil
        } catch {
            return error
        }
    }

    func poll(maxRecords: Int, timeout: Duration) async throws -> [ConsumerEvent] {
        let next = state.withLock { state -> Poll? in
            guard let next = state.script.popLast() else { return nil }
            state.served += 1
            return next
        }
        switch next {
        case .events(let events): return events
        case .failure(let error): throw error
        case nil:
            try? await Task.sleep(for: .milliseconds(1))
            return []
        }
    }

    func committed(_ partitions: [TopicPartition], timeout: Duration) async throws -> [TopicPartitionOffset] { [] }

    func commit(_ offsets: [TopicPartitionOffset]) async throws {
        record(.offsetsCommitted(offsets.map(\.offset)))
    }

    func assignment() throws -> [TopicPartition] { [] }

    func pause(_ partitions: [TopicPartition]) throws { record(.paused(partitions)) }

    func resume(_ partitions: [TopicPartition]) async throws { record(.resumed(partitions)) }

    func groupMetadata() throws -> ConsumerGroupMetadata {
        guard let metadata = ConsumerGroupMetadata(groupID: "test") else { throw Refused.commit }
        return metadata
    }

    func enqueue(_ outputs: borrowing OutputRecords) async throws -> PendingDeliveries {
        record(.enqueued(outputs.count))
        let deliveries = PendingDeliveries(count: outputs.count) { _ in "out" }
        let count = outputs.count
        Task {
            let failure = await settlement()
            let error = failure.map { KafkaError(code: .messageTimedOut, message: "\($0)") }
            for index in 0..<count { deliveries.complete(index, partition: 0, offset: 0, error: error) }
        }
        return deliveries
    }

    func enqueueInTransaction(_ outputs: borrowing OutputRecords) async throws { record(.enqueued(outputs.count)) }

    func enqueueInTransaction(_ outputs: borrowing OutputRecords, reportingOn topic: OutputTopic) async throws
        -> PendingDeliveries
    {
        record(.enqueued(outputs.count))
        let count = outputs.records.lazy.filter { $0.topic == topic }.count
        let deliveries = PendingDeliveries(count: count) { _ in "out" }
        for index in 0..<count { deliveries.complete(index, partition: 0, offset: Int64(index), error: nil) }
        return deliveries
    }

    func beginTransaction() throws { record(.began) }

    func sendOffsetsToTransaction(_ offsets: [TopicPartitionOffset], groupMetadata: ConsumerGroupMetadata)
        async throws
    {
        record(.offsetsToTransaction(offsets.map(\.offset)))
    }

    func commitTransaction() async throws {
        if let failure = await settlement() { throw failure }
    }

    func abortTransaction() async throws { record(.aborted) }

    /// Waits until every scripted poll was served, then settles the commit: records it, or the
    /// failure the first commit was told to have, which it returns.
    private func settlement() async -> Refused? {
        _ = await eventually(timeout: .seconds(10), every: .milliseconds(1)) {
            state.withLock { $0.served == scripted }
        }
        return state.withLock { state in
            guard state.failsFirstCommit else {
                state.steps.append(.committed)
                return nil
            }
            state.failsFirstCommit = false
            state.steps.append(.failed)
            return .commit
        }
    }

    private func record(_ step: Step) { state.withLock { $0.steps.append(step) } }
}

extension [Step] {
    func count(of step: Step) -> Int { filter { $0 == step }.count }
}
