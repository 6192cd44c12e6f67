import Foundation
import Kafka
import Synchronization
import TestSupport
import Testing

@testable import BridgeCore
@_spi(Benchmarks) @testable import BridgeWorker

/// A restore that stops making progress starts over with a new consumer, and fails, naming what
/// it waited for, only when its attempts stall in a row, rather than sit silent (as a restore
/// can after a broker restart); meanwhile it calls its caller back, whose error stops it. On the
/// real broker named by `KAFKA_BOOTSTRAP_SERVERS`.
@Suite("A stalled restore", .needsBroker, .timeLimit(.minutes(2)))
struct RestoreStallTests {
    /// Topics of one partition, whose partition 3 does not exist: nothing ever answers for it, as
    /// nothing did for the partitions a restarted broker would not serve.
    private static func stallingRestorer() async throws -> (ChangelogRestorer, changelog: String) {
        let id = UUID().uuidString.prefix(8)
        let changelog = "stall-changelog.\(id)"
        let repartition = "stall-repartition.\(id)"
        try await TestBroker.createTopics([
            NewTopic(name: changelog, partitions: 1), NewTopic(name: repartition, partitions: 1),
        ])
        var restorer = TestBroker.restorer(changelog: changelog, repartition: repartition)
        restorer.stallTimeout = .seconds(2)
        return (restorer, changelog)
    }

    @Test(
        "a partition no fetch answers is retried, then fails after its attempts stall in a row, named with what the fetches reported"
    )
    func stalledPartitionFailsLoudly() async throws {
        var (restorer, changelog) = try await Self.stallingRestorer()
        restorer.stallLimit = 3
        let keptAlive = Atomic(0)
        var states = DeviceStates()

        let error = await #expect(throws: RestoreStalled.self) {
            try await restorer.restore([0, 3], committed: CommittedInputs([:]), into: &states) {
                keptAlive.add(1, ordering: .relaxed)
            }
        }

        #expect(error?.attempts == 3)
        #expect(error?.remaining.contains(TopicPartition(changelog, 3)) == true)
        #expect(error?.description.contains("\(changelog)[3] (no fetch answered)") == true)
        // Each attempt runs for the stall timeout, longer than the call-back interval: it calls
        // back at least once, however slow its polls.
        #expect(keptAlive.load(ordering: .relaxed) >= 3)
        #expect(states.partitionCount == 0)
    }

    @Test("an error of the caller's call back stops the restore at once, and leaves none of its partitions")
    func keepAliveErrorStops() async throws {
        struct Rebalanced: Error {}
        var (restorer, _) = try await Self.stallingRestorer()
        restorer.stallTimeout = .seconds(60)
        var states = DeviceStates()
        let started = ContinuousClock.now

        await #expect(throws: Rebalanced.self) {
            try await restorer.restore([0, 3], committed: CommittedInputs([:]), into: &states) { throw Rebalanced() }
        }

        #expect(ContinuousClock.now - started < .seconds(60))
        #expect(states.partitionCount == 0)
    }
}
