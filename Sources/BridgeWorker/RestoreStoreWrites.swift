import BridgeStore

/// A restore's writes to the local stores: the records it keeps are held by the state directory
/// as a batch's committed records are (``StateDirectory/hold(_:now:)``), and written once its
/// ``StateDirectory/writePacing`` says they are due, on a child task of the restore's task group
/// that runs the blocking SQLite writes on NIO's thread pool while the polls and the apply go
/// on. One write at a time, so that each store takes its records in changelog order.
struct RestoreStoreWrites {
    private var isWriting = false

    /// Starts writing the records `stores` holds once they are due, after the write before
    /// ends; throws that write's error.
    mutating func writeIfDue(
        from stores: inout StateDirectory?, in writes: inout ThrowingTaskGroup<Void, any Error>
    ) async throws {
        guard let due = stores?.takeUnwrittenIfDue(now: .now) else { return }
        try await settle(in: &writes)
        writes.addTask { try await due.runOnThreadPool() }
        isWriting = true
    }

    /// Writes what `stores` holds once the write under way ends: every record kept is then stored.
    mutating func finish(from stores: inout StateDirectory?, in writes: inout ThrowingTaskGroup<Void, any Error>)
        async throws
    {
        try await settle(in: &writes)
        try await stores?.takeUnwritten()?.runOnThreadPool()
    }

    /// Ends the writes of a restore that failed with `error`: waits for the write under way and,
    /// when a write failed (a full disk), lets go of what `stores` holds, which would no longer
    /// follow its store's checkpoint. A write that failed is what stopped the restore, whatever
    /// came after: throws its error, else `error`.
    mutating func abandon(
        after error: any Error, from stores: inout StateDirectory?, in writes: inout ThrowingTaskGroup<Void, any Error>
    ) async throws -> Never {
        do {
            try await settle(in: &writes)
        } catch {
            _ = stores?.takeUnwritten()
            throw error
        }
        if error is StateDirectoryError { _ = stores?.takeUnwritten() }
        throw error
    }

    /// Waits for the write under way, if any; throws its error.
    mutating func settle(in writes: inout ThrowingTaskGroup<Void, any Error>) async throws {
        guard isWriting else { return }
        isWriting = false
        try await writes.waitForAll()
    }
}
