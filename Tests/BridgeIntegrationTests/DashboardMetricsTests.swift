import FCMBridgeClient
import Foundation
import Kafka
import KafkaTestSupport
import Testing

/// deploy/grafana and deploy/prometheus name only metrics that a running worker and watcher
/// export: each name they use is read from the two processes' /metrics.
@Suite("Dashboards and alert rules", .needsBroker, .timeLimit(.minutes(3)))
struct DashboardMetricsTests {
    static let files = ["deploy/grafana/fcm-bridge.json", "deploy/prometheus/fcm-bridge.rules.yaml"]

    /// The metric names in `text`: every `fcm_bridge_...` word, histograms' series by their own names.
    static func metricNames(in text: String) -> Set<String> {
        Set(text.matches(of: /fcm_bridge_[a-z0-9_]+/).map { String($0.output) })
    }

    /// The metric names in a `/metrics` answer.
    static func exported(_ metrics: String) -> Set<String> {
        Set(metrics.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { $0.split(whereSeparator: { $0 == "{" || $0 == " " }).first.map(String.init) })
    }

    @Test("every metric a dashboard panel or an alert rule names is exported by the worker or the watcher")
    func namedMetricsAreExported() async throws {
        let named = try Dictionary(uniqueKeysWithValues: Self.files.map { file in
            (file, Self.metricNames(in: try String(contentsOf: WorkerProcess.repositoryRoot.appendingPathComponent(file), encoding: .utf8)))
        })
        #expect(named.values.allSatisfy { $0.count >= 8 }, "\(named)")

        let fixture = try await BridgeFixture.make(partitions: 1)
        let worker = try WorkerProcess(fixture.configuration, extraEnvironment: ["FCM_BRIDGE_KAFKA_STATISTICS_INTERVAL_MS": "500"])
        defer { worker.kill() }
        let workerAddress = try #require(try await worker.httpAddress(), "no endpoints: \(worker.output)")
        #expect(try await worker.waitForOutput(containing: "restored device state", timeout: .seconds(60)), "\(worker.output)")
        let token = uniqueToken("metrics")
        try await fixture.presence(token, "connect", at: testEpoch)
        _ = try await fixture.send([Requests.legacy(token)], key: token, at: testEpoch + 1)

        let webhook = TestWebhook()
        try await webhook.serving { url in
            let watcher = try WatchTests.watcher(fixture, url: url, group: "watch-\(UUID().uuidString.prefix(8))")
            defer { watcher.kill() }
            let watcherAddress = try #require(try await watcher.httpAddress(), "no endpoints: \(watcher.output)")
            // A deleted_messages to deliver, so that the watcher's per-partition gauge exists.
            _ = try await WatchTests.produce([WatchTests.deletion(0)], to: fixture)
            var exported: Set<String> = []
            let deadline = ContinuousClock.now + .seconds(60)
            while ContinuousClock.now < deadline {
                exported = Self.exported(try await httpGet(workerAddress, "/metrics").body)
                    .union(Self.exported(try await httpGet(watcherAddress, "/metrics").body))
                if named.values.allSatisfy({ $0.isSubset(of: exported) }) { break }
                try await Task.sleep(for: .milliseconds(500))
            }
            for (file, names) in named {
                #expect(names.subtracting(exported).isEmpty, "\(file) names metrics nobody exports: \(names.subtracting(exported).sorted())")
            }
            // The worker has read the send topic to its end: no lag, although its offsets are committed in transactions.
            let lag = #"fcm_bridge_consumer_lag{topic="\#(fixture.configuration.topics.send)",partition="0"}"#
            try await WatchTests.waitUntil("no lag on the send topic") {
                let metrics = (try? await httpGet(workerAddress, "/metrics").body) ?? ""
                return sample(lag, in: metrics) == 0
            }
        }
    }

    @Test("the dashboard has a panel for what the on-call engineer needs at a glance")
    func dashboardCoversTheEssentials() throws {
        let data = try Data(contentsOf: WorkerProcess.repositoryRoot.appendingPathComponent("deploy/grafana/fcm-bridge.json"))
        let dashboard = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let panels = try #require(dashboard["panels"] as? [[String: Any]])
        let expressions = panels.flatMap { ($0["targets"] as? [[String: Any]] ?? []).compactMap { $0["expr"] as? String } }.joined(separator: "\n")
        for metric in [
            "fcm_bridge_consumer_lag", "fcm_bridge_records_consumed_total", "fcm_bridge_records_produced_total", "fcm_bridge_failed_batches_total",
            "fcm_bridge_restore_duration_seconds", "fcm_bridge_waiting_messages", "fcm_bridge_devices", "fcm_bridge_dead_letters_total",
            "fcm_bridge_rejections_total", "fcm_bridge_watch_oldest_event_age_seconds", "fcm_bridge_watch_events_parked_total",
        ] {
            #expect(expressions.contains(metric), "no panel shows \(metric)")
        }
        #expect(Set(panels.compactMap { $0["id"] as? Int }).count == panels.count, "panel ids are unique")
    }
}
