import BridgeConfig
import Foundation
import Kafka
import TestSupport
import Testing

/// `/metrics`, `/healthz` and `/readyz` of a running `fcm-bridge run`, and its rejection log.
@Suite("Operator endpoints", .needsBroker, .timeLimit(.minutes(3)))
struct EndpointsTests {
    @Test("a worker that cannot reach its cluster waits alive but not ready, and stops gracefully: exit 0")
    func notReadyBeforeAssignment() async throws {
        // Port 9 (discard) on loopback: nothing listens, so the worker never joins a group.
        var configuration = BridgeConfiguration(kafka: .init(bootstrapServers: "127.0.0.1:9"))
        configuration.bundleID = "com.example.test"
        let worker = try WorkerProcess(configuration)
        defer { worker.kill() }
        let address = try #require(try await worker.httpAddress(), "no endpoints: \(worker.output)")
        // Past the first failed attempt: the worker waits for its cluster instead of exiting.
        try #require(
            try await worker.waitForOutput(
                containing: "cannot reach the Kafka cluster; trying again", timeout: .seconds(60)),
            "\(worker.output)")
        let ready = try await httpGet(address, "/readyz")
        #expect(ready.status == 503 && ready.body.contains("not ready: starting"), "\(ready)")
        let health = try await httpGet(address, "/healthz")
        #expect(health.status == 200, "\(health)")
        worker.send(SIGTERM)
        #expect(try await worker.exitStatus(within: .seconds(30)) == 0, "\(worker.output)")
        #expect(worker.output.contains("shut down before the Kafka cluster answered"), "\(worker.output)")
    }

    @Test("a second process on the same address does not start: exit 2, naming the field and the address")
    func addressInUse() async throws {
        let webhook = TestWebhook()
        try await webhook.serving { url in
            let address = try #require(url.firstMatch(of: /http:\/\/([^\/]+)\//).map { String($0.1) })
            var configuration = BridgeConfiguration(kafka: .init(bootstrapServers: "127.0.0.1:9"))
            configuration.bundleID = "com.example.test"
            let worker = try WorkerProcess(configuration, extraEnvironment: ["FCM_BRIDGE_HTTP_LISTEN": address])
            #expect(try await worker.exitStatus(within: .seconds(30)) == 2, "\(worker.output)")
            #expect(
                worker.output.contains("`http.listen`: cannot listen on \(address): Address already in use"),
                "\(worker.output)")
        }
    }

    @Test("a Kafka property librdkafka refuses stops the start: exit 2, naming the field and the value")
    func refusedKafkaProperty() async throws {
        var configuration = BridgeConfiguration(kafka: .init(bootstrapServers: "127.0.0.1:9"))
        configuration.bundleID = "com.example.test"
        let worker = try WorkerProcess(
            configuration, extraEnvironment: ["FCM_BRIDGE_KAFKA_CONSUMER_PROPERTIES_FETCH_WAIT_MAX_MS": "soon"])
        #expect(try await worker.exitStatus(within: .seconds(30)) == 2, "\(worker.output)")
        #expect(
            worker.output.contains(
                "`kafka.consumer_properties.fetch.wait.max.ms` (set by FCM_BRIDGE_KAFKA_CONSUMER_PROPERTIES_FETCH_WAIT_MAX_MS): librdkafka refuses \"soon\""
            ),
            "\(worker.output)")
    }

    @Test(
        "ready once restored; metrics count records, statuses, rejections, dead letters, latency and librdkafka's figures"
    )
    func readyAndCounting() async throws {
        let fixture = try await BridgeFixture.make(partitions: 2)
        let worker = try WorkerProcess(
            fixture.configuration, extraEnvironment: ["FCM_BRIDGE_KAFKA_STATISTICS_INTERVAL_MS": "500"])
        let address = try #require(try await worker.httpAddress(), "no endpoints: \(worker.output)")
        #expect(
            try await worker.waitForOutput(containing: "restored device state", timeout: .seconds(60)),
            "\(worker.output)")
        // Ready once the restore's partitions are served again, just after the line.
        var ready = (status: 0, body: "")
        #expect(
            try await eventually(timeout: .seconds(10)) {
                ready = try await httpGet(address, "/readyz")
                return ready.status == 200
            }, "\(ready)")
        #expect(ready.body == "ready\n", "\(ready)")

        let online = uniqueToken("online")
        let offline = uniqueToken("offline")
        try await fixture.presence(online, "connect", at: testEpoch)
        _ = try await fixture.send(
            [Requests.legacy(online), Requests.legacy(offline), "this is not JSON"], key: online, at: testEpoch + 1)
        let reader = try await fixture.outputs()
        try await reader.waitUntil("the rejection and both messages' statuses") { reader in
            reader.statuses(of: online).count >= 1 && reader.statuses(of: offline).count >= 1
                && reader.statuses.count >= 3
        }
        let topics = fixture.configuration.topics
        let expected: [(String, Double)] = [
            ("fcm_bridge_records_consumed_total{topic=\"\(topics.send)\"}", 3),
            ("fcm_bridge_records_consumed_total{topic=\"\(topics.presence)\"}", 1),
            ("fcm_bridge_status_events_total{type=\"dispatched\"}", 1),
            ("fcm_bridge_status_events_total{type=\"queued\"}", 1),
            ("fcm_bridge_status_events_total{type=\"rejected\"}", 1),
            ("fcm_bridge_rejections_total{reason=\"invalid_argument\"}", 1),
            ("fcm_bridge_dead_letters_total", 1),
            ("fcm_bridge_records_produced_total{topic=\"\(topics.inbox)\"}", 1),
        ]
        var metrics = ""
        let deadline = ContinuousClock.now + .seconds(30)
        repeat {
            try await Task.sleep(for: .milliseconds(500))
            metrics = try await httpGet(address, "/metrics").body
        } while ContinuousClock.now < deadline
            && !(expected.allSatisfy { sample($0.0, in: metrics) == $0.1 }
                && metrics.contains("fcm_bridge_kafka_broker_rtt_seconds{"))
        for (name, value) in expected {
            #expect(sample(name, in: metrics) == value, "\(name) in:\n\(metrics)")
        }
        #expect(metrics.contains("fcm_bridge_kafka_broker_rtt_seconds{"), "no librdkafka statistics in:\n\(metrics)")
        #expect(metrics.contains("fcm_bridge_batch_duration_seconds_count"), "\(metrics)")
        // Four inputs, and one more for each forward through the repartition topic.
        #expect((sample("fcm_bridge_processing_latency_seconds_count", in: metrics) ?? 0) >= 4, "\(metrics)")
        #expect(worker.output.contains("rejected input, written to the dead letter topic"), "\(worker.output)")
        #expect(
            worker.output.contains("source=\(topics.send)["), "the rejection log names its source: \(worker.output)")
        worker.terminate()
    }

    @Test("SIGTERM mid-stream exits 0 within the deadline, and a restarted worker finishes the rest: nothing lost")
    func terminateMidStream() async throws {
        let fixture = try await BridgeFixture.make(partitions: 2)
        let token = uniqueToken("term")
        var worker = try WorkerProcess(fixture.configuration)
        #expect(
            try await worker.waitForOutput(containing: "restored device state", timeout: .seconds(60)),
            "\(worker.output)")
        try await fixture.presence(token, "connect", at: testEpoch)
        var sent: [String] = []
        for round in 0..<20 {
            let reports = try await fixture.send(
                (0..<10).map { Requests.legacy(token, title: "\(round)-\($0)") }, key: token, at: testEpoch + 1)
            sent += reports.map { "\($0.partition):\($0.offset):0" }
            if round == 10 {
                worker.send(SIGTERM)
                let status = try await worker.exitStatus(
                    within: .milliseconds(fixture.configuration.shutdownTimeoutMilliseconds))
                #expect(status == 0, "exit status \(String(describing: status)); output: \(worker.output)")
                worker = try WorkerProcess(fixture.configuration)
            }
        }
        let reader = try await fixture.outputs()
        try await reader.waitUntil(timeout: .seconds(90), "every message dispatched") { reader in
            Set(reader.inbox(of: token).compactMap { $0.json.messageID }).isSuperset(of: sent)
        }
        worker.terminate()
    }
}
