import BridgeConfig
import Prometheus
import Testing

@testable import BridgeEndpoints

/// The names the process metrics are exported under (the rules and the dashboard use them), and
/// what a scrape sets.
@Suite("The process metrics' series")
struct ProcessMetricsTests {
    /// The samples of `registry`'s output, by series.
    static func samples(_ registry: PrometheusCollectorRegistry) -> [String: String] {
        Dictionary(
            registry.emitToString().split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { line in
                line.lastIndex(of: " ").map { (String(line[..<$0]), String(line[line.index(after: $0)...])) }
            }
        ) { $1 }
    }

    @Test("a cgroup limit is exported as fcm_bridge_memory_limit_bytes, with the build; none, no series")
    func memoryLimit() {
        let limited = PrometheusCollectorRegistry()
        _ = ProcessMetrics(registry: limited, memoryLimit: 536_870_912, bootTime: 0)
        #expect(Self.samples(limited)["fcm_bridge_memory_limit_bytes"] == "536870912.0")
        #expect(Self.samples(limited)["fcm_bridge_build_info{version=\"\(BridgeVersion.current)\"}"] == "1.0")
        let unlimited = PrometheusCollectorRegistry()
        _ = ProcessMetrics(registry: unlimited, memoryLimit: nil, bootTime: 0)
        #expect(Self.samples(unlimited)["fcm_bridge_memory_limit_bytes"] == nil)
    }

    @Test("a scrape sets each process_ series to its sample; CPU seconds never go down")
    func update() {
        let registry = PrometheusCollectorRegistry()
        let metrics = ProcessMetrics(registry: registry, memoryLimit: nil, bootTime: 0)
        metrics.update(
            with: ProcessSample(
                residentBytes: 1000, virtualBytes: 5000, cpuSeconds: 1.5, startTimeSeconds: 1_700_000_000,
                openFileDescriptors: 12))
        var samples = Self.samples(registry)
        #expect(samples["process_resident_memory_bytes"] == "1000.0")
        #expect(samples["process_virtual_memory_bytes"] == "5000.0")
        #expect(samples["process_cpu_seconds_total"] == "1.5")
        #expect(samples["process_start_time_seconds"] == "1700000000.0")
        #expect(samples["process_open_fds"] == "12.0")
        #expect(samples["process_max_fds"].flatMap(Double.init).map { $0 > 0 } == true)
        metrics.update(with: ProcessSample(cpuSeconds: 1.0))
        #expect(Self.samples(registry)["process_cpu_seconds_total"] == "1.5")
        metrics.update(with: ProcessSample(residentBytes: 2000, cpuSeconds: 2.25))
        samples = Self.samples(registry)
        #expect(samples["process_cpu_seconds_total"] == "2.25" && samples["process_resident_memory_bytes"] == "2000.0")
    }
}
