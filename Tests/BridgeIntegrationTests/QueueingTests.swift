import BridgeConfig
import BridgeCore
import FCMTranslation
import Kafka
import TestSupport
import Testing

/// The contract's per-device queueing rules, end to end through a worker on the real broker.
@Suite("Bridge queueing", .needsBroker, .timeLimit(.minutes(3)))
struct QueueingTests {
    @Test("offline messages are queued, flushed in send order on connect; online ones pass straight through")
    func offlineThenOnline() async throws {
        try await BridgeFixture.withWorker { fixture, reader in
            let token = uniqueToken()

            try await fixture.send(
                ["a", "b", "c"].map { Requests.legacy(token, title: $0) }, key: token, at: testEpoch)
            let queued = try await reader.statuses(of: token, count: 3)
            #expect(queued.map(\.type) == ["queued", "queued", "queued"])
            #expect(queued.map { $0.integer("at") } == [testEpoch, testEpoch, testEpoch])
            let ids = queued.compactMap(\.messageID)
            #expect(Set(ids).count == 3)

            try await fixture.presence(token, "connect", at: testEpoch + 1000)
            let flushed = try await reader.statuses(of: token, count: 6).dropFirst(3)
            #expect(flushed.map(\.type) == ["dispatched", "dispatched", "dispatched"])
            #expect(flushed.map(\.messageID) == ids)
            #expect(flushed.map { $0.integer("at") } == Array(repeating: testEpoch + 1000, count: 3))

            try await reader.waitUntil("3 inbox records") { $0.inbox(of: token).count >= 3 }
            let inbox = reader.inbox(of: token)
            #expect(inbox.map { $0.json.messageID } == ids)
            #expect(inbox.map { $0.headers.string(for: "message-id") } == ids)
            #expect(inbox.allSatisfy { $0.headers.string(for: "kind") == "message" })
            let expectedPartition = Murmur2Partitioner.partition(
                of: token.utf8, partitions: fixture.configuration.topics.partitions)
            #expect(inbox.allSatisfy { $0.topicPartition.partition == expectedPartition })
            let first = inbox[0].json
            #expect(first["kind"] == .string("message") && first["token"] == .string(token))
            #expect(first.integer("sent_at") == testEpoch)
            #expect(first["apns"]?["payload"]?["aps"]?["alert"]?["title"] == .string("a"))
            #expect(first["apns"]?["payload"]?["gcm.message_id"] == .string(ids[0]))
            #expect(first["apns"]?["headers"]?["apns-topic"] == .string("com.example.test"))
            #expect(first["apns"]?["headers"]?["apns-push-type"] == .string("alert"))

            try await fixture.send([Requests.legacy(token, title: "d")], key: token, at: testEpoch + 2000)
            let online = try await reader.statuses(of: token, count: 7).last
            #expect(online?.type == "dispatched")
            #expect(online?.integer("at") == testEpoch + 2000)
        }
    }

