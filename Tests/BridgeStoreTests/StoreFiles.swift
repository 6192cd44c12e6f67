import BridgeCore
import BridgeStore
import Foundation
import TestSupport

/// A state directory of its own for a test.
typealias StoreFiles = TemporaryDirectory

extension TemporaryDirectory {
    /// The directory as a worker of group `group` opens it, for the changelog topic `changelog`.
    func directory(group: String = "group", cleanupDelay: Duration = .seconds(600)) throws -> StateDirectory {
        try StateDirectory(path: path, group: group, topic: "changelog", cleanupDelay: cleanupDelay)
    }
}

extension StoredRecord {
    /// The record of a fixture line, as the restore keeps it.
    init(_ fixture: FixtureRecord) {
        self.init(
            partition: fixture.partition, key: Array(fixture.key ?? Data()), value: fixture.value.map(Array.init),
            time: fixture.timestamp, collapseKey: fixture.headers["collapse-key"].map { Array($0.utf8) },
            expiresAt: fixture.headers["expires-at"].map { Array($0.utf8) })
    }
}
