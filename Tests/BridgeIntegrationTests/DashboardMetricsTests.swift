import FCMBridgeClient
import Foundation
import Kafka
import TestSupport
import Testing

@testable import BridgeEndpoints

/// The docs, deploy/grafana and deploy/prometheus name only metrics that a running worker and
/// watcher export: each name they use is read from the two processes' /metrics.
@Suite("Dashboards, alert rules and docs", .needsBroker, .timeLimit(.minutes(3)))
struct DashboardMetricsTests {
    static let files = [
        "deploy/grafana/fcm-bridge.json", "deploy/prometheus/fcm-bridge.rules.yaml", "README.md", "deploy/README.md",
    ]

    /// The metric names in `text`: every `fcm_bridge_...` and `process_...` word, histograms'
    /// series by their own names.
    static func metricNames(in text: String) -> Set<String> {
        Set(text.matches(of: /\b(fcm_bridge|process)_[a-z0-9_]+/).map { String($0.output.0) })
            .subtracting(Self.conditional)
    }

    /// Exported only where the process has a cgroup memory limit, which this machine may lack.
    static let conditional: Set<String> =
        ProcessSample.currentMemoryLimit() == nil ? ["fcm_bridge_memory_limit_bytes"] : []

    /// Whether `text` names the gateway's metrics, which Tests/OutsideTests/test_gateway.py checks
    /// against a running gateway (it needs a CA, keys and an access token, which that test has).
    static func isGateways(_ text: String) -> Bool {
        text.contains("fcm_bridge_gateway_")
    }

    /// The metrics in a `/metrics` answer, each with the label names its samples carry.
    static func exported(_ metrics: String) -> [String: Set<String>] {
        var labels: [String: Set<String>] = [:]
        for line in metrics.split(separator: "\n") where !line.hasPrefix("#") {
            guard let name = line.split(whereSeparator: { $0 == "{" || $0 == " " }).first.map(String.init) else {
                continue
            }
            labels[name, default: []].formUnion(line.matches(of: /([a-z_]+)="/).map { String($0.1) })
        }
        return labels
    }

    /// The PromQL expressions of a dashboard (its targets) or a rules file (its `expr:` lines).
    static func expressions(in file: String) throws -> [String] {
        let text = try String(contentsOf: WorkerProcess.repositoryRoot.appendingPathComponent(file), encoding: .utf8)
        if file.hasSuffix(".json") {
            let dashboard = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
            let panels = dashboard?["panels"] as? [[String: Any]] ?? []
            return panels.flatMap { ($0["targets"] as? [[String: Any]] ?? []).compactMap { $0["expr"] as? String } }
        }
        return text.split(separator: "\n").compactMap { line in
            line.firstMatch(of: /^\s*expr:\s*(.*)$/).map { String($0.1) }
        }
    }

    /// What an expression asks of the labels: each selector's labels of its metric, and the
    /// labels it aggregates `by`, of any metric it names.
    static func labelUses(in expression: String) -> (selected: [(metric: String, label: String)], aggregated: [String])
    {
        let selected = expression.matches(of: /(fcm_bridge_[a-z0-9_]+)\{([^}]*)\}/).flatMap { match in
            String(match.2).matches(of: /([a-z_]+)\s*(=~|!=|!~|=)/).map { (String(match.1), String($0.1)) }
        }
        let aggregated = expression.matches(of: /by \(([^)]*)\)/).flatMap { match in
            match.1.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        }
        return (selected, aggregated)
    }