    @Test(
        "overflow discards everything waiting: one deleted_messages status, and a notice first in the inbox on connect")
    func overflow() async throws {
        let threePending: (inout BridgeConfiguration) -> Void = { $0.queue.maxPending = 3 }
        try await BridgeFixture.withWorker(adjust: threePending) { fixture, reader in
            let token = uniqueToken()

            let reports = try await fixture.send(
                (1...4).map { Requests.legacy(token, title: "m\($0)") }, key: token, at: testEpoch)
            let statuses = try await reader.statuses(of: token, count: 4)
            #expect(statuses.map(\.type) == ["queued", "queued", "queued", "deleted_messages"])
            let deleted = statuses[3]
            #expect(deleted["reason"] == .string("too_many_pending"))
            #expect(deleted.integer("count") == 4)
            #expect(deleted.messageID == nil)
            #expect(deleted["message_ids"] == .array(reports.map { .string("\($0.partition):\($0.offset):0") }))

            try await fixture.send([Requests.legacy(token, title: "after")], key: token, at: testEpoch + 10)
            _ = try await reader.statuses(of: token, count: 5)
            try await fixture.presence(token, "connect", at: testEpoch + 20)
            try await reader.waitUntil("notice and message") { $0.inbox(of: token).count >= 2 }
            let inbox = reader.inbox(of: token)
            #expect(inbox.map { $0.headers.string(for: "kind") } == ["deleted_messages", "message"])
            #expect(inbox[0].headers.string(for: "message-id") == nil)
            #expect(
                inbox[0].json
                    == .object([
                        "kind": .string("deleted_messages"), "token": .string(token),
                        "reason": .string("too_many_pending"), "count": .integer(4),
                    ]))
            #expect(inbox[1].json["apns"]?["payload"]?["aps"]?["alert"]?["title"] == .string("after"))
        }
    }

    @Test("a collapse key replaces the waiting message with that key; a fifth key evicts the oldest")
    func collapse() async throws {
        try await BridgeFixture.withWorker { fixture, reader in
            let token = uniqueToken()

            let requests = ["k1", "k2", "k3", "k4", "k1", "k5"].map {
                Requests.legacy(token, title: $0, collapseKey: $0)
            }
            let reports = try await fixture.send(requests, key: token, at: testEpoch)
            let ids = reports.map { "\($0.partition):\($0.offset):0" }
            let statuses = try await reader.statuses(of: token, count: 8)
            #expect(
                statuses.map(\.type) == [
                    "queued", "queued", "queued", "queued", "collapsed", "queued", "collapsed", "queued",
                ])
            #expect(statuses[4].messageID == ids[0])
            #expect(statuses[4]["reason"] == .string("collapse_key"))
            #expect(statuses[4]["replaced_by"] == .string(ids[4]))
            #expect(statuses[6].messageID == ids[1])
            #expect(statuses[6]["reason"] == .string("collapse_key_limit"))
            #expect(statuses[6]["replaced_by"] == .string(ids[5]))

            try await fixture.presence(token, "connect", at: testEpoch + 5)
            try await reader.waitUntil("4 inbox records") { $0.inbox(of: token).count >= 4 }
            #expect(reader.inbox(of: token).map { $0.json.messageID } == [ids[2], ids[3], ids[4], ids[5]])
        }
    }

    @Test("expired messages are never dispatched; TTL 0 to an offline device expires at once")
    func expiry() async throws {
        try await BridgeFixture.withWorker { fixture, reader in
            let token = uniqueToken()

            let reports = try await fixture.send(
                [Requests.legacy(token, ttl: 60), Requests.legacy(token, ttl: 0), Requests.legacy(token)], key: token,
                at: testEpoch
            )
            let ids = reports.map { "\($0.partition):\($0.offset):0" }
            let sent = try await reader.statuses(of: token, count: 3)
            #expect(sent.map(\.type) == ["queued", "expired", "queued"])
            #expect(sent[1].messageID == ids[1] && sent[1].integer("at") == testEpoch)

            try await fixture.presence(token, "connect", at: testEpoch + 120_000)
            let connected = try await reader.statuses(of: token, count: 5).dropFirst(3)
            #expect(connected.map(\.type) == ["expired", "dispatched"])
            #expect(connected.map(\.messageID) == [ids[0], ids[2]])
            #expect(connected.allSatisfy { $0.integer("at") == testEpoch + 120_000 })
            try await reader.waitUntil("one inbox record") { $0.inbox(of: token).count >= 1 }
            #expect(reader.inbox(of: token).map { $0.json.messageID } == [ids[2]])
        }
    }

    @Test("a device that connects after more than 30 days without presence loses its waiting messages")
    func inactivity() async throws {
        try await BridgeFixture.withWorker { fixture, reader in
            let token = uniqueToken()

            // Presence events leave no status of their own: each step waits for a visible effect,
            // since sends and presence events are read from different topics.
            let seen = try await reader.connectedAndLeft(token, fixture: fixture, at: testEpoch)
            // Record timestamps 31 days apart: event time, not the worker's clock, decides.
            try await fixture.send([Requests.legacy(token, ttl: 2_419_200)], key: token, at: testEpoch + day)
            let queued = try await reader.statuses(of: token, count: seen + 1).last
            #expect(queued?.type == "queued")
            try await fixture.presence(token, "connect", at: testEpoch + 31 * day)
            let deleted = try await reader.statuses(of: token, count: seen + 2).last
            #expect(deleted?.type == "deleted_messages")
            #expect(deleted?["reason"] == .string("device_inactive"))
            #expect(deleted?.integer("count") == 1)
            #expect(deleted?["message_ids"] == .array([.string(queued?.messageID ?? "")]))
            try await reader.waitUntil("the notice") { $0.inbox(of: token).count >= 2 }
            #expect(reader.inbox(of: token).last?.json["reason"] == .string("device_inactive"))
        }
    }

    @Test("an ack of a dispatched message gives delivered; unknown ids are ignored")
    func acknowledgement() async throws {
        try await BridgeFixture.withWorker { fixture, reader in
            let token = uniqueToken()

            let first = try await reader.queuedThenConnected(token, fixture: fixture, at: testEpoch)
            try await fixture.presence(token, "ack", messageIDs: ["no-such-id", first], at: testEpoch + 2)
            let delivered = try await reader.statuses(of: token, count: 3).last
            #expect(
                delivered?.type == "delivered" && delivered?.messageID == first
                    && delivered?.integer("at") == testEpoch + 2)
            // Nothing for the unknown id: the next event is the next message's, straight through.
            try await fixture.send([Requests.v1(token)], key: token, at: testEpoch + 3)
            let next = try await reader.statuses(of: token, count: 4).last
            #expect(next?.type == "dispatched" && next?.integer("at") == testEpoch + 3)
        }
    }
}
