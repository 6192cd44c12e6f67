import BridgeConfig
import BridgeStore
import DeviceQueues
import Foundation
import Kafka
import Logging
import NIOCore
import TestSupport
import Testing

@testable import BridgeCore
@testable import BridgeWorker

/// Commits on the real broker named by `KAFKA_BOOTSTRAP_SERVERS`.
@Suite(
    "Batch commits",
    .needsBroker,
    .timeLimit(.minutes(2))
)
struct BatchCommitterTests {
    let logger = TestBroker.logger

    @Test("at least once: when an output is not acknowledged, the changelog writes of its batch are never produced")
    func changelogFollowsOutputs() async throws {
        try await withCommitter(.atLeastOnce) { committer, consumer, names, input in
            // An inbox record for a partition the topic does not have cannot be delivered; the
            // changelog record written after it says the device got it.
            await #expect(throws: (any Error).self) {
                try await Self.commitDispatch(to: 7, of: input, committer: committer, consumer: consumer)
            }
            #expect(
                try await TestBroker.readToEnd(names[OutputTopic.changelog.rawValue]).isEmpty,
                "the changelog got ahead of the outputs")

            // The same writes with a deliverable inbox record: the changelog record lands.
            try await Self.commitDispatch(to: 0, of: input, committer: committer, consumer: consumer)
            let changelog = try await TestBroker.readToEnd(names[OutputTopic.changelog.rawValue])
            #expect(changelog.map { $0.value.map { String(buffer: $0) } } == ["dispatched"])
        }
    }

    @Test(
        "exactly once, outputs without a report of their own: an output not delivered fails the commit, and its input offset stays uncommitted"
    )
    func transactionIsTheReport() async throws {
        try await withCommitter(.exactlyOnce) { committer, consumer, names, input in
            await #expect(throws: (any Error).self) {
                try await Self.commitDispatch(to: 7, of: input, committer: committer, consumer: consumer)
            }
            let inputPartition = TopicPartition(input, 0)
            #expect(
                try await consumer.committed([inputPartition]).map(\.offset) != [1],
                "the input was committed past an output that never landed")

            // The same writes with a deliverable inbox record, in a new transaction: they land, and
            // the input offset with them.
            try await Self.commitDispatch(to: 0, of: input, committer: committer, consumer: consumer)
            #expect(try await consumer.committed([inputPartition]).map(\.offset) == [1])
            let inbox = try await TestBroker.readToEnd(names[OutputTopic.inbox.rawValue])
            #expect(inbox.map { $0.value.map { String(buffer: $0) } }.last == "message")
        }
    }

    /// The last case fills librdkafka's queue (4 records) many times over: the reports go on
    /// being counted where they stopped each time it waits for room.
    @Test(
        "exactly once with local stores: the changelog records' reports, among outputs without one, move each store past them",
        arguments: [(1, 100_000), (3, 100_000), (40, 4)])
    func storeCheckpointsFromChangelogReports(dispatches: Int, queuedAtMost: Int) async throws {
        let files = TemporaryDirectory()
        try await withCommitter(
            .exactlyOnce, withStores: true, producerProperties: ["queue.buffering.max.messages": "\(queuedAtMost)"]
        ) { committer, consumer, names, input in
            var stores: StateDirectory? = try StateDirectory(
                path: files.path, group: "batch-test", topic: names[OutputTopic.changelog.rawValue],
                changelogID: nil, cleanupDelay: .seconds(600))
            let store = try #require(try stores?.open(0, logger: logger))
            // Each dispatch: an inbox record, then a changelog record; the changelog's offsets
            // are 0..<dispatches, the records' places 1, 3, 5, ...
            var records = Self.dispatch(inboxPartition: 0, times: dispatches)
            var batch = Self.batch(of: input)
            var states = DeviceStates()
            try await committer.send(&records, in: &batch)
            #expect(
                try await committer.commit(&batch, states: &states, consumer: consumer, stores: &stores) == [])
            try stores?.takeUnwritten()?.run()
            #expect(try store.checkpoint() == Int64(dispatches))
            #expect(try store.recordCount() == 1, "one key, written \(dispatches) times")
        }
    }

    @Test(
        "with device rows, a committed batch's devices reach the rows as they were at its seal, at the store's checkpoint",
        arguments: [BridgeConfiguration.Delivery.exactlyOnce, .atLeastOnce])
    func rowsAsSealed(delivery: BridgeConfiguration.Delivery) async throws {
        let files = TemporaryDirectory()
        try await withCommitter(delivery, withStores: true) { committer, consumer, names, input in
            var committer = committer
            committer.keepsDeviceRows = true
            let changelog = names[OutputTopic.changelog.rawValue]
            var stores: StateDirectory? = try StateDirectory(testingAt: files.path, topic: changelog, deviceRows: true)
            _ = try stores?.open(0, logger: logger)
            var states = DeviceStates()
            states.adopt(0)
            let before = states.seal()
            var records = OutputRecords()
            for token in ["a", "b"] {
                let routed = RoutedInput(token: token, input: .send(StoreWritesTests.message(token)), time: 1)
                for change in states.handle(routed, in: 0, rules: QueueRules()).changes {
                    ChangelogCodec(topic: changelog).record(change, token: token, partition: 0, to: &records)
                }
            }
            var batch = Self.batch(of: input)
            try await committer.send(&records, in: &batch)
            guard let sealed = try await committer.seal(&batch, states: &states, consumer: consumer) else {
                Issue.record("the batch did not seal")
                return
            }
            let atSeal = states.devices(in: 0)
            // The next batch's change, made while this one commits, stays out of its rows.
            let later = RoutedInput(token: "a", input: .send(StoreWritesTests.message("later")), time: 2)
            _ = states.handle(later, in: 0, rules: QueueRules())
            try await committer.settle(sealed.seal)
            #expect(try await committer.finish(sealed, consumer: consumer, stores: &stores) == [])
            let write = stores?.takeUnwritten()
            // The rows say which batch they hold: the one sealed, after the one before.
            #expect(write?.records.rowsThrough == before + 1)
            let next = states.seal()
            #expect(next == before + 2)
            try write?.run()
            var held: [DeviceKey: DeviceQueue] = [:]
            try stores?.rows[0]?.forEachDevice { held[DeviceKey(token: $0)] = $1 }
            #expect(held.count == 2 && held == atSeal)
            #expect(try stores?.rows[0]?.checkpoint() == stores?[0]?.checkpoint())
        }
    }

    /// Runs `body` with a committer of `delivery` over fresh output topics of one partition (their
    /// names by ``OutputTopic``), a consumer of a group of its own, and the name of a fresh
    /// input topic of one partition. Exactly once, its producer is configured as the worker's:
    /// transactional, and with delivery reports for errors only unless the worker keeps stores;
    /// `producerProperties` are set on the producer besides.
    private func withCommitter(
        _ delivery: BridgeConfiguration.Delivery, withStores: Bool = false, producerProperties: [String: String] = [:],
        _ body: (BatchCommitter, KafkaConsumer, _ names: [String], _ input: String) async throws -> Void
    ) async throws {
        let kafka = TestBroker.kafka()
        let id = UUID().uuidString.prefix(8)
        let names = OutputTopic.allCases.map { "batch-\($0).\(id)" }
        let input = "batch-input.\(id)"
        try await TestBroker.createTopics(
            names.map { NewTopic(name: $0, partitions: 1) } + [NewTopic(name: input, partitions: 1)])
        var configuration = KafkaProducerConfiguration(kafka: kafka)
        if delivery == .exactlyOnce {
            configuration = KafkaProducerConfiguration(kafka: kafka, transactionalID: "batch-test-\(id)")
            configuration.kafka.properties["delivery.report.only.error"] = withStores ? "false" : "true"
        }
        configuration.kafka.properties.merge(producerProperties) { $1 }
        try await withKafkaProducer(configuration: configuration, logger: logger) { producer in
            if delivery == .exactlyOnce { try await producer.initTransactions() }
            try await withKafkaConsumer(
                configuration: KafkaConsumerConfiguration(kafka: kafka, groupID: "batch-test-\(id)"), logger: logger
            ) { consumer in
                var committer = try committer(delivery, producer: producer, topics: names)
                committer.keepsStores = withStores
                try await body(committer, consumer, names, input)
            }
        }
    }

    private func committer(_ delivery: BridgeConfiguration.Delivery, producer: KafkaProducer, topics: [String]) throws
        -> BatchCommitter
    {
        BatchCommitter(
            delivery: delivery, outputs: try OutputProducer(producer: producer, topicNames: topics),
            interval: .milliseconds(100), maxRecords: 100, maxBytes: 1 << 20, trimmer: nil, metrics: .none,
            logger: logger)
    }

    /// A dispatch's writes, `times` over: an inbox record for `inboxPartition`, then the
    /// changelog record saying so.
    private static func dispatch(inboxPartition: Int32, times: Int = 1) -> OutputRecords {
        var records = OutputRecords()
        for _ in 0..<times {
            records.begin(.inbox, partition: inboxPartition, timestamp: 1)
            records.value { $0.append(utf8: "message") }
            records.begin(.changelog, partition: 0, timestamp: 1)
            records.key { $0.append(utf8: "a 1:0:0 device") }
            records.value { $0.append(utf8: "dispatched") }
        }
        return records
    }

    /// Sends a dispatch to inbox partition `inboxPartition` in a batch holding the first record
    /// of `input`, and commits the batch.
    private static func commitDispatch(
        to inboxPartition: Int32, of input: String, committer: BatchCommitter, consumer: KafkaConsumer
    ) async throws {
        var records = dispatch(inboxPartition: inboxPartition)
        var batch = Self.batch(of: input)
        try await committer.send(&records, in: &batch)
        try await committer.commit(&batch, consumer: consumer)
    }

    /// A batch holding the first record of partition 0 of `input`.
    private static func batch(of input: String) -> OpenBatch {
        var batch = OpenBatch()
        batch.offsets[TopicPartition(input, 0)] = OpenBatch.Taken(next: 1, records: 1)
        batch.records = 1
        return batch
    }
}

extension BatchCommitter {
    /// A commit with no local stores.
    fileprivate func commit(_ batch: inout OpenBatch, consumer: any InputConsumer) async throws {
        var stores: StateDirectory?
        var states = DeviceStates()
        _ = try await commit(&batch, states: &states, consumer: consumer, stores: &stores)
    }
}
