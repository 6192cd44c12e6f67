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

    @Test(
        "a forwarded record of a kind this version does not know, taken during a commit: the commit completes, the batch holding it is never handed over, and the refusal ends the loop",
        arguments: BridgeConfiguration.Delivery.allCases)
    func unknownKindDuringCommit(delivery: BridgeConfiguration.Delivery) async throws {
        let repartition = BridgeConfiguration(kafka: .init(bootstrapServers: "unused:9092")).repartitionTopic
        let unknown = ConsumerRecord(
            topicPartition: TopicPartition(repartition, 0), offset: 0, key: ByteBuffer(string: "device-9"),
            value: ByteBuffer(string: "{}"),
            headers: [KafkaHeader(key: "kind", value: ByteBuffer(string: "fanout-merge"))],
            timestamp: KafkaTimestamp(milliseconds: 1_700_000_000_000, kind: .createTime))
        guard case .events(let sends) = Self.sends(3...4) else { return }
        let kafka = FakeKafka([Self.sends(0...2), .events(sends + [.record(unknown)])])
        let outcome = await kafka.runLoop(delivery: delivery) { _ in false }
        #expect(outcome is UnknownRecordKind, "\(String(describing: outcome))")
        #expect(kafka.steps == Self.commits(delivery, [3], offsets: [3]))
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
