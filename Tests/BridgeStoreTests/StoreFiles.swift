import BridgeCore
import BridgeStore
import Foundation
import TestSupport

/// A state directory of its own for a test.
typealias StoreFiles = TemporaryDirectory

extension TemporaryDirectory {
    /// The directory as a worker of group `group` opens it, for the changelog topic `changelog`.
    func directory(
        group: String = "group", changelogID: String? = nil, cleanupDelay: Duration = .seconds(600),
        deviceRows: Bool = false
    ) throws -> StateDirectory {
        try StateDirectory(
            path: path, group: group, topic: "changelog", changelogID: changelogID, cleanupDelay: cleanupDelay,
            deviceRows: deviceRows)
    }
}

extension StoreBatch {
    /// A batch of `records` (key, value or nil for a tombstone) of `partition`, moving its
    /// store to `checkpoint`.
    init(_ records: [(String, String?)], partition: Int32 = 0, checkpoint: Int64) {
        self.init()
        for (key, value) in records { append(key, value, partition: partition) }
        checkpoints[partition] = checkpoint
    }

    /// Adds a record of `partition` with a text key and value (nil for a tombstone).
    mutating func append(_ key: String, _ value: String?, partition: Int32 = 0) {
        Array(key.utf8).withUnsafeBytes { key in
            guard let value else { return append(partition: partition, key: key, value: nil, time: nil) }
            Array(value.utf8).withUnsafeBytes { append(partition: partition, key: key, value: $0, time: nil) }
        }
    }
}
