import Kafka

/// A batch whose outputs are all with the producer and whose commit has begun. It is made by
/// ``BatchCommitter/seal(_:states:consumer:)`` and ends in ``BatchCommitter/finish(_:consumer:stores:)`` or
/// ``BatchCommitter/failed(_:cause:)``, each of which consumes it: the compiler keeps a batch
/// from being committed twice, or finished after it failed.
struct SealedBatch: ~Copyable {
    /// What the batch covers and cost, as it was sealed.
    let batch: OpenBatch
    /// What waiting for the commit needs, which a task of its own may take.
    let seal: BatchSeal

    init(_ batch: consuming OpenBatch, seal: BatchSeal) {
        self.batch = batch
        self.seal = seal
    }
}

/// What waiting for a sealed batch's commit needs, and nothing of the loop's.
struct BatchSeal: Sendable {
    /// What says whether the outputs are durable, by delivery guarantee.
    enum Outcome: Sendable {
        /// Exactly once: the transaction's commit, with the input offsets of the consumer group.
        case transaction(ConsumerGroupMetadata)
        /// At least once: the delivery reports of the outputs.
        case deliveries([PendingDeliveries])
    }

    /// The next input offsets to read, which the commit stores.
    var offsets: [TopicPartitionOffset]
    /// What says whether the batch's outputs are durable.
    var outcome: Outcome
    /// When the commit began.
    var sealed: ContinuousClock.Instant
}
