import BridgeStore

/// A restore's changelog records on their way to the local stores: gathered as the polls decode
/// them, and written once at least ``threshold`` are gathered, on a child task of the restore's
/// task group that runs the blocking SQLite writes on NIO's thread pool, one write at a time so
/// that each store takes its records in changelog order. Holds fewer than twice `threshold` and
/// two polls' records: those gathered, and those being written.
struct GatheredStoreWrites: Sendable {
    /// The stores written to, opened when the restore began, and their directory.
    private let stores: [Int32: PartitionStore]
    private let directory: String
    /// Records gathered before they are written.
    let threshold: Int
    private var gathered = StoreBatch()
    private var isWriting = false

    /// Writes to the stores `stores` has open now.
    init(to stores: StateDirectory, threshold: Int) {
        self.stores = stores.open
        self.directory = stores.path
        self.threshold = threshold
    }

    /// Adds a poll's records, read after those gathered before.
    mutating func gather(_ records: StoreBatch) {
        gathered.append(contentsOf: records)
    }

    /// Starts writing what is gathered once it reaches ``threshold``, after the write before
    /// ends; throws that write's error.
    mutating func writeIfDue(in writes: inout ThrowingTaskGroup<Void, any Error>) async throws {
        guard gathered.count >= threshold else { return }
        try await settle(in: &writes)
        let due = takeGathered()
        writes.addTask { try await due.runOnThreadPool() }
        isWriting = true
    }

    /// Writes what is left once the write under way ends: every record gathered is then stored.
    mutating func finish(in writes: inout ThrowingTaskGroup<Void, any Error>) async throws {
        try await settle(in: &writes)
        try await takeGathered().runOnThreadPool()
    }

    /// Waits for the write under way, if any; throws its error.
    mutating func settle(in writes: inout ThrowingTaskGroup<Void, any Error>) async throws {
        guard isWriting else { return }
        isWriting = false
        try await writes.waitForAll()
    }

    /// The records gathered, as a write to the stores; none are gathered afterwards.
    private mutating func takeGathered() -> StoreWrite {
        defer { gathered = StoreBatch() }
        return StoreWrite(records: gathered, stores: stores, directory: directory)
    }
}
