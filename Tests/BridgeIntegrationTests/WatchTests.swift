import FCMBridgeClient
import Foundation
import Kafka
import NIOCore
import Synchronization
import TestSupport
import Testing

/// `fcm-bridge watch` against a webhook in the test process: signed deliveries that the
/// client's verifier and the Standard Webhooks reference library accept, retries, parking and
/// replay, a watcher killed mid-delivery.
@Suite("Watching the status topic", .needsBroker, .timeLimit(.minutes(3)))
struct WatchTests {
    static let oldSecret = WebhookSecret.generate()
    static let newSecret = WebhookSecret.generate()

    static func deletion(_ index: Int) -> String {
        #"{"at":\#(testEpoch),"count":1,"message_ids":["0:\#(index):0"],"reason":"too_many_pending","token":"device-\#(index)","type":"deleted_messages"}"#
    }

    /// Writes `values` to the status topic's partition 0, keyed by device, in order.
    static func produce(_ values: [String], to fixture: BridgeFixture) async throws -> [DeliveryReport] {
        try await fixture.produce(
            values.enumerated().map { index, value in
                ProducerRecord(
                    topic: fixture.configuration.topics.status, partition: .explicit(0),
                    key: ByteBuffer(string: "device-\(index)"),
                    value: ByteBuffer(string: value), timestamp: testEpoch)
            })
    }

    static func watcher(
        _ fixture: BridgeFixture, url: String, group: String, secrets: String? = "\(oldSecret) \(newSecret)",
        _ extra: [String] = []
    ) throws -> WorkerProcess {
        var environment = [
            "FCM_BRIDGE_KAFKA_BOOTSTRAP_SERVERS": fixture.configuration.kafka.bootstrapServers,
            "FCM_BRIDGE_TOPICS_STATUS": fixture.configuration.topics.status,
            "FCM_BRIDGE_KAFKA_CONSUMER_PROPERTIES_FETCH_WAIT_MAX_MS": "10",
            // A killed watcher's partitions move to its successor after this, not after 45 s.
            "FCM_BRIDGE_KAFKA_CONSUMER_PROPERTIES_SESSION_TIMEOUT_MS": "6000",
        ]
        environment["FCM_BRIDGE_WEBHOOK_SECRETS"] = secrets
        return try WorkerProcess(
            arguments: ["watch", "--on-deleted-messages", url, "--group", group, "--http-listen", "127.0.0.1:0"]
                + extra,
            environment: environment)
    }

