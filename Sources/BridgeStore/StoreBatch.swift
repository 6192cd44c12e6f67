/// Changelog records to write to their partitions' stores, copied back to back into one buffer,
/// with the checkpoint each partition's store moves to once they are written; and the devices
/// they leave, for the partitions' device rows.
public struct StoreBatch: Sendable {
    private struct Entry: Sendable {
        var partition: Int32
        var key: Range<Int>
        /// Nil for a tombstone.
        var value: Range<Int>?
        var time: Int64?
        var collapseKey: Range<Int>?
        var expiresAt: Range<Int>?
    }

    private var bytes: [UInt8] = []
    private var entries: [Entry] = []
    /// The offset each partition's changelog is covered to once the records are written.
    public var checkpoints: [Int32: Int64] = [:]
    /// The devices the records leave, for the device rows, which move to the same checkpoints.
    public var rows = DeviceRowChanges()
    /// The number of the last of the worker's batches (``DeviceStates/seal()``) whose devices the
    /// rows hold once this batch is written, when it says: a device served from the rows may
    /// leave memory once they hold its last change.
    public var rowsThrough: UInt64?

    /// No records, no checkpoints.
    public init() {}

    /// Adds a changelog record of `partition`: its key, value (nil for a tombstone), CreateTime,
    /// and the two headers a waiting message of 0.10 needs.
    public mutating func append(
        partition: Int32, key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer?, time: Int64?,
        collapseKey: UnsafeRawBufferPointer? = nil, expiresAt: UnsafeRawBufferPointer? = nil
    ) {
        entries.append(
            Entry(
                partition: partition, key: copy(key), value: value.map { copy($0) }, time: time,
                collapseKey: collapseKey.map { copy($0) }, expiresAt: expiresAt.map { copy($0) }))
    }

    /// Records held.
    public var count: Int { entries.count }

    /// Whether there is nothing to write: no checkpoint to move, no device row to write, no
    /// batch to say the rows hold.
    public var isEmpty: Bool { checkpoints.isEmpty && rows.isEmpty && rowsThrough == nil }

    /// Drops the records, checkpoints and devices of the partitions `isDropped` names.
    public mutating func removeAll(ofPartitions isDropped: (Int32) -> Bool) {
        entries.removeAll { isDropped($0.partition) }
        checkpoints = checkpoints.filter { !isDropped($0.key) }
        rows.removeAll(ofPartitions: isDropped)
    }

    /// Adds `later`'s records after these (it holds records read after them), and each of its
    /// checkpoints and devices over this batch's.
    public mutating func append(contentsOf later: StoreBatch) {
        rows.append(contentsOf: later.rows)
        let rowsThrough = [self.rowsThrough, later.rowsThrough].compactMap { $0 }.max()
        guard !entries.isEmpty else {
            // Nothing to place the records after: take them as they are.
            let (checkpoints, rows) = (self.checkpoints.merging(later.checkpoints) { _, later in later }, self.rows)
            self = later
            self.checkpoints = checkpoints
            self.rows = rows
            self.rowsThrough = rowsThrough
            return
        }
        self.rowsThrough = rowsThrough
        let shift = bytes.count
        func moved(_ range: Range<Int>) -> Range<Int> { (range.lowerBound + shift)..<(range.upperBound + shift) }
        bytes.append(contentsOf: later.bytes)
        for entry in later.entries {
            entries.append(
                Entry(
                    partition: entry.partition, key: moved(entry.key), value: entry.value.map(moved), time: entry.time,
                    collapseKey: entry.collapseKey.map(moved), expiresAt: entry.expiresAt.map(moved)))
        }
        checkpoints.merge(later.checkpoints) { _, later in later }
    }

    private mutating func copy(_ part: UnsafeRawBufferPointer) -> Range<Int> {
        let start = bytes.count
        bytes.append(contentsOf: part)
        return start..<bytes.count
    }

    /// Puts the records of `partition`, in order, through `writer`.
    func put(_ partition: Int32, to writer: inout StoreWriter) throws {
        try bytes.withUnsafeBytes { bytes in
            func view(_ range: Range<Int>?) -> UnsafeRawBufferPointer? {
                range.map { UnsafeRawBufferPointer(rebasing: bytes[$0]) }
            }
            for entry in entries where entry.partition == partition {
                try writer.put(
                    key: UnsafeRawBufferPointer(rebasing: bytes[entry.key]), value: view(entry.value), time: entry.time,
                    collapseKey: view(entry.collapseKey), expiresAt: view(entry.expiresAt))
            }
        }
    }
}
