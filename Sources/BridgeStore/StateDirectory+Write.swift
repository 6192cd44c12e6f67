import BridgeCore
import DeviceQueues

extension StateDirectory {
    /// Holds committed records for their open stores, after those held already, to be written
    /// later, as one write, by whoever takes them: once ``writePacing`` says they are due
    /// (``takeUnwrittenIfDue(now:)``), or whenever (``takeUnwritten()``). Records of a partition
    /// without an open store are dropped; so are those held for a store released, discarded or
    /// recreated before they are written, which keeps its checkpoint.
    public mutating func hold(_ batch: StoreBatch, now: ContinuousClock.Instant = .now) {
        var batch = batch
        batch.removeAll { open[$0] == nil }
        if unwritten.isEmpty { heldSince = now }
        unwritten.append(contentsOf: batch)
    }

    /// Holds, with ``keepsDeviceRows``, `partition`'s devices and its topics' members as its rows
    /// are to hold them once the records held before are written: for a partition whose state a
    /// restore rebuilt. Rows at their store's checkpoint, with nothing of theirs held, hold them
    /// already (a restart after a graceful stop): they are left as they are.
    public mutating func holdRows(
        replacing partition: Int32, with devices: [DeviceKey: DeviceQueue], members: [String: TopicMembers]
    ) {
        guard let partitionRows = rows[partition] else { return }
        if unwritten.checkpoints[partition] == nil, !unwritten.rows.holds(partition),
            let rowsCheckpoint = try? partitionRows.checkpoint(),
            rowsCheckpoint == (try? open[partition]?.checkpoint())
        {
            return
        }
        var batch = StoreBatch()
        batch.rows.replace(partition, with: devices, members: members)
        hold(batch)
    }

    /// Writes the memtables of each open partition's rows to disk (``DeviceRows/flush()``), for a
    /// graceful stop: the next start opens them with no log to replay. Returns, by partition,
    /// why the rows that did not flush did not.
    public func flushRows() -> [Int32: String] {
        var unflushed: [Int32: String] = [:]
        for (partition, partitionRows) in rows {
            do {
                if try !partitionRows.flush() {
                    unflushed[partition] = "a write failed, RocksDB holds an error, or the disk lacks room"
                }
            } catch {
                unflushed[partition] = "\(error)"
            }
        }
        return unflushed
    }

    /// Takes the records held, for a write to their stores away from the caller (a blocking
    /// one); nil when none are.
    public mutating func takeUnwritten() -> StoreWrite? {
        guard !unwritten.isEmpty else { return nil }
        defer { unwritten = StoreBatch() }
        return StoreWrite(records: unwritten, stores: open, rows: rows, directory: path)
    }

    /// Takes the records held, as ``takeUnwritten()`` does, once ``writePacing`` says they are
    /// due at `now`; nil before.
    public mutating func takeUnwrittenIfDue(now: ContinuousClock.Instant) -> StoreWrite? {
        guard !unwritten.isEmpty,
            unwritten.count >= writePacing.records || now - heldSince >= writePacing.age
        else { return nil }
        return takeUnwritten()
    }
}
