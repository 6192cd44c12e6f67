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
    /// A restorer of topics of one partition: the restore of any other partition runs until a
    /// rebalance stops it.
    static func stallingRestorer() async throws -> ChangelogRestorer {
        let id = UUID().uuidString.prefix(8)
        let (changelog, repartition) = ("rebalance-changelog.\(id)", "rebalance-repartition.\(id)")
        try await TestBroker.createTopics([
            NewTopic(name: changelog, partitions: 1), NewTopic(name: repartition, partitions: 1),
        ])
        var restorer = TestBroker.restorer(changelog: changelog, repartition: repartition)
        restorer.stallTimeout = .seconds(90)
        return restorer
    }

    static let send = BridgeConfiguration(kafka: .init(bootstrapServers: "unused:9092")).topics.send

    @Test("the assignment is paused while it restores; a revocation of all of it polled meanwhile ends the restore")
    func revocationStopsRestore() async throws {
        let restorer = try await Self.stallingRestorer()
        let assignment = [TopicPartition(restorer.repartitionTopic, 3), TopicPartition(Self.send, 3)]
        let kafka = FakeKafka([
            .events([.partitionsAssigned(assignment)]),
            .events([.partitionsRevoked(assignment, lost: false)]),
        ])

        // As long as the next test's: the restore consumer joins a loaded broker first (CI).
        let outcome = await kafka.runLoop(delivery: .exactlyOnce, restorer: restorer, within: .seconds(60)) {
            $0.contains(.resumed([]))
        }

        // A restore that was not stopped would stall for 90 s, past the loop's 60.
        #expect(outcome == nil, "\(String(describing: outcome))")
        #expect(kafka.steps.prefix(2) == [.paused(assignment), .resumed([])], "\(kafka.steps)")
    }

    @Test(
        "an assignment during a restore joins it, a revocation of part of it leaves the rest restoring, and only what is held resumes"
    )
    func rebalancesJoinAndLeave() async throws {
        let restorer = try await Self.stallingRestorer()
        let first = [TopicPartition(restorer.repartitionTopic, 3)]
        let second = [TopicPartition(restorer.repartitionTopic, 2)]
        let kafka = FakeKafka([
            .events([.partitionsAssigned(first)]),
            .events([.partitionsAssigned(second)]),
            .events([.partitionsRevoked(first, lost: false)]),
            .events([.partitionsRevoked(second, lost: false)]),
        ])

        // Each rebalance restarts the restore, and the next is polled only by a restore running.
        let outcome = await kafka.runLoop(delivery: .exactlyOnce, restorer: restorer, within: .seconds(60)) {
            $0.contains(.resumed([]))
        }

        #expect(outcome == nil, "\(String(describing: outcome))")
        #expect(kafka.steps.prefix(3) == [.paused(first), .paused(second), .resumed([])], "\(kafka.steps)")
    }
}
