/// Configuration of a ``KafkaConsumer``.
///
/// Offsets are only ever committed by the caller (`enable.auto.commit=false`), so a record counts
/// as consumed only once the caller says so.
public struct KafkaConsumerConfiguration: Sendable, Hashable {
    /// Cluster, client id and pass-through properties.
    public var kafka: KafkaConfiguration
    /// The consumer group (`group.id`). Without one the consumer can only be assigned partitions
    /// by hand (``KafkaConsumer/assign(_:)``); it then never joins a group and should not commit.
    public var groupID: String?
    /// Where to start without a committed offset (`auto.offset.reset`).
    public var autoOffsetReset: AutoOffsetReset = .earliest
    /// How long the group waits for a silent member (`session.timeout.ms`).
    public var sessionTimeout: Duration = .seconds(45)
    /// How long between polls before the member leaves the group (`max.poll.interval.ms`).
    public var maxPollInterval: Duration = .seconds(300)
    /// How long a broker may hold a fetch request open (`fetch.wait.max.ms`).
    public var fetchWaitMax: Duration = .milliseconds(500)
    /// How long the fetcher waits before it looks again at a consumer queue that holds more than
    /// `queued.min.messages` records or `queued.max.messages.kbytes` (`fetch.queue.backoff.ms`,
    /// librdkafka 2.2 and later); nil keeps librdkafka's 1 s. The queue is shared by all assigned
    /// partitions, so a reader that empties it faster than that idles until the wait ends.
    public var fetchQueueBackoff: Duration?
    /// Report the end of each partition as a ``ConsumerEvent/endOfPartition(_:offset:)``
    /// (`enable.partition.eof`).
    public var reportsEndOfPartition: Bool = false
    /// Whether records of aborted transactions are skipped (`isolation.level`).
    public var isolationLevel: IsolationLevel = .readCommitted
    /// Reads each assigned partition from a queue of its own and shares every poll among them in
    /// turns (see ``PartitionTurns``), so that no partition's backlog holds the others back; nil
    /// reads them all through librdkafka's one consumer queue, in the order they were fetched.
    /// Only for a group member: partitions assigned by hand are read through the consumer queue.
    /// librdkafka's `queued.max.messages.kbytes` then bounds each partition's prefetch.
    public var partitionTurns: PartitionTurns?
    /// librdkafka's `partition.assignment.strategy`: `range`, `roundrobin` (eager) or
    /// `cooperative-sticky`.
    public var assignmentStrategy: String = "range,roundrobin"

    /// Creates a consumer configuration.
    public init(kafka: KafkaConfiguration, groupID: String?) {
        self.kafka = kafka
        self.groupID = groupID
    }

    var librdkafkaProperties: [String: String] {
        var properties = kafka.commonProperties
        // librdkafka wants a group.id even to assign by hand; a consumer that never subscribes
        // never joins that group.
        properties["group.id"] = groupID ?? "\(kafka.clientID).unsubscribed"
        properties["enable.auto.commit"] = "false"
        properties["enable.auto.offset.store"] = "false"
        properties["auto.offset.reset"] = autoOffsetReset.rawValue
        properties["session.timeout.ms"] = String(sessionTimeout.milliseconds)
        properties["max.poll.interval.ms"] = String(maxPollInterval.milliseconds)
        properties["fetch.wait.max.ms"] = String(fetchWaitMax.milliseconds)
        if let fetchQueueBackoff { properties["fetch.queue.backoff.ms"] = String(fetchQueueBackoff.milliseconds) }
        properties["enable.partition.eof"] = String(reportsEndOfPartition)
        properties["isolation.level"] = isolationLevel.rawValue
        properties["partition.assignment.strategy"] = assignmentStrategy
        return properties.merging(kafka.properties) { $1 }
    }
}
