import BridgeStore
import TestSupport
import Testing

@testable import BridgeWorker

/// A store write the loop starts and leaves running: it ends on its own, and its error waits for
/// whoever waits for it.
@Suite("A store write left running", .timeLimit(.minutes(1)))
struct StoreWriteInFlightTests {
    @Test("it ends while nobody waits, its records stored and its store's checkpoint moved")
    func endsOnItsOwn() async throws {
        let files = TemporaryDirectory()
        let (write, store) = try Self.write(statuses: 1_000, at: files.path)
        while !write.hasEnded { try await Task.sleep(for: .milliseconds(5)) }
        try await write.wait()
        #expect(try store.checkpoint() == 1_000)
        #expect(try store.recordCount() == 1_000)
    }

    @Test("a task cancelled as it waits still waits for the write's end, as a shutdown's deadline needs")
    func waitOutlastsCancellation() async throws {
        let files = TemporaryDirectory()
        let (write, store) = try Self.write(statuses: 20_000, at: files.path)
        let waiting = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await write.wait()
            return write.hasEnded
        }
        #expect(try await waiting.value)
        #expect(try store.checkpoint() == 20_000)
    }

    @Test(
        "a write that fails (a full disk) throws its error, naming state.directory, to whoever waits",
        .enabled(if: SmallFileSystem.canMount, "mounting a tmpfs needs CAP_SYS_ADMIN"))
    func failure() async throws {
        let fileSystem = try SmallFileSystem(kilobytes: 256)
        defer { fileSystem.unmount() }
        // About 500 KB: twice what the file system holds.
        let (write, store) = try Self.write(statuses: 2_000, at: fileSystem.path)
        let error = await #expect(throws: StateDirectoryError.self) { try await write.wait() }
        #expect(
            error?.description.hasPrefix("state.directory \(fileSystem.path) cannot write the store of partition 0")
                == true, "\(String(describing: error))")
        #expect(write.hasEnded)
        #expect(try store.checkpoint() == 0, "the store's checkpoint stays where its records end")
    }

    /// A write of `statuses` device statuses of about 250 bytes to the store of partition 0 of
    /// a state directory at `path`, started, and that store.
    static func write(statuses: Int, at path: String) throws -> (StoreWriteInFlight, PartitionStore) {
        var stores = try StateDirectory(testingAt: path)
        let store = try stores.open(0, logger: TestBroker.logger)
        stores.hold(RestoreStoreWritesTests.statuses(0..<statuses))
        let taken = stores.takeUnwritten()
        return (StoreWriteInFlight(try #require(taken)), store)
    }
}
