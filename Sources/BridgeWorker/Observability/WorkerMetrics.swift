import BridgeCore
import CoreMetrics
import FCMTranslation
import Foundation
import Kafka

/// The worker's metrics, through swift-metrics with the factory given (Prometheus in
/// `fcm-bridge run`). Every handle is made up front, for labels the configuration fixes
/// (topics, status types, rejection reasons), so that recording takes no lookup; the loop records
/// per batch and per output run, not per record.
public struct WorkerMetrics: Sendable {
    let factory: any MetricsFactory
    private let consumed: [String: Counter]
    private let produced: [Counter]
    private let statuses: [Counter]
    private let rejections: [Counter]
    private let deadLetters: Counter
    /// From a batch's first record to its commit.
    let batchDuration: CoreMetrics.Timer
    /// The commit itself: the transaction commit, or the wait for acknowledgements and the offset commit.
    let commitDuration: CoreMetrics.Timer
    /// From an input record's CreateTime to the commit of the batch holding its outputs.
    let latency: CoreMetrics.Timer
    /// Batches that could not be committed.
    let failedBatches: Counter
    /// Devices whose state this worker holds.
    let devices: Gauge
    /// Devices held in memory: all of them, but in partitions served from their device rows.
    let devicesInMemory: Gauge
    /// Devices asked of the device rows, found or not: those records named, and those the idle
    /// sweep is to forget, that were not held.
    let deviceReads: Counter
    /// Messages waiting in the queues this worker holds.
    let waitingMessages: Gauge
    /// Topic memberships (topic, device) of the topics whose state partitions this worker holds.
    let topicMemberships: Gauge
    /// Topic memberships held in memory: all of them, but in partitions served from their device
    /// rows once the rows hold them.
    let topicMembershipsInMemory: Gauge
    /// Fan-outs this worker coordinates (their first topic is its) that have not reached every
    /// member yet.
    let fanOutsInProgress: Gauge
    /// Walks over topics' members this worker has under way.
    let fanOutWalks: Gauge
    /// Devices that took a copy of a topic or condition send.
    private let fanOutCopies: Counter
    /// State partitions this worker holds.
    let statePartitions: Gauge
    /// State partitions revoked from this worker whose state it keeps in memory until the next
    /// assignment says whether they come back.
    let suspendedPartitions: Gauge
    /// State partitions assigned to this worker and still restoring: serving nobody yet.
    let restoringPartitions: Gauge
    /// How long restoring newly assigned partitions took.
    let restoreDuration: CoreMetrics.Timer
    /// Changelog records replayed by restores.
    let restoredChanges: Counter
    /// librdkafka's own statistics.
    public let librdkafka: LibrdkafkaMetrics

    /// Metrics for a worker reading `inputTopics` and writing `outputTopics` (by ``OutputTopic``).
    public init(inputTopics: [String], outputTopics: [String], factory: any MetricsFactory) {
        self.factory = factory
        consumed = Dictionary(
            uniqueKeysWithValues: inputTopics.map {
                ($0, Counter(label: "fcm_bridge_records_consumed_total", dimensions: [("topic", $0)], factory: factory))
            })
        produced = outputTopics.map {
            Counter(label: "fcm_bridge_records_produced_total", dimensions: [("topic", $0)], factory: factory)
        }
        statuses = StatusType.allCases.map {
            Counter(label: "fcm_bridge_status_events_total", dimensions: [("type", $0.name)], factory: factory)
        }
        rejections = Rejection.Reason.allCases.map {
            Counter(label: "fcm_bridge_rejections_total", dimensions: [("reason", $0.rawValue)], factory: factory)
        }
        deadLetters = Counter(label: "fcm_bridge_dead_letters_total", factory: factory)
        batchDuration = CoreMetrics.Timer(label: "fcm_bridge_batch_duration_seconds", factory: factory)
        commitDuration = CoreMetrics.Timer(label: "fcm_bridge_commit_duration_seconds", factory: factory)
        latency = CoreMetrics.Timer(label: "fcm_bridge_processing_latency_seconds", factory: factory)
        failedBatches = Counter(label: "fcm_bridge_failed_batches_total", factory: factory)
        devices = Gauge(label: "fcm_bridge_devices", factory: factory)
        devicesInMemory = Gauge(label: "fcm_bridge_devices_in_memory", factory: factory)
        deviceReads = Counter(label: "fcm_bridge_device_reads_total", factory: factory)
        waitingMessages = Gauge(label: "fcm_bridge_waiting_messages", factory: factory)
        topicMemberships = Gauge(label: "fcm_bridge_topic_memberships", factory: factory)
        topicMembershipsInMemory = Gauge(label: "fcm_bridge_topic_memberships_in_memory", factory: factory)
        fanOutsInProgress = Gauge(label: "fcm_bridge_fanouts_in_progress", factory: factory)
        fanOutWalks = Gauge(label: "fcm_bridge_fanout_walks", factory: factory)
        fanOutCopies = Counter(label: "fcm_bridge_fanout_copies_total", factory: factory)
        statePartitions = Gauge(label: "fcm_bridge_state_partitions", factory: factory)
        suspendedPartitions = Gauge(label: "fcm_bridge_suspended_partitions", factory: factory)
        restoringPartitions = Gauge(label: "fcm_bridge_restoring_partitions", factory: factory)
        restoreDuration = CoreMetrics.Timer(label: "fcm_bridge_restore_duration_seconds", factory: factory)
        restoredChanges = Counter(label: "fcm_bridge_restored_changes_total", factory: factory)
        librdkafka = LibrdkafkaMetrics(factory: factory)
    }

    /// Metrics that go nowhere: for workers run without endpoints, and tests.
    public static var none: WorkerMetrics {
        WorkerMetrics(inputTopics: [], outputTopics: [], factory: NOOPMetricsHandler.instance)
    }

    /// Counts a committed batch: its inputs by topic, its outputs, and each input's latency
    /// from its CreateTime to `now` (milliseconds since the epoch).
    func committed(_ batch: borrowing OpenBatch, now: Int64) {
        for (partition, taken) in batch.offsets { consumed[partition.topic]?.increment(by: taken.records) }
        let tally = batch.tally
        for (index, count) in tally.records.enumerated() where count > 0 && index < produced.count {
            produced[index].increment(by: count)
        }
        for (index, count) in tally.statuses.enumerated() where count > 0 { statuses[index].increment(by: count) }
        for (index, count) in tally.rejections.enumerated() where count > 0 { rejections[index].increment(by: count) }
        if tally.fanOutCopies > 0 { fanOutCopies.increment(by: tally.fanOutCopies) }
        let deadLettered = tally.records[OutputTopic.deadLetters.rawValue]
        if deadLettered > 0 { deadLetters.increment(by: deadLettered) }
        for createTime in batch.createTimes {
            // Input timestamps are the producers' word: any Int64 at all.
            let (milliseconds, overflow) = now.subtractingReportingOverflow(createTime)
            latency.recordMilliseconds(
                overflow ? Int64.max / 1_000_000 : max(0, min(milliseconds, Int64.max / 1_000_000)))
        }
    }

    /// Now, in milliseconds since the epoch, as record timestamps are.
    static var wallClockMilliseconds: Int64 { Int64(Date().timeIntervalSince1970 * 1000) }
}

extension CoreMetrics.Timer {
    /// Records the time from `start` to `now`.
    func recordInterval(since start: ContinuousClock.Instant, now: ContinuousClock.Instant) {
        let (seconds, attoseconds) = (now - start).components
        recordNanoseconds(seconds &* 1_000_000_000 &+ attoseconds / 1_000_000_000)
    }
}