    @Test(
        "every metric a dashboard panel, an alert rule or the docs name is exported by the worker or the watcher, but the gateway's"
    )
    func namedMetricsAreExported() async throws {
        let named = try Dictionary(
            uniqueKeysWithValues: Self.files.map { file in
                (
                    file,
                    Self.metricNames(
                        in: try String(
                            contentsOf: WorkerProcess.repositoryRoot.appendingPathComponent(file), encoding: .utf8)
                    ).filter { !Self.isGateways($0) }
                )
            })
        // Each file's parse finds what it names: a broken parse fails here, not silently.
        let least = [
            "deploy/grafana/fcm-bridge.json": 20, "deploy/prometheus/fcm-bridge.rules.yaml": 10, "README.md": 30,
            "deploy/README.md": 4,
        ]
        for (file, names) in named { #expect(names.count >= least[file] ?? 1, "\(file): \(names.sorted())") }

        let fixture = try await BridgeFixture.make(partitions: 1)
        let worker = try WorkerProcess(
            fixture.configuration, extraEnvironment: ["FCM_BRIDGE_KAFKA_STATISTICS_INTERVAL_MS": "500"])
        defer { worker.kill() }
        let workerAddress = try #require(try await worker.httpAddress(), "no endpoints: \(worker.output)")
        #expect(
            try await worker.waitForOutput(containing: "restored device state", timeout: .seconds(60)),
            "\(worker.output)")
        let token = uniqueToken("metrics")
        try await fixture.presence(token, "connect", at: testEpoch)
        _ = try await fixture.send([Requests.legacy(token)], key: token, at: testEpoch + 1)

        let webhook = TestWebhook()
        try await webhook.serving { url in
            let watcher = try WatchTests.watcher(fixture, url: url, group: TestBroker.uniqueName("watch"))
            defer { watcher.kill() }
            let watcherAddress = try #require(try await watcher.httpAddress(), "no endpoints: \(watcher.output)")
            // A deleted_messages to deliver, so that the watcher's per-partition gauge exists.
            _ = try await WatchTests.produce([WatchTests.deletion(0)], to: fixture)
            var exported: [String: Set<String>] = [:]
            _ = await eventually(timeout: .seconds(60), every: .milliseconds(500)) {
                let worker = Self.exported((try? await httpGet(workerAddress, "/metrics").body) ?? "")
                exported = worker.merging(Self.exported((try? await httpGet(watcherAddress, "/metrics").body) ?? "")) {
                    $0.union($1)
                }
                return named.values.allSatisfy { $0.isSubset(of: exported.keys) }
            }
            for (file, names) in named {
                let missing = names.subtracting(exported.keys)
                #expect(missing.isEmpty, "\(file) names metrics nobody exports: \(missing.sorted())")
                for expression in try Self.expressions(in: file) where !Self.isGateways(expression) {
                    let uses = Self.labelUses(in: expression)
                    for (metric, label) in uses.selected where exported[metric].map({ !$0.contains(label) }) ?? false {
                        Issue.record("\(file): \(metric) has no label \(label): \(expression)")
                    }
                    let labels = Self.metricNames(in: expression).reduce(into: Set<String>(["le"])) {
                        $0.formUnion(exported[$1] ?? [])
                    }
                    for label in uses.aggregated where !labels.contains(label) {
                        Issue.record("\(file): no metric of the expression has a label \(label): \(expression)")
                    }
                }
            }
            // The worker has read the send topic to its end: no lag, although its offsets are committed in transactions.
            let lag = #"fcm_bridge_consumer_lag{topic="\#(fixture.configuration.topics.send)",partition="0"}"#
            #expect(
                await eventually {
                    let metrics = (try? await httpGet(workerAddress, "/metrics").body) ?? ""
                    return sample(lag, in: metrics) == 0
                }, "no lag on the send topic")
        }
    }

    @Test("the dashboard has a panel for what the on-call engineer needs at a glance")
    func dashboardCoversTheEssentials() throws {
        let data = try Data(
            contentsOf: WorkerProcess.repositoryRoot.appendingPathComponent("deploy/grafana/fcm-bridge.json"))
        let dashboard = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let panels = try #require(dashboard["panels"] as? [[String: Any]])
        let expressions = panels.flatMap {
            ($0["targets"] as? [[String: Any]] ?? []).compactMap { $0["expr"] as? String }
        }.joined(separator: "\n")
        for metric in [
            "fcm_bridge_consumer_lag", "fcm_bridge_records_consumed_total", "fcm_bridge_records_produced_total",
            "fcm_bridge_failed_batches_total",
            "fcm_bridge_restore_duration_seconds", "fcm_bridge_waiting_messages", "fcm_bridge_devices",
            "fcm_bridge_dead_letters_total",
            "fcm_bridge_rejections_total", "fcm_bridge_watch_oldest_event_age_seconds",
            "fcm_bridge_watch_events_parked_total",
        ] {
            #expect(expressions.contains(metric), "no panel shows \(metric)")
        }
        #expect(Set(panels.compactMap { $0["id"] as? Int }).count == panels.count, "panel ids are unique")
    }
}
