import BridgeConfig
import Foundation
import Kafka
import TestSupport
import Testing

@_spi(Benchmarks) @testable import BridgeWorker

/// The loop keeps its group while it restores, and a rebalance that arrives meanwhile stops the
/// restore rather than wait for it: the loop's consumer is scripted, its restorer reads the real
/// broker named by `KAFKA_BOOTSTRAP_SERVERS`, where a partition no fetch answers makes a restore
/// that would run for its whole stall timeout.
@Suite("A rebalance during a restore", .needsBroker, .timeLimit(.minutes(2)))
struct RestoreRebalanceTests {
    @Test(
        "the assignment is paused while it restores; a revocation polled meanwhile stops the restore and the partitions resume"
    )
    func revocationStopsRestore() async throws {
        let id = UUID().uuidString.prefix(8)
        let (changelog, repartition) = ("rebalance-changelog.\(id)", "rebalance-repartition.\(id)")
        try await TestBroker.createTopics([
            NewTopic(name: changelog, partitions: 1), NewTopic(name: repartition, partitions: 1),
        ])
        var restorer = TestBroker.restorer(changelog: changelog, repartition: repartition)
        restorer.stallTimeout = .seconds(90)
        // State partition 3 does not exist: its restore reads nothing until the stall timeout.
        let send = BridgeConfiguration(kafka: .init(bootstrapServers: "unused:9092")).topics.send
        let assignment = [TopicPartition(repartition, 3), TopicPartition(send, 3)]
        let kafka = FakeKafka([
            .events([.partitionsAssigned(assignment)]),
            .events([.partitionsRevoked(assignment, lost: false)]),
        ])

        let outcome = await kafka.runLoop(delivery: .exactlyOnce, restorer: restorer) {
            $0.contains(.resumed(assignment))
        }

        // The loop runs for at most 10 s: a restore that was not stopped would stall for 90.
        #expect(outcome == nil, "\(String(describing: outcome))")
        #expect(kafka.steps.prefix(2) == [.paused(assignment), .resumed(assignment)], "\(kafka.steps)")
    }
}