    @Test(
        "each event is POSTed once, in order, through 500s; signed with both secrets, so either verifier accepts it; no secret is logged"
    )
    func signedInOrder() async throws {
        let fixture = try await BridgeFixture.make(partitions: 1)
        let deletions = (0..<3).map(Self.deletion)
        let others = [#"{"at":\#(testEpoch),"message_id":"0:9:0","token":"device-0","type":"dispatched"}"#]
        let reports = try await Self.produce(others + deletions, to: fixture)
        let webhook = TestWebhook { _, earlier in .init(status: earlier.count < 2 ? .internalServerError : .ok) }
        let group = TestBroker.uniqueName("watch")
        try await webhook.serving { url in
            let watcher = try Self.watcher(fixture, url: url, group: group, ["--log-level", "trace"])
            #expect(await eventually { webhook.taken.count >= deletions.count }, "every deletion")
            try await Task.sleep(for: .seconds(1))  // room for a repeat, if one were coming
            watcher.send(SIGTERM)
            #expect(try await watcher.exitStatus(within: .seconds(30)) == 0, "\(watcher.output)")
            #expect(
                !watcher.output.contains(Self.oldSecret.dropFirst(6).prefix(12))
                    && !watcher.output.contains(Self.newSecret.dropFirst(6).prefix(12)),
                "a secret is in the log")

            // Committed after each 2xx: a new watcher of the group has nothing left to deliver.
            let again = try Self.watcher(fixture, url: url, group: group)
            #expect(try await again.waitForOutput(containing: "watching status events"), "\(again.output)")
            try await Task.sleep(for: .seconds(6))
            again.send(SIGTERM)
            _ = try await again.exitStatus(within: .seconds(30))
        }
        #expect(webhook.taken == deletions)
        let requests = webhook.requests
        #expect(requests.count == deletions.count + 2)
        #expect(
            requests.map(\.id)
                == [1, 1, 1, 2, 3].map { "\(fixture.configuration.topics.status):0:\(reports[$0].offset)" })
        for request in requests {
            for secret in [Self.oldSecret, Self.newSecret] {
                #expect(throws: Never.self) {
                    try WebhookVerifier(secrets: [WebhookSecret(secret)]).verify(
                        id: request.headers["webhook-id"], timestamp: request.headers["webhook-timestamp"],
                        signature: request.headers["webhook-signature"], body: Array(request.body.utf8))
                }
            }
        }
        let reference = try ReferenceVerifier.verify(requests, secrets: [Self.oldSecret, Self.newSecret])
        #expect(reference.count == requests.count * 2 && reference.allSatisfy(\.accepted), "\(reference)")
        let other = try ReferenceVerifier.verify(requests, secrets: [WebhookSecret.generate()])
        #expect(other.count == requests.count && other.allSatisfy(\.refused), "\(other)")
        // A changed body, timestamp or id fails both, as it fails the client's verifier.
        var tampered = requests[2...].map { $0 }
        tampered[0].body = tampered[0].body.replacingOccurrences(of: "device-", with: "device-9")
        tampered[1].headers["webhook-timestamp"] = String(
            (Int(tampered[1].headers["webhook-timestamp"] ?? "") ?? 0) - 1)
        tampered[2].headers["webhook-id"] = (tampered[2].headers["webhook-id"] ?? "") + "0"
        let verdicts = try ReferenceVerifier.verify(tampered, secrets: [Self.newSecret])
        #expect(verdicts.count == 3 && verdicts.allSatisfy(\.refused), "\(verdicts)")
    }

    @Test(
        "an event the webhook refuses is parked after 5 refusals and the next ones go on; 429 waits its Retry-After; the replay sends the parked one"
    )
    func parkAndReplay() async throws {
        let fixture = try await BridgeFixture.make(partitions: 1)
        let deletions = (0..<3).map(Self.deletion)
        let reports = try await Self.produce(deletions, to: fixture)
        let broken = Atomic(true)
        let webhook = TestWebhook { request, earlier in
            if request.body.contains("device-0") && broken.load(ordering: .relaxed) {
                return .init(status: .badRequest)
            }
            if request.body.contains("device-1") && !earlier.contains(where: { $0.body == request.body }) {
                return .init(status: .tooManyRequests, headers: [.retryAfter: "2"])
            }
            return .init()
        }
        let group = TestBroker.uniqueName("watch")
        let parked = "\(group).parked"
        let firstID = "\(fixture.configuration.topics.status):0:\(reports[0].offset)"
        try await webhook.serving { url in
            let watcher = try Self.watcher(fixture, url: url, group: group)
            #expect(await eventually { webhook.taken.count >= 2 }, "the later events")
            let address = try #require(try await watcher.httpAddress())
            var metrics = ""
            #expect(
                await eventually {
                    metrics = (try? await httpGet(address, "/metrics").body) ?? ""
                    return sample(#"fcm_bridge_watch_events_delivered_total"#, in: metrics) == 2
                }, "two deliveries counted: \(metrics)")
            #expect(sample(#"fcm_bridge_watch_events_parked_total"#, in: metrics) == 1)
            #expect(sample(#"fcm_bridge_watch_attempts_total{answer="4xx"}"#, in: metrics) == 5)
            #expect(sample(#"fcm_bridge_watch_attempts_total{answer="429"}"#, in: metrics) ?? 0 >= 1)
            #expect(try await httpGet(address, "/healthz").status == 200)
            #expect(try await httpGet(address, "/readyz").status == 200)
            watcher.send(SIGTERM)
            #expect(try await watcher.exitStatus(within: .seconds(30)) == 0, "\(watcher.output)")
            #expect(
                watcher.output.components(separatedBy: "parked it and moved on").count == 2,
                "logged once: \(watcher.output)")

            let records = try await KafkaConsumer.readToEnd(
                [TopicPartition(parked, 0)],
                configuration: KafkaConsumerConfiguration(kafka: fixture.kafka, groupID: nil),
                logger: BridgeFixture.logger)
            #expect(records.count == 1)
            let record = try #require(records.first)
            #expect(record.value.map { String(buffer: $0) } == deletions[0])
            #expect(record.key.map { String(buffer: $0) } == "device-0")
            let headers = Dictionary(record.headers.map { ($0.key, $0.stringValue ?? "") }) {
                $1
            }
            #expect(headers["webhook-id"] == firstID && headers["status"] == "400" && headers["attempts"] == "5")
            #expect(headers["answer"]?.hasPrefix("HTTP 400") == true)

            // Replayed while the app server still refuses it: it stays parked, and the replay says so.
            let refused = try Self.watcher(fixture, url: url, group: group, ["--replay-parked", "--park-after", "1"])
            #expect(try await refused.exitStatus(within: .seconds(60)) == 1, "\(refused.output)")
            #expect(refused.output.contains("the webhook still refuses a parked event"), "\(refused.output)")

            broken.store(false, ordering: .relaxed)
            let replay = try Self.watcher(fixture, url: url, group: group, ["--replay-parked"])
            #expect(try await replay.exitStatus(within: .seconds(60)) == 0, "\(replay.output)")
            let again = try Self.watcher(fixture, url: url, group: group, ["--replay-parked"])
            #expect(try await again.exitStatus(within: .seconds(60)) == 0, "\(again.output)")
        }
        let requests = webhook.requests
        #expect(requests.filter { $0.body == deletions[0] }.map(\.status) == [400, 400, 400, 400, 400, 400, 200])
        #expect(requests.filter { $0.body == deletions[0] }.allSatisfy { $0.id == firstID })
        #expect(webhook.taken == [deletions[1], deletions[2], deletions[0]])
        let limited = requests.filter { $0.body == deletions[1] }
        #expect(limited.map(\.status) == [429, 200])
        if limited.count == 2 { #expect(limited[0].at.duration(to: limited[1].at) >= .milliseconds(1900)) }
    }

    @Test("a watcher killed mid-delivery: its successor delivers every event at least once, and parks none")
    func killedMidDelivery() async throws {
        let fixture = try await BridgeFixture.make(partitions: 1)
        let deletions = (0..<3).map(Self.deletion)
        _ = try await Self.produce(deletions, to: fixture)
        let webhook = TestWebhook { _, earlier in .init(delay: earlier.isEmpty ? .seconds(5) : .zero) }
        let group = TestBroker.uniqueName("watch")
        try await webhook.serving { url in
            let first = try Self.watcher(fixture, url: url, group: group)
            #expect(await eventually { !webhook.requests.isEmpty }, "the first request")
            first.kill()
            _ = try await first.exitStatus(within: .seconds(10))
            let second = try Self.watcher(fixture, url: url, group: group)
            #expect(await eventually { Set(webhook.taken).isSuperset(of: deletions) }, "every deletion")
            second.send(SIGTERM)
            #expect(try await second.exitStatus(within: .seconds(30)) == 0, "\(second.output)")
        }
        #expect(Set(webhook.taken) == Set(deletions))
        // The first watcher died waiting for its first answer: its successor sent that event again.
        #expect(webhook.requests.filter { $0.body == deletions[0] }.count >= 2, "\(webhook.requests.map(\.body))")
        let parked = try await KafkaConsumer.readToEnd(
            [TopicPartition("\(group).parked", 0)],
            configuration: KafkaConsumerConfiguration(kafka: fixture.kafka, groupID: nil),
            logger: BridgeFixture.logger)
        #expect(parked.isEmpty)
    }

    @Test("--types chooses the status types POSTed; a type the contract does not name is refused")
    func types() async throws {
        let fixture = try await BridgeFixture.make(partitions: 1)
        let events = [
            #"{"at":\#(testEpoch),"condition":"'a' in topics","count":0,"message_id":"0:1:0","type":"fanned_out"}"#,
            Self.deletion(1),
            #"{"at":\#(testEpoch),"message_id":"0:2:0","token":"device-2","type":"expired"}"#,
            #"{"at":\#(testEpoch),"detail":"x","reason":"invalid_argument","type":"rejected"}"#,
        ]
        _ = try await Self.produce(events, to: fixture)
        let webhook = TestWebhook()
        try await webhook.serving { url in
            // The secrets from a file this time, with a comment and a rotation's two.
            let file = FileManager.default.temporaryDirectory.appendingPathComponent(
                TestBroker.uniqueName("secrets"))
            try "# webhook secrets\n\(Self.oldSecret)\n\(Self.newSecret)\n".write(
                to: file, atomically: true, encoding: .utf8)
            let watcher = try Self.watcher(
                fixture, url: url, group: TestBroker.uniqueName("watch"), secrets: nil,
                ["--types", "fanned_out, expired", "--secrets-file", file.path])
            #expect(await eventually { webhook.taken.count >= 2 }, "both chosen types")
            try await Task.sleep(for: .seconds(1))
            watcher.send(SIGTERM)
            #expect(try await watcher.exitStatus(within: .seconds(30)) == 0, "\(watcher.output)")
            let refused = try Self.watcher(
                fixture, url: url, group: "watch-none", ["--types", "deleted_messages,nonsense"])
            #expect(try await refused.exitStatus(within: .seconds(30)) == 64)
            #expect(refused.output.contains("--types must name status types"), "\(refused.output)")
        }
        #expect(webhook.taken == [events[0], events[2]])
        #expect(webhook.requests.allSatisfy { $0.headers["webhook-signature"]?.split(separator: " ").count == 2 })
    }

    @Test("without a secret the watcher does not start, and says where it looked; with --unsigned it POSTs unsigned")
    func noSecret() async throws {
        let fixture = try await BridgeFixture.make(partitions: 1)
        let watcher = try Self.watcher(fixture, url: "http://127.0.0.1:9/hook", group: "watch-none", secrets: nil)
        #expect(try await watcher.exitStatus(within: .seconds(30)) == 2)
        #expect(
            watcher.output.contains("FCM_BRIDGE_WEBHOOK_SECRETS") && watcher.output.contains("--unsigned"),
            "\(watcher.output)")

        _ = try await Self.produce([Self.deletion(0)], to: fixture)
        let webhook = TestWebhook()
        try await webhook.serving { url in
            let unsigned = try Self.watcher(
                fixture, url: url, group: TestBroker.uniqueName("watch"), secrets: nil, ["--unsigned"])
            #expect(await eventually { !webhook.taken.isEmpty }, "the deletion")
            unsigned.send(SIGTERM)
            #expect(try await unsigned.exitStatus(within: .seconds(30)) == 0, "\(unsigned.output)")
        }
        let request = try #require(webhook.requests.first)
        #expect(request.headers["webhook-signature"] == nil && request.headers["webhook-id"] != nil)
    }
}
