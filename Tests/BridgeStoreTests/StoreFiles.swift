import BridgeCore
import BridgeStore
import Foundation
import TestSupport

/// A state directory of its own for a test.
typealias StoreFiles = TemporaryDirectory

extension TemporaryDirectory {
    /// The directory as a worker of group `group` opens it, for the changelog topic `changelog`.
    func directory(group: String = "group", changelogID: String? = nil, cleanupDelay: Duration = .seconds(600)) throws
        -> StateDirectory
    {
        try StateDirectory(
            path: path, group: group, topic: "changelog", changelogID: changelogID, cleanupDelay: cleanupDelay)
    }
}

extension StoreBatch {
    /// Adds the record of a fixture line, as the restore keeps it.
    mutating func append(_ fixture: FixtureRecord) {
        let parts = [
            fixture.key ?? Data(), fixture.value ?? Data(), Data((fixture.headers["collapse-key"] ?? "").utf8),
            Data((fixture.headers["expires-at"] ?? "").utf8),
        ]
        parts[0].withUnsafeBytes { key in
            parts[1].withUnsafeBytes { value in
                parts[2].withUnsafeBytes { collapseKey in
                    parts[3].withUnsafeBytes { expiresAt in
                        append(
                            partition: fixture.partition, key: key, value: fixture.value == nil ? nil : value,
                            time: fixture.timestamp,
                            collapseKey: fixture.headers["collapse-key"] == nil ? nil : collapseKey,
                            expiresAt: fixture.headers["expires-at"] == nil ? nil : expiresAt)
                    }
                }
            }
        }
    }

    /// Adds a record of partition 0 with a text key and value (nil for a tombstone).
    mutating func append(_ key: String, _ value: String?) {
        Array(key.utf8).withUnsafeBytes { key in
            guard let value else { return append(partition: 0, key: key, value: nil, time: nil) }
            Array(value.utf8).withUnsafeBytes { append(partition: 0, key: key, value: $0, time: nil) }
        }
    }
}
