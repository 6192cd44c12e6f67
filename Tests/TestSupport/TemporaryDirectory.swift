import Foundation

/// A directory of its own for a test, deleted with everything in it when the test is done.
public struct TemporaryDirectory: ~Copyable {
    /// The directory; made by whoever writes there first.
    public let path = FileManager.default.temporaryDirectory.appendingPathComponent("test-\(UUID().uuidString)").path

    public init() {}

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
