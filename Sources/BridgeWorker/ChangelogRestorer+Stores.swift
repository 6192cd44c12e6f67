import BridgeCore
import BridgeStore
import Kafka

/// The changelog partitions a restore began from their local stores.
struct StoreStarts {
    /// Where each partition's changelog is read from: its store's checkpoint.
    var offsets: [Int32: Int64] = [:]
    /// The records each store replayed.
    var records: [Int32: Int] = [:]
    /// Partitions no fetch has confirmed yet: a checkpoint is only good at or below the
    /// changelog's high watermark.
    var unconfirmed: Set<Int32> = []

    /// Records replayed from the stores.
    var recordCount: Int { records.values.reduce(0, +) }
}

extension ChangelogRestorer {
    /// Replays each partition's local store into `states` (which holds the partitions, adopted
    /// and empty) and returns where each partition's changelog is to be read from. A store in
    /// doubt (unreadable, foreign, of another format) is deleted, its doubt logged in one line,
    /// and its partition read from the beginning.
    func load(_ partitions: [Int32], into states: inout DeviceStates, from stores: inout StateDirectory) throws
        -> StoreStarts
    {
        var starts = StoreStarts()
        for partition in partitions {
            let store = try stores.open(partition, logger: logger)
            do {
                let checkpoint = try store.checkpoint()
                guard checkpoint > 0 else { continue }
                starts.records[partition] = try store.load(into: &states, codec: codec)
                starts.offsets[partition] = checkpoint
                starts.unconfirmed.insert(partition)
            } catch {
                logger.warning("\(error); it is deleted, and the partition restored from its changelog")
                states.drop(partition)
                states.adopt(partition)
                _ = try stores.recreate(partition)
            }
        }
        return starts
    }

    /// Drops the stores the changelog does not reach (a changelog recreated, or cut short): a
    /// partition the broker answered out of range, or whose high watermark is below the
    /// checkpoint. Each is logged, deleted, its state dropped, and its changelog read again from
    /// the beginning. Other partitions answered out of range (a changelog read from its start, a
    /// repartition backlog) are read from their start, as `earliest` would.
    func confirm(
        _ starts: inout StoreStarts, outOfRange: [TopicPartition], with consumer: KafkaConsumer,
        progress: inout RestoreProgress<TopicPartition>, states: inout DeviceStates, stores: inout StateDirectory?
    ) async throws {
        var restart = outOfRange.filter { $0.topic != codec.topic || starts.offsets[$0.partition] == nil }
        for partition in outOfRange where !restart.contains(partition) {
            try drop(
                partition.partition, starts: &starts,
                doubt: "its checkpoint \(starts.offsets[partition.partition] ?? 0) is out of the changelog's range",
                states: &states, stores: &stores)
            restart.append(partition)
        }
        for partition in starts.unconfirmed {
            let changelog = TopicPartition(codec.topic, partition)
            guard let highWatermark = consumer.highWatermark(of: changelog) else { continue }
            starts.unconfirmed.remove(partition)
            guard let checkpoint = starts.offsets[partition], checkpoint > highWatermark else { continue }
            try drop(
                partition, starts: &starts,
                doubt: "it covers the changelog to offset \(checkpoint), past its end \(highWatermark)",
                states: &states, stores: &stores)
            restart.append(changelog)
        }
        guard !restart.isEmpty else { return }
        for partition in restart { progress.readAgain(partition) }
        try await consumer.seek(restart.map { TopicPartitionOffset($0, offset: KafkaOffset.beginning) })
    }

    /// Drops a partition's store and the state replayed from it, saying why. The partition has
    /// no store until it is assigned again: the restore under way writes to the stores it began
    /// with, and a store missing what the restore read before cannot be checkpointed.
    private func drop(
        _ partition: Int32, starts: inout StoreStarts, doubt: String, states: inout DeviceStates,
        stores: inout StateDirectory?
    ) throws {
        guard stores != nil else { return }
        starts.offsets[partition] = nil
        starts.records[partition] = nil
        starts.unconfirmed.remove(partition)
        logger.warning(
            "\(StoreDoubt(path: stores!.file(of: partition), reason: doubt)); it is deleted, and the partition restored from its changelog"
        )
        states.drop(partition)
        states.adopt(partition)
        try stores!.discard(partition)
    }
}

extension StoreBatch {
    /// Adds a changelog record read from Kafka, with the headers a store keeps.
    mutating func append(_ record: borrowing ConsumerRecordView) {
        append(
            partition: record.partition, key: record.key ?? UnsafeRawBufferPointer(start: nil, count: 0),
            value: record.value, time: record.createTime,
            collapseKey: record.header(StoredHeaders.collapseKeyHeader),
            expiresAt: record.header(StoredHeaders.expiresAtHeader))
    }
}
