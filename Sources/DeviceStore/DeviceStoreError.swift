/// A device store that cannot be opened, read or written, or holds bytes that do not read:
/// names the store's directory and what went wrong.
public struct DeviceStoreError: Error, CustomStringConvertible {
    /// The store's directory.
    public let path: String
    /// What was being done: `open`, `read`, `write`, `load`, `scan` or `flush`.
    public let operation: String
    /// RocksDB's message, or what does not read.
    public let message: String

    init(path: String, operation: String, message: String) {
        self.path = path
        self.operation = operation
        self.message = message
    }

    public var description: String { "device store \(path): \(operation) failed: \(message)" }
}
