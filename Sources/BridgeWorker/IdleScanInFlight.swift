import BridgeStore
import NIOCore
import Synchronization

/// The idle sweeps' scans of their partitions' device rows (``DeviceStates/takeStoreScans()``),
/// running on NIO's thread pool while the worker's loop goes on: a scan reads every device of a
/// partition, seconds at millions. The loop starts one when none runs, gives what it found to the
/// sweeps once it has ended (``ServedDevices/addIdle(from:to:)``), and awaits it before a
/// rebalance releases the rows it reads, and at the end.
struct IdleScanInFlight: Sendable {
    /// The partitions scanned, in the order of ``found``'s values.
    let partitions: [Int32]
    /// The idle tokens of each partition.
    let found: EventLoopFuture<[[String]]>
    private let ended: Ended

    /// Set once the scans have ended, by the thread that ran them.
    private final class Ended: Sendable {
        let flag = Atomic<Bool>(false)
    }

    /// The scans of `partitions`, running as `found`.
    init(partitions: [Int32], found: EventLoopFuture<[[String]]>) {
        let ended = Ended()
        self.partitions = partitions
        self.found = found
        found.whenComplete { _ in ended.flag.store(true, ordering: .releasing) }
        self.ended = ended
    }

    /// Whether the scans have ended: waiting for them then returns at once.
    var hasEnded: Bool { ended.flag.load(ordering: .acquiring) }
}
