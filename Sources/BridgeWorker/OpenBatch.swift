import BridgeCore
import Kafka

/// A batch being built: the input offsets it covers and what its outputs cost, from its first
/// record until it is sealed for its commit (``SealedBatch``).
struct OpenBatch: ~Copyable {
    /// What the batch took of one input partition.
    struct Taken {
        /// The next offset to read.
        var next: Int64 = 0
        /// Records taken.
        var records = 0
    }

    /// Where the batch's outputs wait to become durable, by delivery guarantee.
    enum Outputs {
        /// None handed to the producer yet.
        case none
        /// Exactly once: in the batch's transaction, which has begun.
        case inTransaction
        /// At least once: awaiting these delivery reports.
        case delivering([PendingDeliveries])
    }

    /// What the batch took of each input partition it holds records of.
    var offsets: [TopicPartition: Taken] = [:]
    /// Input records in the batch.
    var records = 0
    /// Output bytes (keys, values and header values) in the batch.
    var bytes = 0
    /// When its first record was taken.
    var started: ContinuousClock.Instant?
    /// Where its outputs are.
    var outputs = Outputs.none
    /// At least once: its changelog writes, held back until the outputs they describe are
    /// acknowledged, so that a crash can never leave the changelog ahead of the outputs.
    var changelog = OutputRecords()
    /// Its changelog records, for the local stores once it commits.
    var storeWrites = StoreWrites()
    /// The devices and topics' members its changelog records change, for the device rows.
    var changedRows = ChangedRows()
    /// What its outputs are, for the metrics.
    var tally = OutputTally()
    /// The CreateTime of each input that has one, for the latency metric.
    var createTimes: [Int64] = []

    /// No input record taken yet.
    var isEmpty: Bool { offsets.isEmpty }

    /// Whether its transaction has begun (exactly once).
    var inTransaction: Bool {
        if case .inTransaction = outputs { true } else { false }
    }

    /// The offsets to commit: the next one to read of each partition.
    var offsetList: [TopicPartitionOffset] { offsets.map { TopicPartitionOffset($0.key, offset: $0.value.next) } }

    /// Counts an input record taken into the batch.
    mutating func take(_ record: ConsumerRecord, at now: @autoclosure () -> ContinuousClock.Instant) {
        if started == nil { started = now() }
        offsets[record.topicPartition, default: Taken()].take(record.offset)
        records += 1
        if let createTime = record.createTime { createTimes.append(createTime) }
    }

    /// Adds the delivery reports of outputs handed to the producer (at least once).
    mutating func delivering(_ deliveries: PendingDeliveries) {
        guard case .delivering(var earlier) = outputs else {
            outputs = .delivering([deliveries])
            return
        }
        outputs = .none  // so that the array is not shared while it grows
        earlier.append(deliveries)
        outputs = .delivering(earlier)
    }
}

extension OpenBatch.Taken {
    mutating func take(_ offset: Int64) {
        next = offset &+ 1
        records += 1
    }
}
