import BridgeConfig
import Foundation
import Prometheus
import Synchronization

/// The process's own metrics, in Prometheus' `process_*` conventions, refreshed at each scrape:
/// `process_resident_memory_bytes`, `process_virtual_memory_bytes`, `process_cpu_seconds_total`,
/// `process_start_time_seconds`, `process_open_fds` and `process_max_fds`; and
/// `fcm_bridge_memory_limit_bytes`, the cgroup's memory limit, exported only where there is one
/// (so that resident / limit is a fraction of what the kernel allows before it kills); and
/// `fcm_bridge_build_info{version}`, always 1, which says what each process runs.
final class ProcessMetrics: Sendable {
    private let resident: Gauge
    private let virtual: Gauge
    private let cpuSeconds: Counter
    /// The CPU seconds counted so far: the counter only goes up, by what each scrape adds.
    private let cpuSecondsCounted = Mutex<Double>(0)
    private let startTime: Gauge
    private let openDescriptors: Gauge
    private let maxDescriptors: Gauge
    private let bootTime: Double?

    /// Registers the metrics in `registry`, with the process's cgroup `memoryLimit` (none: the
    /// limit is not exported) and the machine's `bootTime`, which do not change while it runs.
    init(
        registry: PrometheusCollectorRegistry, memoryLimit: Int64? = ProcessSample.currentMemoryLimit(),
        bootTime: Double? = ProcessSample.currentBootTime()
    ) {
        self.bootTime = bootTime
        resident = registry.makeGauge(name: "process_resident_memory_bytes", help: "Resident memory size in bytes.")
        virtual = registry.makeGauge(name: "process_virtual_memory_bytes", help: "Virtual memory size in bytes.")
        cpuSeconds = registry.makeCounter(
            name: "process_cpu_seconds_total", help: "Total user and system CPU time spent in seconds.")
        startTime = registry.makeGauge(
            name: "process_start_time_seconds", help: "Start time of the process since unix epoch in seconds.")
        openDescriptors = registry.makeGauge(name: "process_open_fds", help: "Number of open file descriptors.")
        maxDescriptors = registry.makeGauge(name: "process_max_fds", help: "Maximum number of open file descriptors.")
        registry.makeGauge(
            name: "fcm_bridge_build_info", labels: [("version", BridgeVersion.current)],
            help: "Always 1: the fcm-bridge release this process runs."
        ).set(Int64(1))
        if let limit = memoryLimit {
            registry.makeGauge(
                name: "fcm_bridge_memory_limit_bytes", help: "The memory limit of the process's cgroup, in bytes."
            ).set(limit)
        }
        var limit = rlimit()
        if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 {
            maxDescriptors.set(Double(limit.rlim_cur))
        }
    }

    /// Reads `/proc` and sets the gauges: called before each scrape's output.
    func update() {
        update(with: ProcessSample.current(bootTime: bootTime))
    }

    /// Sets the gauges to `sample`'s values; the CPU counter goes up by what the sample adds to
    /// the most counted so far, never down.
    func update(with sample: ProcessSample) {
        if let value = sample.residentBytes { resident.set(value) }
        if let value = sample.virtualBytes { virtual.set(value) }
        if let value = sample.cpuSeconds {
            let added = cpuSecondsCounted.withLock { counted in
                defer { counted = max(counted, value) }
                return max(0, value - counted)
            }
            if added > 0 { cpuSeconds.increment(by: added) }
        }
        if let value = sample.startTimeSeconds { startTime.set(value) }
        if let value = sample.openFileDescriptors { openDescriptors.set(value) }
    }
}
