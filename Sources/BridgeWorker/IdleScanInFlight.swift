/// The idle sweeps' scans of their partitions' device rows (``DeviceStates/takeStoreScans()``),
/// running on a thread of their own while the worker's loop goes on: a scan reads every device of
/// a partition, seconds at millions. The loop starts one when none runs, gives what it found to
/// the sweeps once it has ended (``ServedDevices/addIdle(from:to:)``), and awaits it before a
/// rebalance releases the rows it reads, and at the end.
struct IdleScanInFlight: Sendable {
    /// The partitions scanned, in the order of ``found``'s values.
    let partitions: [Int32]
    /// The idle tokens of each partition.
    let found: PoolWork<[[String]]>
}
