import BridgeCore
import BridgeStore
import DeviceQueues
import Kafka

/// A batch's changelog records, kept until the batch commits and then held for the local stores
/// (``StateDirectory/hold(_:now:)``), each store's checkpoint moved past the offsets their delivery
/// reports gave: a store holds committed records only.
struct StoreWrites: Sendable {
    private struct Run: Sendable {
        var records = StoreBatch()
        /// Each record's partition, and its place among the reports.
        var places: [(partition: Int32, report: Int)] = []
        var deliveries: PendingDeliveries
    }

    private var runs: [Run] = []
    /// The devices the batch changed, as they were at its seal, for the device rows.
    var rows = DeviceRowChanges()
    /// The batch's number (``DeviceStates/seal()``), for the device rows.
    var rowsThrough: UInt64?

    /// Keeps the changelog records of `outputs`, whose reports `deliveries` gives: the n-th
    /// report is that of the n-th changelog record.
    mutating func add(changelogOf outputs: borrowing OutputRecords, deliveries: PendingDeliveries) {
        var run = Run(deliveries: deliveries)
        outputs.withUnsafeBytes { bytes in
            for (report, record) in outputs.records.lazy.filter({ $0.topic == .changelog }).enumerated() {
                // Changelog records always name their partition and have a key (ChangelogCodec).
                guard let partition = record.partition, let key = record.key else { continue }
                run.records.append(
                    partition: partition, key: UnsafeRawBufferPointer(rebasing: bytes[key]),
                    value: record.value.map { UnsafeRawBufferPointer(rebasing: bytes[$0]) }, time: record.timestamp)
                run.places.append((partition, report))
            }
        }
        if !run.places.isEmpty { runs.append(run) }
    }

    /// Holds the records for their stores once the batch committed, each store's checkpoint
    /// past its records' offsets. Returns the partitions for which a report lacks an offset:
    /// their stores cannot be checkpointed, so none of their records from that report on is
    /// held, and the caller
    /// deletes the stores (``StateDirectory/discard(_:)``) once no write to them runs, so that
    /// no restore trusts them; the partition has none until it is assigned again.
    func hold(in stores: inout StateDirectory?) async -> Set<Int32> {
        var unknown: Set<Int32> = []
        for var run in runs {
            let reports = await run.deliveries.reports()
            for (partition, index) in run.places {
                let offset = reports[index].offset
                guard reports[index].error == nil, offset >= 0 else {
                    unknown.insert(partition)
                    continue
                }
                run.records.checkpoints[partition] = max(
                    run.records.checkpoints[partition] ?? 0, offset.saturatingAdd(1))
            }
            run.records.removeAll(ofPartitions: unknown.contains)
            stores?.hold(run.records)
        }
        var devices = StoreBatch()
        devices.rows = rows
        // A batch whose rows were not all kept does not say the rows hold it.
        devices.rowsThrough = unknown.isEmpty ? rowsThrough : nil
        devices.removeAll(ofPartitions: unknown.contains)
        if !devices.isEmpty { stores?.hold(devices) }
        return unknown
    }
}
