import FCMBridgeClient
import Foundation
import Hummingbird
import Kafka
import KafkaTestSupport
import Synchronization
import Testing

/// A webhook that fails its first `failures` requests with 503, then takes every request,
/// remembering each body it took.
private final class RecordingWebhook: Sendable {
    let failures: Int
    private let state = Mutex<(requests: Int, taken: [String])>((0, []))

    init(failures: Int) { self.failures = failures }

    var taken: [String] { state.withLock { $0.taken } }
    var requests: Int { state.withLock { $0.requests } }

    /// Serves on a free loopback port until cancelled, telling `bound` the port.
    func serve(bound: @escaping @Sendable (Int) -> Void) async throws {
        let router = Router()
        router.post("hook") { request, _ -> HTTPResponse.Status in
            let body = String(buffer: try await request.body.collect(upTo: 1 << 20))
            return self.state.withLock { state in
                state.requests += 1
                guard state.requests > self.failures else { return .serviceUnavailable }
                state.taken.append(body)
                return .ok
            }
        }
        let application = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                                      onServerRunning: { bound($0.localAddress?.port ?? 0) })
        try await application.run()
    }
}

/// `fcm-bridge watch`: every `deleted_messages` reaches the webhook once, through its failures.
@Suite("Watching the status topic", .needsBroker, .timeLimit(.minutes(3)))
struct WatchTests {
    @Test("each deleted_messages is POSTed once, also when the webhook fails its first attempts; a restart does not repeat them")
    func deliversEachOnce() async throws {
        let fixture = try await BridgeFixture.make(partitions: 2)
        let status = fixture.configuration.topics.status
        let deletions = (0..<3).map { index in
            #"{"at":\#(testEpoch),"count":1,"message_ids":["0:\#(index):0"],"reason":"overflow","token":"device-\#(index)","type":"deleted_messages"}"#
        }
        let others = [#"{"at":\#(testEpoch),"message_id":"0:9:0","token":"device-0","type":"dispatched"}"#,
                      #"{"at":\#(testEpoch),"detail":"x","reason":"invalid_argument","type":"rejected"}"#]
        _ = try await fixture.produce((others + deletions).enumerated().map { index, value in
            ProducerRecord(topic: status, key: Array("device-\(index % 3)".utf8), value: Array(value.utf8), timestamp: testEpoch)
        })

        let webhook = RecordingWebhook(failures: 2)
        let port = Mutex<Int?>(nil)
        let server = Task { try await webhook.serve { bound in port.withLock { $0 = bound } } }
        defer { server.cancel() }
        while port.withLock({ $0 }) == nil { try await Task.sleep(for: .milliseconds(20)) }
        let url = "http://127.0.0.1:\(port.withLock { $0 } ?? 0)/hook"
        let environment = ["FCM_BRIDGE_KAFKA_BOOTSTRAP_SERVERS": fixture.configuration.kafka.bootstrapServers, "FCM_BRIDGE_TOPICS_STATUS": status,
                           "FCM_BRIDGE_KAFKA_CONSUMER_PROPERTIES_FETCH_WAIT_MAX_MS": "10"]
        let group = "watch-\(UUID().uuidString.prefix(8))"

        let watcher = try WorkerProcess(arguments: ["watch", "--on-deleted-messages", url, "--group", group], environment: environment)
        let deadline = ContinuousClock.now + .seconds(60)
        while webhook.taken.count < deletions.count, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
        }
        try await Task.sleep(for: .seconds(1))  // room for a repeat, if one were coming
        watcher.send(SIGTERM)
        #expect(try await watcher.exitStatus(within: .seconds(30)) == 0, "\(watcher.output)")
        #expect(webhook.taken.sorted() == deletions.sorted(), "taken: \(webhook.taken); log: \(watcher.output)")
        #expect(webhook.requests == deletions.count + webhook.failures, "\(webhook.requests) requests")

        // Committed after each 2xx: a new watcher of the group has nothing left to deliver.
        let again = try WorkerProcess(arguments: ["watch", "--on-deleted-messages", url, "--group", group], environment: environment)
        #expect(try await again.waitForOutput(containing: "watching status events"), "\(again.output)")
        try await Task.sleep(for: .seconds(8))
        again.send(SIGTERM)
        _ = try await again.exitStatus(within: .seconds(30))
        #expect(webhook.taken.count == deletions.count, "repeated after a restart: \(webhook.taken)")
    }
}
