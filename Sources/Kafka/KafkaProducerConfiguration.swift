/// Configuration of a ``KafkaProducer``.
///
/// Keyed records are partitioned with `murmur2_random`, the Java client's default, so that any
/// Kafka client in any language finds the same partition for the same key.
public struct KafkaProducerConfiguration: Sendable, Hashable {
    /// Cluster, client id and pass-through properties.
    public var kafka: KafkaConfiguration
    /// Makes the producer transactional (`transactional.id`); see ``KafkaProducer/initTransactions(timeout:)``.
    public var transactionalID: String?
    /// No duplicates or reordering on retries (`enable.idempotence`).
    public var idempotence: Bool = true
    /// How long to wait for more records to batch together (`linger.ms`); `linger.ms` or its
    /// alias `queue.buffering.max.ms` among the properties wins.
    public var linger: Duration = .milliseconds(5)
    /// How long a record may take to be delivered before it fails (`message.timeout.ms`).
    public var messageTimeout: Duration = .seconds(300)
    /// How long a transaction may stay open before the broker aborts it (`transaction.timeout.ms`).
    public var transactionTimeout: Duration = .seconds(60)

    /// Creates a producer configuration.
    public init(kafka: KafkaConfiguration, transactionalID: String? = nil) {
        self.kafka = kafka
        self.transactionalID = transactionalID
    }

    var librdkafkaProperties: [String: String] {
        var properties = kafka.commonProperties
        properties["partitioner"] = "murmur2_random"
        properties["enable.idempotence"] = String(idempotence || transactionalID != nil)
        if kafka.properties["queue.buffering.max.ms"] == nil {
            properties["linger.ms"] = String(linger.milliseconds)
        }
        properties["message.timeout.ms"] = String(messageTimeout.milliseconds)
        if let transactionalID {
            // librdkafka requires message.timeout.ms <= transaction.timeout.ms.
            properties["transactional.id"] = transactionalID
            properties["transaction.timeout.ms"] = String(transactionTimeout.milliseconds)
            properties["message.timeout.ms"] = String(min(messageTimeout, transactionTimeout).milliseconds)
        }
        return properties.merging(kafka.properties) { $1 }
    }
}
