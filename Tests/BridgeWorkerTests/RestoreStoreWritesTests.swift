import BridgeStore
import TestSupport
import Testing

@testable import BridgeWorker

/// A restore stopped by a store write that failed (a full disk) lets go of the records held
/// behind that write: written later, they would not follow their store's checkpoint.
@Suite(
    "A restore's store writes after a failed one",
    .enabled(if: SmallFileSystem.canMount, "mounting a tmpfs needs CAP_SYS_ADMIN"))
struct RestoreStoreWritesTests {
    @Test("the records held behind the failed write are let go, and its error is thrown")
    func heldBehindFailedWrite() async throws {
        let fileSystem = try SmallFileSystem(kilobytes: 256)
        defer { fileSystem.unmount() }
        var stores: StateDirectory? = try StateDirectory(testingAt: fileSystem.path)
        _ = try stores?.open(0, logger: TestBroker.logger)
        stores?.writePacing = StoreWritePacing(records: 2_000, age: .seconds(3600))
        var storeWrites = RestoreStoreWrites()
        let thrown: (any Error)? = await withThrowingTaskGroup(of: Void.self) { writes in
            do {
                // About 500 KB: twice what the file system holds.
                stores?.hold(Self.statuses(0..<2_000))
                try await storeWrites.writeIfDue(from: &stores, in: &writes)
                #expect(stores?.unwritten.count == 0, "the first 2,000 are taken by the write")
                stores?.hold(Self.statuses(2_000..<3_000))
                try await storeWrites.finish(from: &stores, in: &writes)
                return nil
            } catch {
                #expect(stores?.unwritten.count == 1_000, "the write failed before the last records were taken")
                do {
                    try await storeWrites.abandon(after: error, from: &stores, in: &writes)
                } catch {
                    return error
                }
            }
        }
        #expect(thrown is StateDirectoryError, "\(String(describing: thrown))")
        #expect(stores?.unwritten.count == 0)
    }

    /// Device status records of partition 0, each of about 250 bytes, the last moving the
    /// checkpoint past them.
    static func statuses(_ devices: Range<Int>) -> StoreBatch {
        var batch = StoreBatch()
        let value = Array(#"{"online":false,"last_activity":1700000000000}"#.utf8)
        for device in devices {
            let key = Array(("d " + String(repeating: "t", count: 200) + "\(device)").utf8)
            key.withUnsafeBytes { key in
                value.withUnsafeBytes { batch.append(partition: 0, key: key, value: $0, time: nil) }
            }
        }
        batch.checkpoints[0] = Int64(devices.upperBound)
        return batch
    }
}
