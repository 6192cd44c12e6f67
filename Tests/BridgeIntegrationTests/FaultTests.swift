import BridgeConfig
import FCMTranslation
import Foundation
import Kafka
import NIOCore
import TestSupport
import Testing

/// Nothing accepted is lost when workers leave or die mid-stream.
@Suite("Bridge faults", .needsBroker, .timeLimit(.minutes(5)))
struct FaultTests {
    static let devices = 12
    static let messagesPerDevice = 10

    /// Sends round `round` (one message per device), returning each message's id by device.
    func sendRound(_ round: Int, tokens: [String], fixture: BridgeFixture) async throws -> [String] {
        let records = tokens.map { token in
            ProducerRecord(
                topic: fixture.configuration.topics.send, key: ByteBuffer(string: token),
                value: ByteBuffer(string: Requests.legacy(token, title: "r\(round)")),
                timestamp: testEpoch + Int64(round))
        }
        return try await fixture.produce(records).map { "\($0.partition):\($0.offset):0" }
    }

    /// Connects every device and checks that each got every message, in send order, and that
    /// any repeat is the same record with the same message id.
    func expectEverythingDelivered(_ expected: [String: [String]], fixture: BridgeFixture, exactlyOnce: Bool)
        async throws
    {
        for token in expected.keys { try await fixture.presence(token, "connect", at: testEpoch + day) }
        let reader = try await fixture.outputs()
        let complete = try await reader.waitUntil(timeout: .seconds(120), "every message in every inbox") { reader in
            expected.allSatisfy { token, ids in
                Set(reader.inbox(of: token).compactMap { $0.json.messageID }).isSuperset(of: ids)
            }
        }
        guard complete else { return }
        for (token, ids) in expected {
            let inbox = reader.inbox(of: token)
            var firstSeen: [String] = []
            var values: [String: String] = [:]
            for record in inbox {
                guard let id = record.json.messageID else { continue }
                #expect(ids.contains(id), "an id that was never sent: \(id)")
                if let earlier = values[id] {
                    #expect(earlier == record.text, "a repeat of \(id) differs")
                } else {
                    firstSeen.append(id)
                    values[id] = record.text
                }
            }
            #expect(firstSeen == ids, "\(token) got its messages out of send order")
            if exactlyOnce { #expect(inbox.count == ids.count, "\(token) got repeats") }
        }
    }

    @Test("two workers in one group, one leaving mid-stream: nothing is lost or repeated")
    func workerLeaves() async throws {
        let fixture = try await BridgeFixture.make(partitions: 4)
        let tokens = (0..<Self.devices).map { uniqueToken("leave\($0)") }
        let first = fixture.startWorker()
        let second = fixture.startWorker()
        var expected: [String: [String]] = [:]
        let reader = try await fixture.outputs()
        for round in 0..<Self.messagesPerDevice {
            if round == Self.messagesPerDevice / 2 {
                // Everything so far is queued, spread over both workers' partitions; one leaves.
                try await reader.waitUntil("the first half queued") { reader in
                    tokens.allSatisfy { reader.statuses(of: $0).count >= round }
                }
                try await second.stop()
            }
            for (token, id) in zip(tokens, try await sendRound(round, tokens: tokens, fixture: fixture)) {
                expected[token, default: []].append(id)
            }
        }
        try await expectEverythingDelivered(expected, fixture: fixture, exactlyOnce: true)
        try await first.stop()
    }

    @Test(
        "a worker killed with SIGKILL mid-stream and restarted loses nothing; repeats keep their message ids",
        arguments: [BridgeConfiguration.Delivery.exactlyOnce, .atLeastOnce])
    func workerKilled(delivery: BridgeConfiguration.Delivery) async throws {
        // The restarted worker keeps the killed one's transactional id, as an instance with a
        // stable identity (a StatefulSet pod) does: that fences the killed worker's open
        // transaction at once. With a new id, Apache Kafka aborts it only after its timeout, and
        // tansu never does, so read_committed readers would wait behind it.
        let transactionalID = "kill-\(UUID().uuidString.prefix(8))"
        let fixture = try await BridgeFixture.make(partitions: 2, delivery: delivery) {
            $0.kafka.transactionalID = transactionalID
        }
        let tokens = (0..<Self.devices).map { uniqueToken("kill\($0)") }
        let reader = try await fixture.outputs()
        let worker = try WorkerProcess(fixture.configuration)
        // The stream keeps coming while the worker dies and its successor takes over.
        let stream = Task {
            var expected: [String: [String]] = [:]
            for round in 0..<Self.messagesPerDevice {
                for (token, id) in zip(tokens, try await sendRound(round, tokens: tokens, fixture: fixture)) {
                    expected[token, default: []].append(id)
                }
                try await Task.sleep(for: .milliseconds(150))
            }
            return expected
        }
        try await reader.waitUntil("the worker at work") { $0.statuses.count >= Self.devices }
        worker.kill()
        let successor = try WorkerProcess(fixture.configuration)
        let expected = try await stream.value
        // Messages queued before the kill live only in the changelog: the successor must restore them.
        try await expectEverythingDelivered(expected, fixture: fixture, exactlyOnce: false)
        successor.terminate()
    }
}
