import BridgeConfig
import Foundation
import Kafka
import SecretProperties

extension BridgeConfiguration {
    /// Each entry of `kafka.properties`, `kafka.consumer_properties` and
    /// `kafka.producer_properties` that librdkafka refuses (an unknown name or an invalid value),
    /// named as a field (`kafka.properties.<name>`) with its value, unless secret: the problems
    /// the first client would otherwise meet, reported before anything starts.
    public var kafkaPropertyProblems: [ConfigurationError] {
        [
            ("kafka.properties", kafka.properties), ("kafka.consumer_properties", kafka.consumerProperties),
            ("kafka.producer_properties", kafka.producerProperties),
        ].flatMap { section, properties in
            KafkaConfiguration.problems(in: properties).map { problem in
                let value =
                    SecretProperties.isSensitive(problem.property) ? "[redacted]" : properties[problem.property] ?? ""
                return ConfigurationError(
                    field: "\(section).\(problem.property)", "librdkafka refuses \"\(value)\": \(problem.reason)")
            }
        }
    }

    /// What every Kafka client of the bridge shares: the cluster, the client id, `kafka.properties`
    /// and the statistics interval (reported only by clients that listen for statistics).
    public var kafkaClients: KafkaConfiguration {
        KafkaConfiguration(
            bootstrapServers: kafka.bootstrapServers,
            clientID: kafka.clientID,
            properties: ["statistics.interval.ms": "\(kafka.statisticsIntervalMilliseconds)"].merging(kafka.properties)
            { $1 }
        )
    }

    /// What the bridge's consumers share: ``kafkaClients`` with `kafka.consumer_properties` over it.
    public var kafkaConsumers: KafkaConfiguration {
        var consumers = kafkaClients
        consumers.properties.merge(kafka.consumerProperties) { $1 }
        return consumers
    }
}

extension BridgeConfiguration {
    /// The longest the exactly-once producer lingers for a batch: Kafka Streams' producer
    /// default.
    static let longestTransactionalLinger = 100

    /// The worker's consumer: ``kafkaConsumers``, read_committed, with the range assignor, which
    /// gives the same partition numbers of the co-partitioned inputs to one member, and the
    /// worker's static membership when it has one (`kafka.group_instance_id`).
    ///
    /// It reads each partition in turns (``PartitionTurns``), so that a backlog of fan-out work
    /// on the repartition topic never holds back a send: a repartition record may be a walk's step
    /// (a thousand members' copies) or a device partition's copies (hundreds of devices), so its
    /// partitions' turns are short. Each partition prefetches at most
    /// ``prefetchKilobytesPerPartition`` unless `queued.max.messages.kbytes` says otherwise, and
    /// the fetcher looks again soon at a partition whose queue was full.
    var workerConsumer: KafkaConsumerConfiguration {
        var consumers = kafkaConsumers
        if let instance = kafka.groupInstanceID { consumers.properties["group.instance.id"] = instance }
        consumers.properties["queued.max.messages.kbytes"] =
            consumers.properties["queued.max.messages.kbytes"] ?? "\(Self.prefetchKilobytesPerPartition)"
        var consumer = KafkaConsumerConfiguration(kafka: consumers, groupID: kafka.groupID)
        consumer.assignmentStrategy = "range"
        consumer.isolationLevel = .readCommitted
        consumer.autoOffsetReset = .earliest
        consumer.partitionTurns = PartitionTurns(
            recordsPerTurn: Self.recordsPerTurn, recordsPerTurnByTopic: [repartitionTopic: Self.fanOutRecordsPerTurn])
        consumer.fetchQueueBackoff = consumer.fetchQueueBackoff ?? .milliseconds(10)
        return consumer
    }

    /// Records a send, presence or subscriptions partition gives in one turn.
    static let recordsPerTurn = 1_000
    /// Records a repartition partition gives in one turn.
    static let fanOutRecordsPerTurn = 2
    /// What each partition's queue prefetches at most, in KiB.
    static let prefetchKilobytesPerPartition = 4_096

    /// The worker's producer: ``kafkaClients`` with `kafka.producer_properties` over it, its
    /// batches no larger than `topicRecordLimit` (a topic's `max.message.bytes` counts a whole
    /// batch).
    ///
    /// In `exactly_once` mode it is transactional and lingers up to the commit interval (at
    /// most ``longestTransactionalLinger``): nothing it writes is readable before the commit,
    /// whose flush sends what still lingers at once, so longer batches cost no latency and save
    /// a produce request, for the worker and the broker, per partition and linger.
    func workerProducer(topicRecordLimit: Int?) -> KafkaProducerConfiguration {
        var clients = kafkaClients
        if let topicRecordLimit, topicRecordLimit < Self.librdkafkaBatchSize {
            clients.properties["batch.size"] = "\(max(1, topicRecordLimit))"
        }
        clients.properties.merge(kafka.producerProperties) { $1 }
        var producer = KafkaProducerConfiguration(kafka: clients)
        if delivery == .exactlyOnce {
            // Unique per start unless configured or following the instance id: a stable id (one
            // per instance) fences a crashed predecessor's open transaction at once instead of
            // at its timeout.
            producer.transactionalID = kafka.stableTransactionalID ?? "\(kafka.groupID)-\(UUID().uuidString)"
            // Kafka Streams' exactly-once default (10 s, how long a successor under another id
            // waits), beyond the commit interval for which a transaction stays open anyway.
            producer.transactionTimeout = .seconds(10) + .milliseconds(commitIntervalMilliseconds)
            producer.linger = .milliseconds(min(commitIntervalMilliseconds, Self.longestTransactionalLinger))
            // Outputs are produced without a report of their own (the commit is their report):
            // librdkafka then hands successful records back to nobody. With a state directory,
            // the reports give the offsets of the changelog records the store covers.
            producer.kafka.properties["delivery.report.only.error"] =
                producer.kafka.properties["delivery.report.only.error"] ?? (state.directory == nil ? "true" : "false")
        }
        return producer
    }

    /// librdkafka's default `batch.size`.
    private static let librdkafkaBatchSize = 1_000_000
}
