import Kafka
import Logging

/// Deletes repartition records the group has committed past (DeleteRecords), so that the
/// repartition topic, which keeps records forever by design, does not grow without end.
///
/// The batch committer hands it each commit's offsets; it trims at most once per interval, off
/// the worker's loop. A broker that refuses DeleteRecords (or drops the request three times in
/// a row) turns trimming off, said once in the log: the topic then grows until an operator
/// trims it.
struct RepartitionTrimmer: Sendable {
    let topic: String
    let interval: Duration
    let logger: Logger
    private let commits: AsyncStream<[TopicPartitionOffset]>
    private let continuation: AsyncStream<[TopicPartitionOffset]>.Continuation

    init(topic: String, interval: Duration = .seconds(60), logger: Logger) {
        self.topic = topic
        self.interval = interval
        self.logger = logger
        (commits, continuation) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
    }

    /// A batch committed `offsets` (the next offset to read of each input partition).
    func committed(_ offsets: [TopicPartitionOffset]) {
        let repartition = offsets.filter { $0.topicPartition.topic == topic }
        if !repartition.isEmpty { continuation.yield(repartition) }
    }

    /// No more commits: ``run(admin:)`` returns.
    func finish() { continuation.finish() }

    /// Trims with `admin` as commits arrive, until ``finish()``.
    func run(admin: KafkaAdmin) async {
        var committed: [TopicPartition: Int64] = [:]
        var trimmed: [TopicPartition: Int64] = [:]
        var lastTrim = ContinuousClock.now
        var failures = 0
        for await offsets in commits {
            for offset in offsets {
                committed[offset.topicPartition] = max(committed[offset.topicPartition] ?? 0, offset.offset)
            }
            guard failures < Self.failuresBeforeGivingUp, ContinuousClock.now - lastTrim >= interval else { continue }
            lastTrim = .now
            let due = committed.filter { trimmed[$0.key] != $0.value }.map {
                TopicPartitionOffset($0.key, offset: $0.value)
            }
            guard !due.isEmpty else { continue }
            do {
                try await admin.deleteRecords(before: due)
                failures = 0
                for offset in due { trimmed[offset.topicPartition] = offset.offset }
                logger.debug("trimmed the repartition topic", metadata: ["before": "\(due)"])
            } catch {
                failures =
                    (error as? KafkaError)?.isRefusedByCluster == true ? Self.failuresBeforeGivingUp : failures + 1
                guard failures >= Self.failuresBeforeGivingUp else { continue }
                logger.notice(
                    "not trimming the repartition topic: the cluster refused DeleteRecords; it grows until trimmed by hand",
                    metadata: [
                        "topic": "\(topic)", "error": "\(error)",
                    ])
            }
        }
    }

    /// Failures in a row after which trimming stops.
    private static let failuresBeforeGivingUp = 3
}
