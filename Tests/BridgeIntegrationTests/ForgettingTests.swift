import FCMTranslation
import Foundation
import Kafka
import NIOCore
import TestSupport
import Testing

/// Devices are not kept forever: one with nothing waiting and no presence
/// event for longer than `inactive_after` is forgotten, and its changelog key gets a tombstone, so
/// that compaction drops it and a restore does not bring it back.
@Suite("Forgetting idle devices", .needsBroker, .timeLimit(.minutes(3)))
struct ForgettingTests {
    @Test("a device idle for over a month is tombstoned in the changelog; one with a message waiting is not")
    func tombstoned() async throws {
        try await BridgeFixture.withWorker(partitions: 1) { fixture, reader in
            let idle = uniqueToken("idle")
            let waiting = uniqueToken("waiting")
            let later = uniqueToken("later")
            try await fixture.presence(idle, "connect", at: testEpoch)
            try await fixture.presence(idle, "disconnect", at: testEpoch)
            try await fixture.send([Requests.legacy(waiting, ttl: 2_419_200)], key: waiting, at: testEpoch)
            #expect(try await reader.statuses(of: waiting, count: 1).map(\.type) == ["queued"])
            // An input 31 days later, on the same (only) partition, finds the first device idle.
            try await fixture.presence(later, "connect", at: testEpoch + 31 * day)

            let changelog = fixture.configuration.changelogTopic
            var records: [ConsumerRecord] = []
            let deadline = ContinuousClock.now + .seconds(60)
            while ContinuousClock.now < deadline,
                !records.contains(where: { $0.key.map { String(buffer: $0) } == "d \(idle)" && $0.value == nil })
            {
                records = try await readToEnd(changelog, fixture: fixture)
            }
            let keyed = records.filter { $0.key.map { String(buffer: $0) } == "d \(idle)" }
            #expect(
                keyed.last?.value == nil && keyed.dropLast().allSatisfy { $0.value != nil },
                "its statuses, then a tombstone")
            #expect(!records.contains { $0.key.map { String(buffer: $0) } == "d \(waiting)" && $0.value == nil })
            #expect(!records.contains { $0.key.map { String(buffer: $0) } == "d \(later)" && $0.value == nil })
        }
    }

    /// Every record of partition 0 of `topic`, read committed, to its end.
    private func readToEnd(_ topic: String, fixture: BridgeFixture) async throws -> [ConsumerRecord] {
        var configuration = KafkaConsumerConfiguration(kafka: fixture.kafka, groupID: nil)
        configuration.isolationLevel = .readCommitted
        configuration.fetchWaitMax = .milliseconds(10)
        return try await KafkaConsumer.readToEnd(
            [TopicPartition(topic, 0)], configuration: configuration, logger: BridgeFixture.logger)
    }
}
