import BridgeConfig
import Foundation
import Kafka
import TestSupport
import Testing

/// A worker that cannot reach its cluster: it is stuck in a blocking metadata request, as a
/// worker can be stuck in any call into librdkafka, and cannot honour a graceful shutdown soon.
private func stuckWorker(shutdownTimeout: Int = 30_000) async throws -> WorkerProcess {
    // Port 9 (discard) on loopback: nothing listens, librdkafka retries until its timeout.
    var configuration = BridgeConfiguration(kafka: .init(bootstrapServers: "127.0.0.1:9"))
    configuration.bundleID = "com.example.test"
    configuration.shutdownTimeoutMilliseconds = shutdownTimeout
    let worker = try WorkerProcess(configuration)
    try #require(
        try await worker.waitForOutput(containing: "starting fcm-bridge worker"),
        "the worker did not start: \(worker.output)")
    return worker
}

/// Signals `signals` to a stuck worker and returns it, with its exit status within 5 s. A
/// worker stuck no more when they arrived (its first attempt had failed, and it was waiting to
/// try again, which a graceful shutdown ends at once: a machine slow enough to take 10 s
/// between the worker's start and the signals) is replaced by a new one, up to three times.
private func signalStuckWorker(_ signals: [Int32], shutdownTimeout: Int = 30_000) async throws -> (
    WorkerProcess, Int32?
) {
    var attempt = 1
    while true {
        let worker = try await stuckWorker(shutdownTimeout: shutdownTimeout)
        for signal in signals { worker.send(signal) }
        let status = try await worker.exitStatus(within: .seconds(5))
        guard worker.output.contains("cannot reach the Kafka cluster"), attempt < 3 else { return (worker, status) }
        attempt += 1  // the worker is killed, if still running, as it goes
    }
}

/// How `fcm-bridge run` ends: on signals, on a stuck shutdown, on a configuration error.
@Suite("Worker shutdown", .timeLimit(.minutes(2)))
struct ShutdownTests {
    @Test("a second signal exits at once, with 128 + its number")
    func secondSignal() async throws {
        // Two different signals, back to back: the same one twice may merge into one while
        // pending. Whichever is taken first starts the shutdown; the other ends the process.
        let (worker, status) = try await signalStuckWorker([SIGINT, SIGTERM])
        #expect(
            [128 + SIGINT, 128 + SIGTERM].contains(status),
            "exit status \(String(describing: status)); output: \(worker.output)")
        #expect(worker.output.contains("shutting down"), "\(worker.output)")
        #expect(worker.output.contains("second signal: exiting at once"), "\(worker.output)")
    }

    @Test("a shutdown that does not finish within shutdown_timeout_ms exits with status 1 and says why")
    func deadline() async throws {
        let (worker, status) = try await signalStuckWorker([SIGINT], shutdownTimeout: 300)
        #expect(status == 1, "exit status \(String(describing: status)); output: \(worker.output)")
        #expect(worker.output.contains("did not finish within its deadline (shutdown_timeout_ms)"), "\(worker.output)")
    }
}

/// What a worker that cannot reach its cluster still tells Prometheus: the series the fleet-down
/// alert looks for, so that a fleet stuck at start-up is not mistaken for one nobody scrapes.
@Suite("A worker stuck at start-up", .timeLimit(.minutes(1)))
struct StuckWorkerMetricsTests {
    @Test("it exports fcm_bridge_records_consumed_total, its build and its process metrics before any broker answers")
    func exportsFromTheStart() async throws {
        let worker = try await stuckWorker()
        defer { worker.kill() }
        let address = try #require(try await worker.httpAddress(), "no endpoints: \(worker.output)")
        let metrics = try await httpGet(address, "/metrics").body
        for series in [
            "fcm_bridge_records_consumed_total{", "fcm_bridge_build_info{version=", "process_resident_memory_bytes ",
            "process_start_time_seconds ",
        ] {
            #expect(metrics.contains(series), "\(series) in \(metrics)")
        }
        #expect(!worker.output.contains("topics ready"), "the worker reached a broker: \(worker.output)")
    }
}

@Suite("Worker configuration errors", .needsBroker, .timeLimit(.minutes(2)))
struct LayoutErrorTests {
    @Test("internal topics split differently from the state exit 2, naming topics.state_partitions")
    func statePartitionMismatch() async throws {
        let fixture = try await BridgeFixture.make(partitions: 2)
        let admin = try KafkaAdmin(configuration: fixture.kafka, logger: BridgeFixture.logger)
        try await admin.createTopics(
            [NewTopic(name: fixture.configuration.changelogTopic, partitions: 3)], ignoreExisting: false)
        await admin.close()
        let worker = try WorkerProcess(fixture.configuration)
        let status = try await worker.exitStatus(within: .seconds(60))
        #expect(status == 2, "exit status \(String(describing: status)); output: \(worker.output)")
        #expect(worker.output.contains("topics.state_partitions"), "\(worker.output)")
    }

    @Test(
        "an internal topic whose settings would lose state or event time exits 2, naming the topic and setting",
        arguments: [
            ("changelog", "cleanup.policy", "delete"),
            ("repartition", "message.timestamp.type", "LogAppendTime"),
        ])
    func internalTopicSetting(topic: String, setting: String, value: String) async throws {
        let fixture = try await BridgeFixture.make(partitions: 2)
        let name = topic == "changelog" ? fixture.configuration.changelogTopic : fixture.configuration.repartitionTopic
        let admin = try KafkaAdmin(configuration: fixture.kafka, logger: BridgeFixture.logger)
        try await admin.createTopics(
            [NewTopic(name: name, partitions: 2, configs: [setting: value])], ignoreExisting: false)
        await admin.close()
        let worker = try WorkerProcess(fixture.configuration)
        let status = try await worker.exitStatus(within: .seconds(60))
        #expect(status == 2, "exit status \(String(describing: status)); output: \(worker.output)")
        #expect(worker.output.contains("internal topic \(name) has \(setting)=\(value)"), "\(worker.output)")
    }

    @Test("a producer message.max.bytes too small for the bridge's outputs exits 2, naming the field")
    func producerLimitTooSmall() async throws {
        let fixture = try await BridgeFixture.make(partitions: 1) {
            $0.kafka.producerProperties["message.max.bytes"] = "30000"
        }
        let worker = try WorkerProcess(fixture.configuration)
        let status = try await worker.exitStatus(within: .seconds(60))
        #expect(status == 2, "exit status \(String(describing: status)); output: \(worker.output)")
        #expect(worker.output.contains("kafka.producer_properties.message.max.bytes"), "\(worker.output)")
    }
}
