import BridgeCore
import FCMTranslation
import Kafka
import NIOCore
import TestSupport
import Testing

/// Dry runs, rejections, dead letters, multicast and routing, end to end on the real broker.
@Suite("Bridge intake", .needsBroker, .timeLimit(.minutes(3)))
struct IntakeTests {
    @Test("dry runs are translated and checked, get validated, and go no further")
    func dryRuns() async throws {
        try await BridgeFixture.withWorker { fixture, reader in
            let token = uniqueToken()

            try await fixture.send(
                [Requests.v1(token, validateOnly: true), Requests.legacy(token, extra: ["dry_run": .bool(true)])],
                key: token, at: testEpoch)
            try await fixture.presence(token, "connect", at: testEpoch + 1)
            try await fixture.send([Requests.legacy(token, title: "real")], key: token, at: testEpoch + 2)
            // The connect and the real send are on different topics, read in either order: the
            // send may be queued first, then dispatched on the connect.
            try await reader.waitUntil("validated twice and a dispatch") { reader in
                let types = reader.statuses(of: token).map(\.type)
                return types.filter { $0 == "validated" }.count >= 2 && types.contains("dispatched")
            }
            let statuses = reader.statuses(of: token)
            #expect(statuses.filter { $0.type == "validated" }.count == 2)
            #expect(statuses.filter { $0.type == "dispatched" }.count == 1)
            try await reader.waitUntil("the real message") { $0.inbox(of: token).count >= 1 }
            #expect(
                reader.inbox(of: token).map { $0.json["apns"]?["payload"]?["aps"]?["alert"]?["title"] } == [
                    .string("real")
                ])
        }
    }

    /// One row per rejection reason: the request, its reason, and whether it is a dead letter.
    static let rejections:
        [(name: String, request: @Sendable (String) -> String, reason: String, deadLetter: Bool, keyedByToken: Bool)] =
            [
                ("not JSON", { _ in "{not json" }, "invalid_argument", true, false),
                ("no target", { _ in #"{"notification": {"title": "x"}}"# }, "invalid_argument", true, false),
                (
                    "device group", { _ in #"{"notification_key": "group"}"# }, "unsupported_target", false, false
                ),
                (
                    "condition every device satisfies", { _ in #"{"message": {"condition": "!('a' in topics)"}}"# },
                    "invalid_argument", false, false
                ),
                ("reserved data key", { #"{"to": "\#($0)", "data": {"from": "x"}}"# }, "invalid_data_key", false, true),
                (
                    "TTL out of range", { #"{"to": "\#($0)", "time_to_live": 2419201}"# }, "invalid_argument", false,
                    true
                ),
                (
                    "v1 data value not a string", { #"{"message": {"token": "\#($0)", "data": {"n": 1}}}"# },
                    "invalid_argument", false, true
                ),
                (
                    "payload over 4096 bytes",
                    {
                        Requests.legacy(
                            $0, extra: ["data": .object(["big": .string(String(repeating: "x", count: 5000))])])
                    },
                    "payload_too_large", false, true
                ),
            ]

    @Test("every rejection reason gives a rejected status; undecodable input is a dead letter too, unchanged")
    func rejectionsAndDeadLetters() async throws {
        try await BridgeFixture.withWorker { fixture, reader in
            var cases: [(row: Int, token: String, key: String, report: DeliveryReport, at: Int64)] = []
            for (row, rejection) in Self.rejections.enumerated() {
                let token = uniqueToken()
                let key = "key-\(token)"
                let at = testEpoch + Int64(row)
                let report = try await fixture.send([rejection.request(token)], key: key, at: at)[0]
                cases.append((row, token, key, report, at))
            }
            let expectedDeadLetters = Self.rejections.filter(\.deadLetter).count
            try await reader.waitUntil("every rejection and dead letter") { reader in
                reader.statuses.filter { $0.json.type == "rejected" }.count >= cases.count
                    && reader.deadLetters.count >= expectedDeadLetters
            }
            for (row, token, key, report, at) in cases {
                let rejection = Self.rejections[row]
                // A status about a token is keyed by it; one about no readable token has a null key.
                let status = reader.statuses.first { $0.json.integer("at") == at && $0.json.type == "rejected" }
                #expect(status?.key == (rejection.keyedByToken ? token : nil), "\(rejection.name)")
                #expect(status?.json["reason"] == .string(rejection.reason), "\(rejection.name)")
                #expect(status?.json["detail"]?.stringValue?.isEmpty == false, "\(rejection.name)")
                let letter = reader.deadLetters.first { $0.key == key }
                #expect((letter != nil) == rejection.deadLetter, "\(rejection.name)")
                if let letter {
                    #expect(letter.text == rejection.request(token))
                    #expect(letter.headers.string(for: "source-topic") == fixture.configuration.topics.send)
                    #expect(letter.headers.string(for: "source-partition") == String(report.partition))
                    #expect(letter.headers.string(for: "source-offset") == String(report.offset))
                    #expect(letter.headers.string(for: "error")?.contains("invalid_argument") == true)
                }
            }
            #expect(reader.inbox.isEmpty)
        }
    }

    @Test("a bad presence event is rejected (and a dead letter when undecodable) without stalling its partition")
    func badPresence() async throws {
        try await BridgeFixture.withWorker(partitions: 1) { fixture, reader in
            let token = uniqueToken()
            try await fixture.produce([
                ProducerRecord(
                    topic: fixture.configuration.topics.presence, key: ByteBuffer(string: token),
                    value: ByteBuffer(string: "garbage"),
                    timestamp: testEpoch),
                ProducerRecord(
                    topic: fixture.configuration.topics.presence, key: ByteBuffer(string: token),
                    value: ByteBuffer(string: #"{"token": "\#(token)", "event": "dance"}"#), timestamp: testEpoch + 1),
            ])
            try await fixture.send([Requests.legacy(token)], key: token, at: testEpoch + 2)
            try await reader.waitUntil("rejection, dead letter and queued") {
                $0.statuses(of: token).count >= 2 && $0.deadLetters.count >= 1
            }
            #expect(reader.statuses(of: token).compactMap(\.type).sorted() == ["queued", "rejected"])
            #expect(reader.deadLetters.map(\.text) == ["garbage"])
        }
    }

    @Test("multicast: each token gets its own message id and its own inbox partition")
    func multicast() async throws {
        try await BridgeFixture.withWorker(partitions: 3) { fixture, reader in
            let tokens = (0..<3).map { uniqueToken("multi\($0)") }
            let request = JSONValue.object([
                "registration_ids": .array(tokens.map(JSONValue.string)),
                "notification": .object(["title": .string("all")]),
            ]).jsonString
            let report = try await fixture.send([request], key: nil, at: testEpoch)[0]
            for token in tokens { try await fixture.presence(token, "connect", at: testEpoch + 1) }
            try await reader.waitUntil("every token's message") { reader in
                tokens.allSatisfy { !reader.inbox(of: $0).isEmpty }
            }
            for (index, token) in tokens.enumerated() {
                let inbox = reader.inbox(of: token)
                #expect(inbox.count == 1)
                #expect(inbox.first?.json.messageID == "\(report.partition):\(report.offset):\(index)")
                #expect(
                    inbox.first?.topicPartition.partition == Murmur2Partitioner.partition(of: token.utf8, partitions: 3)
                )
            }
        }
    }

    @Test("an fid is the device's identifier everywhere, as a token is: keys, token fields, inbox partition")
    func fidTarget() async throws {
        try await BridgeFixture.withWorker(partitions: 2) { fixture, reader in
            let fid = uniqueToken("fid")
            let request = JSONValue.object([
                "message": .object(["fid": .string(fid), "notification": .object(["title": .string("by fid")])])
            ])
            let report = try await fixture.send([request.jsonString], key: nil, at: testEpoch)[0]
            try await reader.waitUntil("queued") { $0.statuses(of: fid).count >= 1 }
            try await fixture.presence(fid, "connect", at: testEpoch + 1)
            try await reader.waitUntil("dispatched") { $0.inbox(of: fid).count >= 1 && $0.statuses(of: fid).count >= 2 }
            let id = "\(report.partition):\(report.offset):0"
            #expect(reader.statuses(of: fid).map(\.type) == ["queued", "dispatched"])
            #expect(reader.statuses(of: fid).allSatisfy { $0["token"] == .string(fid) && $0.messageID == id })
            let inbox = try #require(reader.inbox(of: fid).first)
            #expect(inbox.json["token"] == .string(fid))
            #expect(inbox.json.messageID == id)
            #expect(inbox.topicPartition.partition == Murmur2Partitioner.partition(of: fid.utf8, partitions: 2))
        }
    }

    @Test("records on a partition that does not own their device still reach it, in order")
    func misroutedRecords() async throws {
        try await BridgeFixture.withWorker(partitions: 2) { fixture, reader in
            let token = uniqueToken()
            let wrong = 1 - Murmur2Partitioner.partition(of: token.utf8, partitions: 2)

            try await fixture.send(
                [Requests.legacy(token, title: "other key")], key: "someone-else", at: testEpoch, partition: wrong)
            try await fixture.send(
                [Requests.legacy(token, title: "null key")], key: nil, at: testEpoch + 1, partition: wrong)
            try await reader.waitUntil("both queued") { $0.statuses(of: token).count >= 2 }
            try await fixture.produce([
                ProducerRecord(
                    topic: fixture.configuration.topics.presence, partition: .explicit(wrong), key: nil,
                    value: ByteBuffer(string: #"{"token": "\#(token)", "event": "connect"}"#), timestamp: testEpoch + 2
                )
            ])
            // Inbox and status records are in one transaction, but a reader may see one topic first.
            try await reader.waitUntil("both dispatched") {
                $0.inbox(of: token).count >= 2 && $0.statuses(of: token).count >= 4
            }
            #expect(
                reader.inbox(of: token).map { $0.json["apns"]?["payload"]?["aps"]?["alert"]?["title"] } == [
                    .string("other key"), .string("null key"),
                ])
            #expect(reader.statuses(of: token).map(\.type) == ["queued", "queued", "dispatched", "dispatched"])
        }
    }
}
