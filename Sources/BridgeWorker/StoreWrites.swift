import BridgeCore
import BridgeStore
import Kafka

/// A batch's changelog records, held until the batch commits and then written to the local
/// stores (``StateDirectory``), each store's checkpoint moved past the offsets their delivery
/// reports gave: a store holds committed records only.
struct StoreWrites: Sendable {
    private struct Run: Sendable {
        var records: [StoredRecord]
        /// Each record's place among the reports.
        var reportIndices: [Int]
        var deliveries: PendingDeliveries
    }

    private var runs: [Run] = []

    /// Keeps the changelog records of `outputs`, whose reports `deliveries` gives.
    mutating func add(changelogOf outputs: borrowing OutputRecords, deliveries: PendingDeliveries) {
        var run = Run(records: [], reportIndices: [], deliveries: deliveries)
        outputs.withUnsafeBytes { bytes in
            for (index, record) in outputs.records.enumerated() where record.topic == .changelog {
                guard let partition = record.partition, let key = record.key else { continue }
                run.records.append(
                    StoredRecord(
                        partition: partition, key: Array(bytes[key]), value: record.value.map { Array(bytes[$0]) },
                        time: record.timestamp))
                run.reportIndices.append(index)
            }
        }
        if !run.records.isEmpty { runs.append(run) }
    }

    /// Writes the records to their stores once the batch committed. A partition for which a
    /// report lacks an offset cannot be checkpointed: its store is deleted, so that no restore
    /// trusts it, and the partition's next restore reads the whole changelog.
    func write(to stores: inout StateDirectory) async throws {
        var records: [StoredRecord] = []
        var checkpoints: [Int32: Int64] = [:]
        var unknown: Set<Int32> = []
        for run in runs {
            let reports = await run.deliveries.reports()
            for (record, index) in zip(run.records, run.reportIndices) {
                let offset = reports[index].offset
                guard reports[index].error == nil, offset >= 0 else {
                    unknown.insert(record.partition)
                    continue
                }
                checkpoints[record.partition] = max(checkpoints[record.partition] ?? 0, offset + 1)
                records.append(record)
            }
        }
        for partition in unknown {
            checkpoints[partition] = nil
            try stores.discard(partition)
        }
        try stores.write(records.filter { !unknown.contains($0.partition) }, checkpoints: checkpoints)
    }
}
