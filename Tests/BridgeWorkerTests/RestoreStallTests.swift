import Foundation
import Kafka
import TestSupport
import Testing

@testable import BridgeCore
@_spi(Benchmarks) @testable import BridgeWorker

/// A restore that stops making progress starts over with a new consumer, and one that still
/// cannot reach the end within its timeout fails, naming what it waited for, rather than sit
/// silent (as a restore can after a broker restart). On the real broker
/// named by `KAFKA_BOOTSTRAP_SERVERS`.
@Suite("A stalled restore", .needsBroker, .timeLimit(.minutes(2)))
struct RestoreStallTests {
    @Test(
        "a partition no fetch answers is retried, then fails within the timeout, named with what the fetches reported")
    func stalledPartitionFailsLoudly() async throws {
        let id = UUID().uuidString.prefix(8)
        let changelog = "stall-changelog.\(id)"
        let repartition = "stall-repartition.\(id)"
        // Partition 3 does not exist: nothing ever answers for it, as nothing did for the
        // partitions a restarted broker would not serve.
        try await TestBroker.createTopics([
            NewTopic(name: changelog, partitions: 1), NewTopic(name: repartition, partitions: 1),
        ])
        var restorer = TestBroker.restorer(changelog: changelog, repartition: repartition)
        // Room for several stalls even when a loaded machine is slow to reach partition 0's end.
        restorer.timeout = .seconds(20)
        restorer.stallTimeout = .seconds(2)
        var states = DeviceStates()
        let started = ContinuousClock.now

        let error = await #expect(throws: RestoreTimeout.self) {
            try await restorer.restore([0, 3], committed: CommittedInputs([:]), into: &states)
        }

        #expect(ContinuousClock.now - started < .seconds(45))
        #expect((error?.attempts ?? 0) >= 2)
        #expect(error?.remaining.contains(TopicPartition(changelog, 3)) == true)
        #expect(error?.description.contains("\(changelog)[3] (no fetch answered)") == true)
    }
}
