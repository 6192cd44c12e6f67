import BridgeConfig
import BridgeCore
import Kafka
import Logging
import NIOCore
import Synchronization
import TestSupport
import Testing

@_spi(Benchmarks) @testable import BridgeWorker

/// The worker loop's commits, without a broker: what the loop hands to the producer and the
/// consumer while a commit runs and records, a rebalance or a failure arrive meanwhile. Each
/// scenario scripts the polls; the first commit waits until every scripted poll was served, so
/// that they all land during it, which the chaos runs reach only by chance.
@Suite("Worker loop commits")
struct WorkerLoopTests {
    static let sendTopic = BridgeConfiguration(kafka: .init(bootstrapServers: "unused:9092")).topics.send
    static let revocation = Poll.events([.partitionsRevoked([TopicPartition(sendTopic, 0)], lost: false)])

    @Test(
        "a rebalance during a commit: records that arrive are taken, their outputs held until the commit is done, the revocation handled after it",
        arguments: BridgeConfiguration.Delivery.allCases)
    func rebalanceDuringCommit(delivery: BridgeConfiguration.Delivery) async throws {
        let kafka = FakeKafka([Self.sends(0...2), Self.sends(3...4), Self.revocation])
        let outcome = await kafka.runLoop(delivery: delivery) { $0.count(of: .committed) == 2 }
        #expect(outcome == nil)
        #expect(kafka.steps == Self.commits(delivery, [3, 2], offsets: [3, 5]))
    }

    @Test(
        "a poll's failure during a commit is not hidden: the commit completes, the next batch's outputs are never handed over, and the failure ends the loop",
        arguments: BridgeConfiguration.Delivery.allCases)
    func pollErrorDuringCommit(delivery: BridgeConfiguration.Delivery) async throws {
        let kafka = FakeKafka([Self.sends(0...2), Self.sends(3...4), .failure(Refused.poll)])
        let outcome = await kafka.runLoop(delivery: delivery) { _ in false }
        #expect(outcome as? Refused == .poll, "\(String(describing: outcome))")
        #expect(kafka.steps == Self.commits(delivery, [3], offsets: [3]))
    }

    @Test(
        "a commit that fails with records already taken: the batch is not committed (exactly once: aborted), and nothing of the next batch is handed over",
        arguments: BridgeConfiguration.Delivery.allCases)
    func commitFailureWithRecordsTaken(delivery: BridgeConfiguration.Delivery) async throws {
        let kafka = FakeKafka([Self.sends(0...2), Self.sends(3...4), .events([])], failsFirstCommit: true)
        let outcome = await kafka.runLoop(delivery: delivery) { _ in false }
        #expect((outcome as? BatchNotCommitted)?.offsets.map(\.offset) == [3], "\(String(describing: outcome))")
        let expected: [Step] =
            switch delivery {
            case .exactlyOnce: [.began, .enqueued(3), .offsetsToTransaction([3]), .failed, .aborted]
            case .atLeastOnce: [.enqueued(3), .failed]
            }
        #expect(kafka.steps == expected)
    }

    /// One poll's records: sends forwarded to the repartition topic, one output each.
    static func sends(_ offsets: ClosedRange<Int64>) -> Poll {
        .events(
            offsets.map { offset in
                .record(
                    ConsumerRecord(
                        topicPartition: TopicPartition(sendTopic, 0), offset: offset,
                        key: ByteBuffer(string: "device-\(offset)"),
                        value: ByteBuffer(string: #"{"to":"device-\#(offset)","data":{"k":"v"}}"#)))
            })
    }

    /// The steps of commits in turn, each with its count of outputs and the offset it commits.
    static func commits(_ delivery: BridgeConfiguration.Delivery, _ outputs: [Int], offsets: [Int64]) -> [Step] {
        zip(outputs, offsets).flatMap { outputs, offset -> [Step] in
            switch delivery {
            case .exactlyOnce: [.began, .enqueued(outputs), .offsetsToTransaction([offset]), .committed]
            case .atLeastOnce: [.enqueued(outputs), .committed, .offsetsCommitted([offset])]
            }
        }
    }
}

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

    /// Runs a loop over this Kafka until it ends or `done` holds of its steps; returns its error.
    func runLoop(delivery: BridgeConfiguration.Delivery, until done: @escaping @Sendable ([Step]) -> Bool) async
        -> (any Error)?
    {
        var configuration = BridgeConfiguration(kafka: .init(bootstrapServers: "unused:9092"))
        configuration.bundleID = "com.example.app"
        let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        let committer = BatchCommitter(
            delivery: delivery, outputs: self, interval: .zero, maxRecords: 100, maxBytes: 1 << 20, trimmer: nil,
            metrics: .none, logger: logger)
        let restorer = ChangelogRestorer(
            consumerConfiguration: configuration.workerConsumer, changelogTopic: configuration.changelogTopic,
            repartitionTopic: configuration.repartitionTopic, logger: logger)
        let processor = RecordProcessor(
            configuration: configuration, statePartitions: 4, colocatedTopics: [],
            limits: OutputLimits(maxRecordBytes: 1_000_000),
            logger: logger)
        let task = Task {
            var loop = WorkerLoop(
                consumer: self, processor: processor, committer: committer, restorer: restorer,
                stateTopic: configuration.repartitionTopic, maxBatchRecords: 100, health: WorkerHealth(),
                metrics: .none, logger: logger)
            defer { self.state.withLock { $0.loopEnded = true } }
            try await loop.run()
        }
        _ = await eventually(timeout: .seconds(10), every: .milliseconds(5)) {
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

    func groupMetadata() throws -> ConsumerGroupMetadata { ConsumerGroupMetadata(groupID: "test") }

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
