import BridgeStore
import Foundation

extension StoreBatch {
    /// Adds the changelog record of a fixture line, as the restore keeps it.
    public mutating func append(_ fixture: FixtureRecord) {
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
}
