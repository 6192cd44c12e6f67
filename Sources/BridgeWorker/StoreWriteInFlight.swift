import BridgeStore
import NIOCore
import NIOPosix

/// A write to the local stores running on NIO's thread pool while the worker's loop goes on,
/// across as many commits as it takes. The loop starts one once held records are due and
/// awaits it before it starts another (so that each store takes its records in changelog
/// order), before anything reads, replaces or deletes a store it writes, at the end, and once
/// it has ended, for its error.
struct StoreWriteInFlight: Sendable {
    /// The partitions whose stores it writes.
    let partitions: Set<Int32>
    /// The last of the worker's batches whose devices the rows hold once it has ended, when it
    /// says (``StoreBatch/rowsThrough``).
    let rowsThrough: UInt64?
    private let work: PoolWork<Void>

    /// Starts `write` on NIO's thread pool.
    init(_ write: StoreWrite) {
        partitions = write.partitions
        rowsThrough = write.records.rowsThrough
        work = PoolWork(
            NIOThreadPool.singleton.runIfActive(eventLoop: MultiThreadedEventLoopGroup.singleton.any()) {
                try write.run()
            })
    }

    /// Whether the write has ended: ``wait()`` then returns at once.
    var hasEnded: Bool { work.hasEnded }

    /// Waits for the write to end, however the waiting task is cancelled; throws its error (a
    /// ``StateDirectoryError``).
    func wait() async throws {
        try await work.value()
    }
}
